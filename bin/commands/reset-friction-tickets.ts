/** svc reset-friction-tickets: archive an environment's known problems so a backfill decides its findings again. */
import { Command, Option } from 'clipanion'
import { resetFrictionTickets, type ResetPlan } from '../friction/reset.js'
import { CommandStop, parseTarget, withTargetDb } from '../friction/target.js'
import { loadContext } from '../context.js'

export class ResetFrictionTicketsCommand extends Command {
  static override paths = [['reset-friction-tickets']]
  static override usage = Command.Usage({
    description:
      "Archive every known problem of one environment and its issue (the state each had is kept), fail their queued work and the pending matching inside the lookback, detach recordings from the archived issues, and delete the matching decisions of findings inside the lookback so that svc backfill-tickets decides them again. Recordings, checks and matches stay for audit. Refused while a fix of any of them is in flight or its pull request is open. Without --confirm it only says what it would do (and exits 1). Then run svc backfill-tickets with the same --since; the workers' FRICTION_MATCH_MAX_CONCURRENT can stay as it is (a matching decision reads the known problems only once it holds the environment's lock, so concurrent jobs cannot open one problem twice). Environment UUIDs: svc environments --project <uuid>.",
    examples: [
      ['See what it would do', 'svc reset-friction-tickets --project <project uuid> --environment <environment uuid> --since 14d'],
      ['Do it', 'svc reset-friction-tickets --project <project uuid> --environment <environment uuid> --since 14d --confirm'],
    ],
  })

  project = Option.String('--project', { description: 'Project UUID' })
  environment = Option.String('--environment', { description: 'Environment UUID' })
  since = Option.String('--since', { description: 'Lookback for pending matching and decisions: hours or days, e.g. 14d' })
  confirm = Option.Boolean('--confirm', false, { description: 'Do it (without it, only say what it would do)' })

  async execute(): Promise<number> {
    const { config, log } = loadContext('reset-friction-tickets')
    const { stdout, stderr } = this.context
    try {
      const target = parseTarget(this)
      const plan = await withTargetDb(config, log, target, (db) => resetFrictionTickets(db, target, this.confirm))
      if (!this.confirm) {
        stdout.write(`reset-friction-tickets would ${describe(plan, target.since.text, false)}\n`)
        stderr.write('svc reset-friction-tickets: nothing was changed: add --confirm to do it.\n')
        return 1
      }
      stdout.write(`reset-friction-tickets: ${describe(plan, target.since.text, true)}\n`)
      stdout.write(
        `Next: svc backfill-tickets --project ${target.projectId} --environment ${target.environmentId} --since ${target.since.text} --rate <jobs a minute>. ` +
          "No need to lower FRICTION_MATCH_MAX_CONCURRENT for it: a matching decision reads the known problems only once it holds the environment's lock, so concurrent jobs cannot open one problem twice.\n",
      )
      log.info('known problems reset', { project: target.projectId, environment: target.environmentId, since: target.since.text, ...plan })
      return 0
    } catch (error) {
      stderr.write(`svc reset-friction-tickets: ${(error as Error).message}\n`)
      return error instanceof CommandStop ? error.exitCode : 1
    }
  }
}

/** The plan as a sentence: what it would do, or (done) what it did. */
function describe(plan: ResetPlan, since: string, done: boolean): string {
  const [archive, fail, detach, remove] = done ? ['archived', 'failed', 'detached', 'deleted'] : ['archive', 'fail', 'detach', 'delete']
  return (
    `${archive} ${plan.tickets} known problem(s) and ${plan.issues} issue(s); ${fail} ${plan.jobs} pending or claimed friction job(s) and ${plan.investigations} queued or running investigation(s); ` +
    `${detach} ${plan.recordingLinks} recording link(s) from the archived issues; ${remove} ${plan.decisions} matching decision(s) of findings in the last ${since}.`
  )
}
