/** What the digester shows on the worker's /health: its cap (paused at 0), its writer, and its digests by state. */
import type { DigestSettings } from '../../shared/config/digest.js'
import type { Queryable } from '../../shared/db/index.js'

/** The digester's /health lines. */
export async function digestHealth(db: Queryable, slots: { running(): Promise<number> }, settings: DigestSettings, model: string | undefined, chat: boolean): Promise<string[]> {
  const { rows } = await db.query<{ state: string; n: number }>(`SELECT state, count(*)::int AS n FROM digests WHERE state IN ('queued', 'running', 'undelivered') GROUP BY state`)
  const count = (state: string): number => rows.find((row) => row.state === state)?.n ?? 0
  const paused = settings.maxConcurrent === 0 ? ' (paused: DIGEST_MAX_CONCURRENT=0)' : ''
  return [
    `digests: running=${await slots.running()} max_concurrent=${settings.maxConcurrent}${paused} writer=${model ?? 'mechanical (no model)'} chat=${chat ? 'plugin loaded' : 'none'}`,
    `digests: queued=${count('queued')} running=${count('running')} undelivered=${count('undelivered')}`,
  ]
}
