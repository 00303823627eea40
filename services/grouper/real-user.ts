/**
 * Which events count towards admission ("several distinct sessions with current timestamps", spec
 * Events 1): a real user's, by the user agent, whose own timestamp is not ahead of the receiving
 * clock beyond CLOCK_SKEW_MS. Automated agents are told by isbot's maintained list (headless
 * browsers, crawlers, monitoring and synthetic-check agents, HTTP libraries and command-line
 * clients), plus the few monitoring agents it misses. Only the decision is ours.
 */
import { createIsbotFromList, list } from 'isbot'
import { MINUTE } from '../../shared/time.js'

/** How far ahead of the receiving clock an event's own timestamp may be and still count. */
export const CLOCK_SKEW_MS = 5 * MINUTE

/** What an event says about its actor, as bits of issue_actors.seen_kinds (ahead: its timestamp is ahead of the clock, or unreadable). */
export const SEEN = { real: 1, automated: 2, ahead: 4 } as const

// isbot does not know these synthetic-monitoring agents (checked against isbot 5.2).
const isAutomated = createIsbotFromList([...list, 'checkly', 'synthetic'])

/** Decisions by user agent; agents repeat, and the list is a long regular expression. */
const decided = new Map<string, boolean>()
const MAX_DECIDED = 1000

/** True when userAgent is a headless browser, crawler, monitoring agent or library, or missing. */
export function isAutomatedAgent(userAgent: unknown): boolean {
  if (typeof userAgent !== 'string' || userAgent.trim() === '') return true
  let answer = decided.get(userAgent)
  if (answer === undefined) {
    answer = isAutomated(userAgent)
    if (decided.size >= MAX_DECIDED) decided.clear()
    decided.set(userAgent, answer)
  }
  return answer
}

/** How an event counts: its seen_kinds bits, and its own time when it is a real user's current one. */
export function admissionFacts(userAgent: unknown, timestamp: unknown, receivedAt: number): { seenKinds: number; realAt: Date | null } {
  if (isAutomatedAgent(userAgent)) return { seenKinds: SEEN.automated, realAt: null }
  const reported = typeof timestamp === 'string' ? Date.parse(timestamp) : NaN
  if (!Number.isFinite(reported) || reported > receivedAt + CLOCK_SKEW_MS) return { seenKinds: SEEN.ahead, realAt: null }
  return { seenKinds: SEEN.real, realAt: new Date(reported) }
}
