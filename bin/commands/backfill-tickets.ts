/** svc backfill-tickets: schedule friction jobs for an environment's past recordings at a rate, and exit. */
import { Command, Option } from 'clipanion'
import { scheduleBackfill, type BackfillCounts } from '../friction/backfill.js'
import { embeddingsNote, readWorkerEvidence } from '../friction/embeddings-note.js'
import { progressOn } from '../friction/progress.js'
import { CommandStop, parseRate, parseTarget, withTargetDb } from '../friction/target.js'
import { loadContext } from '../context.js'

export class BackfillTicketsCommand extends Command {
  static override paths = [['backfill-tickets']]
  static override usage = Command.Usage({
    description:
      "Schedule friction jobs for the closed recordings of one environment inside the lookback, --rate jobs a minute, and exit; running workers scan them and match their findings into known problems. Reruns skip recordings and findings with a job pending or claimed, findings already decided (not_a_problem included) and recordings scanned with no finding to match, each counted apart; a recording whose findings are partly decided gets match jobs for the rest. Workers match with the embeddings plugin they are configured with (embeddings-local by default, no key needed); a worker with SVC_EMBEDDINGS_PLUGIN=none fails each match job unless --allow-missing-embeddings (then every problem becomes its own known problem). The command says which plugin its own environment picks and what the workers last used in the environment. Needs DATABASE_URL when run from a host checkout (docs/upgrade-078.md). Environment UUIDs: svc environments --project <uuid>.",
    examples: [
      ['The last day first', 'svc backfill-tickets --project <project uuid> --environment <environment uuid> --since 1d --rate 60'],
      ['Then the full lookback', 'svc backfill-tickets --project <project uuid> --environment <environment uuid> --since 14d --rate 60'],
    ],
  })

  project = Option.String('--project', { description: 'Project UUID' })
  environment = Option.String('--environment', { description: 'Environment UUID' })
  since = Option.String('--since', { description: 'How far back: hours or days, e.g. 1d or 14d' })
  rate = Option.String('--rate', { description: 'Jobs started per minute, e.g. 60' })
  allowMissingEmbeddings = Option.Boolean('--allow-missing-embeddings', false, { description: 'Let a worker without embeddings (SVC_EMBEDDINGS_PLUGIN=none) run the jobs (every problem becomes a new known problem)' })

  async execute(): Promise<number> {
    const { config, log } = loadContext('backfill-tickets')
    const { stdout, stderr } = this.context
    try {
      const target = parseTarget(this)
      const ratePerMinute = parseRate(this.rate)
      const counts = await withTargetDb(config, log, target, async (db) => {
        const note = embeddingsNote(config.embeddings.plugin, this.allowMissingEmbeddings, await readWorkerEvidence(db, target))
        if (note.warning) stderr.write(`svc backfill-tickets: warning: ${note.text}\n`)
        else stdout.write(`embeddings: ${note.text}\n`)
        const progress = progressOn(stdout)
        try {
          return await scheduleBackfill(db, { ...target, ratePerMinute, allowMissingEmbeddings: this.allowMissingEmbeddings }, (now) => progress.update(progressLine(now)))
        } finally {
          progress.done()
        }
      })
      stdout.write(`${summary(counts, target.since.text, ratePerMinute)}\n`)
      log.info('backfill scheduled', { project: target.projectId, environment: target.environmentId, since: target.since.text, ...counts })
      return 0
    } catch (error) {
      stderr.write(`svc backfill-tickets: ${(error as Error).message}\n`)
      return error instanceof CommandStop ? error.exitCode : 1
    }
  }
}

function progressLine(counts: BackfillCounts): string {
  const skipped = counts.skippedActive + counts.skippedDecided + counts.skippedNoFindings
  return `examined ${counts.examined}/${counts.recordings} recording(s): ${counts.scanJobs + counts.matchJobs} job(s) scheduled, ${skipped} recording(s) skipped`
}

function summary(counts: BackfillCounts, since: string, rate: number): string {
  const scheduled = counts.scanJobs + counts.matchJobs
  const when =
    counts.firstAt && counts.lastAt
      ? ` at ${rate}/min, from ${counts.firstAt.toISOString()} to ${counts.lastAt.toISOString()}`
      : ''
  return (
    `backfill-tickets: ${counts.recordings} closed recording(s) in the last ${since}: scheduled ${scheduled} job(s) (${counts.scanJobs} scan, ${counts.matchJobs} match)${when}; ` +
    `skipped ${counts.skippedActive} with a job already pending or claimed, ${counts.skippedDecided} already decided and ${counts.skippedNoFindings} scanned with no finding to match.`
  )
}
