/** svc check-investigations: prove over the database that investigations keep their invariants. */
import { Command, Option } from 'clipanion'
import { createOrm } from '../../shared/db/orm.js'
import { loadConfiguredPlugins } from '../../shared/plugins/loader.js'
import { checkOpenPullRequests, type OpenPullsReport } from '../../services/investigator/fix/open-pulls.js'
import { INVESTIGATOR_ENTITIES } from '../../services/investigator/store/entities.js'
import { checkInvestigations } from '../../services/investigator/store/invariants.js'
import { SECOND } from '../../shared/time.js'
import { withCommandDb } from '../command-db.js'
import { loadContext } from '../context.js'

export class CheckInvestigationsCommand extends Command {
  static override paths = [['check-investigations']]
  static override usage = Command.Usage({
    description:
      "Check that every finished investigation has exactly one outcome, that none stays queued or analyzing past its lease and retries, that every stop says why, and that no pull request the service pushed is ready for review on a head without executed E0, E1 and E2 (read from the code host when one is configured); exits 1 and lists each violation otherwise.",
    examples: [['Check the stack in this folder', 'svc check-investigations']],
  })

  grace = Option.String('--grace-seconds', { description: 'How long past its lease a run may wait for the sweeper (default: two leases)' })

  async execute(): Promise<number> {
    const { config, log } = loadContext('check-investigations')
    const grace = this.grace === undefined ? 2 * config.investigations.leaseMs : Number(this.grace) * SECOND
    if (!Number.isFinite(grace) || grace < 0) {
      this.context.stderr.write('svc check-investigations: --grace-seconds must be a number of seconds.\n')
      return 2
    }
    try {
      return await withCommandDb(config, log, async (db) => {
        const orm = await createOrm(db, INVESTIGATOR_ENTITIES)
        try {
          const violations = await checkInvestigations(orm, { graceMs: grace, maxAttempts: config.stream.maxAttempts })
          const codehost = (await loadConfiguredPlugins(config, log)).codehost
          const pulls: OpenPullsReport | undefined = codehost?.pullRequests && (await checkOpenPullRequests(orm, codehost.pullRequests))
          violations.push(...(pulls?.violations ?? []))
          for (const v of violations) this.context.stdout.write(`violation: ${v.rule}: ${v.investigation}: ${v.detail}\n`)
          for (const line of pulls?.unreadable ?? []) this.context.stdout.write(`unread: ${line}\n`)
          this.context.stdout.write(
            pulls ? `pull requests: ${pulls.checked} open one(s) read from the code host\n` : 'pull requests: not read (no code host configured: CODEHOST_TOKEN or CODEHOST_APP_ID unset); only what the database recorded was checked\n',
          )
          const unread = pulls?.unreadable.length ?? 0
          if (violations.length > 0) this.context.stdout.write(`investigations: ${violations.length} violation(s)\n`)
          else if (unread > 0) this.context.stdout.write(`investigations: no violation found, but ${unread} fix branch(es) could not be read from the code host (above); run it again once they can\n`)
          else this.context.stdout.write('investigations: every invariant holds\n')
          return violations.length === 0 && unread === 0 ? 0 : 1
        } finally {
          await orm.close()
        }
      })
    } catch (error) {
      this.context.stderr.write(`svc check-investigations: ${(error as Error).message}\n`)
      return 1
    }
  }
}
