/**
 * A check's verdict: whether one further recording of a ticket's screens shows the ticket's
 * friction (confirmed), shows its control clicked without it (refuted), or says neither
 * (inconclusive). Pure, so its edges are tested without a database; the findings come from the
 * scan's detectors (stored), the clicks from the detectors' own observe pass.
 */
import { sameControl, screenOf, type ControlIdentity } from '../friction/control.js'
import { DEAD_WINDOW_MS, ERROR_WINDOW_MS } from '../friction/detectors.js'
import type { Observations } from '../friction/observe.js'
import { nearEnough } from '../match/rule.js'
import type { FindingKind } from '../store/entities.js'

export type Verdict = 'confirmed' | 'refuted' | 'inconclusive'
export const VERDICTS: readonly Verdict[] = ['confirmed', 'refuted', 'inconclusive']

/** What a verdict reads of the ticket: its kind, its control (its screen and the names it went by) and its subject. */
export interface CheckedTicket {
  kind: FindingKind
  screen: string
  controlNames: readonly string[]
  subject: string
}

/** A stored finding of the checked recording, with its distance to the ticket's vector when both have one of the same model and input. */
export interface RecordingFinding {
  kind: FindingKind
  page: string
  target: string
  screen: string
  names: readonly string[]
  subject: string
  distance: number | null
}

/** The ticket's control as control.ts compares it. */
function controlOf(ticket: CheckedTicket): ControlIdentity {
  return { screen: ticket.screen, names: ticket.controlNames }
}

/**
 * The same friction: a finding that would have joined the ticket (match/rule.ts): of its kind, of
 * its control (never another control's, however near its subject), and for an error after a click
 * with a message near the ticket's (or, without comparable vectors, the same words).
 */
export function showsFriction(ticket: CheckedTicket, finding: RecordingFinding): boolean {
  if (finding.kind !== ticket.kind || !sameControl(controlOf(ticket), finding)) return false
  return nearEnough(ticket.kind, finding.distance, finding.subject === ticket.subject)
}

/** How long after a click the detector of kind looks (ms): a click with less recorded after it is not judged. */
function windowOf(kind: FindingKind): number | undefined {
  if (kind === 'rage_click' || kind === 'dead_click') return DEAD_WINDOW_MS
  if (kind === 'error_after_click') return ERROR_WINDOW_MS
  // No detector finds form abandonment: nothing can be seen going right either.
  return undefined
}

/** Whether the recording clicked the ticket's control with enough recorded after it for the ticket's detector to judge. */
export function clickedTargetJudged(ticket: CheckedTicket, seen: Observations): boolean {
  const window = windowOf(ticket.kind)
  if (window === undefined) return false
  return seen.clicks.some((click) => sameControl(controlOf(ticket), { screen: screenOf(click.page), names: click.target.names }) && (seen.end ?? click.at) >= click.at + window)
}

/**
 * The verdict from a recording's findings, and (only asked for when they do not confirm) what it
 * showed. Refuted: the ticket's control was clicked, judged, and no friction of any kind was found
 * on it; friction of another kind on it (a dead click where the ticket is an error after click) is
 * inconclusive, as is a recording that never clicked it.
 */
export function verdictOf(ticket: CheckedTicket, findings: readonly RecordingFinding[], seen: Observations | undefined): Verdict {
  if (findings.some((finding) => showsFriction(ticket, finding))) return 'confirmed'
  if (!seen) return 'inconclusive'
  const otherFriction = findings.some((finding) => sameControl(controlOf(ticket), finding))
  return !otherFriction && clickedTargetJudged(ticket, seen) ? 'refuted' : 'inconclusive'
}
