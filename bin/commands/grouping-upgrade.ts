/** svc grouping-upgrade: move a project to the current fingerprint version (docs/grouping.md). */
import { Command, Option } from 'clipanion'
import { CURRENT_GROUPING_VERSION } from '../../services/grouper/grouping/index.js'
import { withCommandDb } from '../command-db.js'
import { loadContext } from '../context.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export class GroupingUpgradeCommand extends Command {
  static override paths = [['grouping-upgrade']]
  static override usage = Command.Usage({
    description: `Group a project's new events with fingerprint version ${CURRENT_GROUPING_VERSION}. Issues already stored keep their version and their events; errors that keep happening open issues of the new version (docs/grouping.md).`,
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
        const { rows } = await db.query<{ before: number }>(
          `UPDATE projects p SET grouping_version = $2 FROM (SELECT id, grouping_version AS before FROM projects WHERE id = $1 FOR UPDATE) old
            WHERE p.id = old.id RETURNING old.before`,
          [this.project, CURRENT_GROUPING_VERSION],
        )
        if (rows.length === 0) {
          this.context.stderr.write(`svc grouping-upgrade: no project ${this.project}. Check the id in the dashboard or with the setup session's project_id.\n`)
          return 1
        }
        const before = rows[0]!.before
        this.context.stdout.write(before === CURRENT_GROUPING_VERSION
          ? `Project ${this.project} already groups with version ${before}.\n`
          : `Project ${this.project} now groups new events with version ${CURRENT_GROUPING_VERSION} (was ${before}); running groupers follow within 30 seconds.\n`)
        return 0
      })
    } catch (error) {
      this.context.stderr.write(`svc grouping-upgrade: ${(error as Error).message}\n`)
      return 1
    }
  }
}
