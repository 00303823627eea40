/**
 * A check's verdict: whether one further recording of a ticket's screens shows the ticket's
 * friction (confirmed), shows its target clicked without it (refuted), or says neither
 * (inconclusive). Pure, so its edges are tested without a database; the findings come from the
 * scan's detectors (stored), the clicks from the detectors' own observe pass.
 */
import { DEAD_WINDOW_MS, ERROR_WINDOW_MS } from '../friction/detectors.js'
import type { Observations } from '../friction/observe.js'
import { MAX_JOIN_DISTANCE } from '../match/rule.js'
import type { FindingKind } from '../store/entities.js'

export type Verdict = 'confirmed' | 'refuted' | 'inconclusive'
export const VERDICTS: readonly Verdict[] = ['confirmed', 'refuted', 'inconclusive']

/** What a verdict reads of the ticket. */
export interface CheckedTicket {
  kind: FindingKind
  target: string
  /** The screens its findings were seen on (tickets.pages). */
  pages: readonly string[]
}

/** A stored finding of the checked recording, with its distance to the ticket's vector when both have one of the same model. */
export interface RecordingFinding {
  kind: FindingKind
  page: string
  target: string
  distance: number | null
}

/**
 * The same friction: a finding of the ticket's kind on its target on one of its screens, or of its
 * kind whose narrative lies within matching's join distance of the ticket's (the finding would
 * have joined it).
 */
export function showsFriction(ticket: CheckedTicket, finding: RecordingFinding): boolean {
  if (finding.kind !== ticket.kind) return false
  if (finding.target === ticket.target && ticket.pages.includes(finding.page)) return true
  return finding.distance !== null && finding.distance <= MAX_JOIN_DISTANCE
}

/** How long after a click the detector of kind looks (ms): a click with less recorded after it is not judged. */
function windowOf(kind: FindingKind): number | undefined {
  if (kind === 'rage_click' || kind === 'dead_click') return DEAD_WINDOW_MS
  if (kind === 'error_after_click') return ERROR_WINDOW_MS
  // No detector finds form abandonment: nothing can be seen going right either.
  return undefined
}

/** Whether the recording clicked the ticket's target on one of its screens with enough recorded after it for the ticket's detector to judge. */
export function clickedTargetJudged(ticket: CheckedTicket, seen: Observations): boolean {
  const window = windowOf(ticket.kind)
  if (window === undefined) return false
  return seen.clicks.some((click) => click.target.description === ticket.target && ticket.pages.includes(click.page) && (seen.end ?? click.at) >= click.at + window)
}

/**
 * The verdict from a recording's findings, and (only asked for when they do not confirm) what it
 * showed. Refuted: the target was clicked on the ticket's screen, judged, and no friction of any
 * kind was found there; friction of another kind on the target (a dead click where the ticket is
 * an error after click) is inconclusive, as is a recording that never clicked the target.
 */
export function verdictOf(ticket: CheckedTicket, findings: readonly RecordingFinding[], seen: Observations | undefined): Verdict {
  if (findings.some((finding) => showsFriction(ticket, finding))) return 'confirmed'
  if (!seen) return 'inconclusive'
  const otherFriction = findings.some((finding) => finding.target === ticket.target && ticket.pages.includes(finding.page))
  return !otherFriction && clickedTargetJudged(ticket, seen) ? 'refuted' : 'inconclusive'
}
