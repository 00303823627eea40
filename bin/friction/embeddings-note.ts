/**
 * What svc backfill-tickets says about embeddings. The command reads its own environment, which
 * may not be the workers' (a host checkout, a one-off container): it says which plugin that
 * environment picks and what a worker configured alike does with the jobs, then what the database
 * says the workers last did in the environment, and warns when the two disagree or when a worker
 * configured alike would fail the jobs.
 */
import type { EmbeddingsConfig } from '../../shared/config/index.js'
import type { Db } from '../../shared/db/index.js'
import { printable, type Target } from './target.js'

/** What the workers last did in an environment, as their writes record it. */
export interface WorkerEvidence {
  /** The latest decision on a finding with a narrative: when, whether by embeddings, and its vector's model if recorded. */
  decision: { at: Date; embeddings: boolean; model: string | null } | undefined
  /** When a match job of the environment last failed for want of embeddings (embeddings_missing). */
  missingAt: Date | undefined
}

/** The model prefix each built-in plugin stores beside its vectors (friction_findings.embedding_model). */
const MODEL_PREFIX: Readonly<Record<string, string>> = { 'embeddings-local': 'local:', 'embeddings-openai': 'openai:' }

/** Reads the environment's latest matching decision and latest embeddings_missing failure. */
export async function readWorkerEvidence(db: Db, target: Target): Promise<WorkerEvidence> {
  const { rows } = await db.query<{ decided_at: Date | null; decided_by: string | null; model: string | null; missing_at: Date | null }>(
    `SELECT d.decided_at, d.decided_by, f.embedding_model AS model,
            (SELECT max(j.updated_at) FROM friction_jobs j
              WHERE j.project_id = $1 AND j.environment_id = $2 AND j.kind = 'match' AND j.state = 'failed' AND j.error LIKE 'embeddings\\_missing:%') AS missing_at
       FROM (SELECT 1) AS one
       LEFT JOIN LATERAL (SELECT decided_at, decided_by, finding_id FROM matching_decisions
                           WHERE project_id = $1 AND environment_id = $2 AND decision <> 'not_a_problem'
                           ORDER BY decided_at DESC LIMIT 1) d ON true
       LEFT JOIN friction_findings f ON f.id = d.finding_id`,
    [target.projectId, target.environmentId],
  )
  const row = rows[0]!
  return {
    decision: row.decided_at ? { at: row.decided_at, embeddings: row.decided_by !== 'no_embeddings', model: row.model } : undefined,
    missingAt: row.missing_at ?? undefined,
  }
}

/** The note: what workers configured like this command do, what they last did, and whether that calls for a warning. */
export function embeddingsNote(plugin: EmbeddingsConfig['plugin'], allowMissing: boolean, evidence: WorkerEvidence): { warning: boolean; text: string } {
  const parts = [configured(plugin, allowMissing), "This command reads its own environment, not the workers'."]
  const { decision, missingAt } = evidence
  const missingLast = missingAt !== undefined && (!decision || missingAt > decision.at)
  if (missingLast) parts.push(`A match job of this environment failed for want of embeddings at ${missingAt.toISOString()}: a worker there runs with SVC_EMBEDDINGS_PLUGIN=none.`)
  else if (!decision) parts.push('No finding of this environment has been matched yet, so what its workers use is not known.')
  else if (!decision.embeddings) parts.push(`The workers' latest decision in this environment (${decision.at.toISOString()}) was made without embeddings.`)
  else parts.push(`The workers' latest decision in this environment (${decision.at.toISOString()}) used vectors${decision.model ? ` of ${printable(decision.model)}` : ''}.`)
  const differs = plugin !== undefined && (missingLast || (decision !== undefined && !sameFamily(plugin.name, decision)))
  if (differs) parts.push('So the workers are configured otherwise than this environment: what they do with these jobs follows their own configuration.')
  const failsJobs = (plugin === undefined || missingLast) && !allowMissing
  return { warning: differs || failsJobs, text: parts.join(' ') }
}

function configured(plugin: EmbeddingsConfig['plugin'], allowMissing: boolean): string {
  if (plugin === undefined) {
    return `Embeddings are off where this command runs (SVC_EMBEDDINGS_PLUGIN=none): a worker configured so fails each match job with embeddings_missing${allowMissing ? '; with --allow-missing-embeddings it runs them anyway, every problem its own known problem.' : ', unless the backfill is run with --allow-missing-embeddings (then every problem becomes its own known problem).'}`
  }
  const allowed = allowMissing ? ' --allow-missing-embeddings changes nothing on such a worker; it matters only on one with SVC_EMBEDDINGS_PLUGIN=none.' : ''
  if (plugin.name === 'embeddings-local') {
    return `Where this command runs, embeddings come from embeddings-local (the default without EMBEDDINGS_API_KEY): a worker configured so computes each finding's vector itself, with no key and nothing to download, and no job fails for want of a key.${allowed}`
  }
  if (plugin.name === 'embeddings-openai') {
    return `Where this command runs, embeddings come from embeddings-openai (EMBEDDINGS_API_KEY is set): a worker configured so asks the endpoint for each finding's vector, and a job whose endpoint refuses or cannot be reached fails, after its retries, with embeddings_unavailable.${allowed}`
  }
  return `Where this command runs, embeddings come from the plugin ${printable(plugin.name)}: a worker configured so matches by its vectors.${allowed}`
}

/** Whether a decision's vectors can come from the plugin name; an unrecorded model, or an unknown plugin's, is taken as its own. */
function sameFamily(name: string, decision: { embeddings: boolean; model: string | null }): boolean {
  if (!decision.embeddings) return false
  const prefix = MODEL_PREFIX[name]
  return prefix === undefined || decision.model === null || decision.model.startsWith(prefix)
}
