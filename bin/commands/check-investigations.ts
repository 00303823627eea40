/** svc check-investigations: prove over the database that investigations keep their invariants. */
import { Command, Option } from 'clipanion'
import { createOrm } from '../../shared/orm.js'
import { INVESTIGATOR_ENTITIES } from '../../services/investigator/store/entities.js'
import { checkInvestigations } from '../../services/investigator/store/invariants.js'
import { SECOND } from '../../shared/time.js'
import { withCommandDb } from '../command-db.js'
import { loadContext } from '../context.js'

export class CheckInvestigationsCommand extends Command {
  static override paths = [['check-investigations']]
  static override usage = Command.Usage({
    description: 'Check that every finished investigation has exactly one outcome, that none stays queued or analyzing past its lease and retries, and that every stop says why; exits 1 and lists each violation otherwise.',
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
          for (const v of violations) this.context.stdout.write(`violation: ${v.rule}: investigation ${v.investigation}: ${v.detail}\n`)
          this.context.stdout.write(violations.length === 0 ? 'investigations: every invariant holds\n' : `investigations: ${violations.length} violation(s)\n`)
          return violations.length === 0 ? 0 : 1
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
