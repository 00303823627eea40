/** The wait= and until= query parameters of the poll and state endpoints. */
import { AgentError } from './errors.js'

/** Spec "Limits": a poll waits at most 30 seconds per call. */
export const MAX_WAIT_SECONDS = 30

/** Parses wait= (whole seconds; above 30 means 30; absent means answer at once). */
export function parseWait(raw: string | null): number {
  if (raw === null || raw === '') return 0
  if (!/^\d{1,6}$/.test(raw)) throw new AgentError('invalid_request', { field: 'wait', message: `wait must be a whole number of seconds from 0 to ${MAX_WAIT_SECONDS}.` })
  return Math.min(Number(raw), MAX_WAIT_SECONDS)
}

/** Parses until= (only "event" exists). */
export function parseUntil(raw: string | null): 'event' | undefined {
  if (raw === null || raw === '') return undefined
  if (raw !== 'event') throw new AgentError('invalid_request', { field: 'until', message: 'until must be "event" (hold until has_events changes) or absent.' })
  return 'event'
}
