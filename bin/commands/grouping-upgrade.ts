/** svc grouping-upgrade: move a project to the current fingerprint version (docs/grouping.md). */
import { Command, Option } from 'clipanion'
import { CURRENT_GROUPING_VERSION } from '../../services/grouper/grouping/index.js'
import { OPEN_ISSUE_STATUSES } from '../../services/grouper/upsert-issues.js'
import { withCommandDb } from '../command-db.js'
import { loadContext } from '../context.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export class GroupingUpgradeCommand extends Command {
  static override paths = [['grouping-upgrade']]
  static override usage = Command.Usage({
    description: `Group a project's new events with fingerprint version ${CURRENT_GROUPING_VERSION}. Issues already stored keep their version and their events, and an open issue goes on receiving the events of its bug (its new fingerprint becomes an alias of it); a closed issue's bug and any new bug open issues of the new version (docs/grouping.md).`,
    examples: [['Move one project', 'svc grouping-upgrade --project 00000000-0000-4000-8000-00000000e2e0']],
  })

  project = Option.String('--project', { required: true, description: 'Project UUID' })

  async execute(): Promise<number> {
    const { config, log } = loadContext('grouping-upgrade')
    if (!UUID.test(this.project)) {
      this.context.stderr.write('svc grouping-upgrade: --project must be a project UUID.\n')
      return 2
    }
    try {
      return await withCommandDb(config, log, async (db) => {
        // The version it leaves is remembered, so errors that keep happening find their open issues.
        const { rows } = await db.query<{ before: number }>(
          `UPDATE projects p SET grouping_version = $2,
             grouping_previous_version = CASE WHEN old.before = $2 THEN p.grouping_previous_version ELSE old.before END
             FROM (SELECT id, grouping_version AS before FROM projects WHERE id = $1 FOR UPDATE) old
            WHERE p.id = old.id RETURNING old.before`,
          [this.project, CURRENT_GROUPING_VERSION],
        )
        if (rows.length === 0) {
          this.context.stderr.write(`svc grouping-upgrade: no project ${this.project}. Check the id in the dashboard or with the setup session's project_id.\n`)
          return 1
        }
        const before = rows[0]!.before
        if (before === CURRENT_GROUPING_VERSION) {
          this.context.stdout.write(`Project ${this.project} already groups with version ${before}.\n`)
          return 0
        }
        const { rows: open } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM issues WHERE project_id = $1 AND kind = 'error' AND status = ANY($2::text[])`, [this.project, OPEN_ISSUE_STATUSES])
        this.context.stdout.write(
          `Project ${this.project} now groups new events with version ${CURRENT_GROUPING_VERSION} (was ${before}); running groupers follow within 30 seconds.\n` +
            `Its ${open[0]!.n} open issue(s) keep their events: a bug that goes on happening lands in the issue it has, its version ${CURRENT_GROUPING_VERSION} fingerprint recorded as an alias of it. ` +
            `A bug whose issue is closed (a status other than ${OPEN_ISSUE_STATUSES.join(', ')}) and any new bug open version ${CURRENT_GROUPING_VERSION} issues.\n`,
        )
        return 0
      })
    } catch (error) {
      this.context.stderr.write(`svc grouping-upgrade: ${(error as Error).message}\n`)
      return 1
    }
  }
}
