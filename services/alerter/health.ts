/** What the alerter shows on the worker's /health: its cap (paused at 0), its chat plugin, and the deliveries on their way. */
import type { AlertSettings } from '../../shared/config/alerts.js'
import type { Queryable } from '../../shared/db/index.js'

/** The alerter's /health lines. */
export async function alertHealth(db: Queryable, slots: { running(): Promise<number> }, settings: AlertSettings, chat: boolean): Promise<string[]> {
  // Only the states the partial lease index covers: the health check must stay cheap however many deliveries ended.
  const { rows } = await db.query<{ state: string; n: number }>(`SELECT state, count(*)::int AS n FROM alert_deliveries WHERE state IN ('pending', 'sending') GROUP BY state`)
  const count = (state: string): number => rows.find((row) => row.state === state)?.n ?? 0
  const paused = settings.maxConcurrent === 0 ? ' (paused: ALERT_MAX_CONCURRENT=0)' : ''
  return [`alerts: posting=${await slots.running()} max_concurrent=${settings.maxConcurrent}${paused} chat=${chat ? 'plugin loaded' : 'none'} pending=${count('pending')} sending=${count('sending')}`]
}
