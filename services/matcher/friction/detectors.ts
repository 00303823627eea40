/**
 * The friction detectors (docs/known-problems.md, "Friction detectors"): pure functions over one
 * recording's rrweb events that find the moments a person met friction that threw nothing, or
 * that threw right after their click.
 *
 * - rage click: 3 or more clicks on one element, each under 1 s after the one before, unless the
 *   page answered every one of them (a quantity stepper clicked fast is being used, not raged at)
 *   or the element takes typed text (a triple click selects a word there);
 * - dead click: a click on a control (button, link, button-like input or role) after which, within
 *   1 s, the page neither changed, loaded, scrolled, took input nor played media, and no error came;
 * - error after click: an svc.error mark within 2 s of a click (the latest click before it).
 *
 * Each is deduplicated: the occurrences of one kind on one target and page make one finding while
 * each comes within 10 s of the one before (a burst), so five rage clicks are one finding, not five.
 */
import { screenOf, sameControl } from './control.js'
import { narrate, subjectOf, type FrictionKind } from './narrative.js'
import { byMoment, RecordingObserver, type Click, type Moment, type Observations } from './observe.js'

export type { FrictionKind } from './narrative.js'

/** Clicks closer than this (ms) continue a rage burst; this many make one. */
export const RAGE_GAP_MS = 1000
export const RAGE_MIN_CLICKS = 3
/** How long (ms) the page has to answer a click before it is dead. */
export const DEAD_WINDOW_MS = 1000
/**
 * How long (ms) a click may wait for the next page to load and still count as answered, when
 * nothing else was clicked meanwhile: a link on a slow network or a busy machine takes longer than
 * DEAD_WINDOW_MS to navigate, and was never dead.
 */
export const NAVIGATION_WINDOW_MS = 10_000
/** How long (ms) after a click an error counts as the click's. */
export const ERROR_WINDOW_MS = 2000
/** Occurrences of one kind on one target and page this close (ms) are one finding. */
export const BURST_GAP_MS = 10_000
/** Findings one recording yields at most (the earliest): a page built to trip detectors stays bounded. */
export const MAX_FINDINGS = 50

/** A moment of friction in one recording. */
export interface FrictionFinding {
  kind: FrictionKind
  /** Path and query of the page, as the recordings' pages keep it. */
  page: string
  /** The element, as `button#pay.primary "Pay now"`. */
  target: string
  /** The page's screen and the names the control went by (control.ts): what matching and confirmation tell controls apart by. */
  screen: string
  names: string[]
  /** What matching embeds (narrative.ts subjectOf). */
  subject: string
  /** The first click of the finding (ms since 1970): a replay opens here. */
  at: number
  narrative: string
  /** Clicks the finding gathers. */
  clicks: number
}

/** An occurrence before bursts are merged: the clicks, and what followed them. */
interface Occurrence {
  kind: FrictionKind
  clicks: Click[]
  answered: number
  error?: { message: string; delayMs: number }
}

/** The findings in a recording's events (chunks' events concatenated in seq order), earliest first. */
export function detectFriction(events: readonly unknown[]): FrictionFinding[] {
  const observer = new RecordingObserver()
  observer.add(events)
  return findingsOf(observer.finish())
}

/** The findings in what a recording showed, earliest first, at most MAX_FINDINGS. */
export function findingsOf(seen: Observations): FrictionFinding[] {
  const answered = new Set(seen.clicks.filter((click) => answeredWithin(seen.answers, click, DEAD_WINDOW_MS) || navigatedAfter(seen, click)))
  const errors = errorsOfClicks(seen)
  const rage = rageBursts(seen.clicks, answered)
  const raged = new Set(rage.flatMap((occurrence) => occurrence.clicks))
  const occurrences: Occurrence[] = [...rage]
  for (const click of seen.clicks) {
    const error = errors.get(click)
    if (error) occurrences.push({ kind: 'error_after_click', clicks: [click], answered: answered.has(click) ? 1 : 0, error })
    // A click with less than the window recorded after it is not judged: what followed was not recorded.
    else if (click.target.role === 'control' && !raged.has(click) && !answered.has(click) && (seen.end ?? click.at) >= click.at + DEAD_WINDOW_MS) {
      occurrences.push({ kind: 'dead_click', clicks: [click], answered: 0 })
    }
  }
  return mergeBursts(occurrences).slice(0, MAX_FINDINGS).map(toFinding)
}

/** Whether the page answered after click (later in the stream) and within windowMs of it. */
function answeredWithin(answers: readonly Moment[], click: Moment, windowMs: number): boolean {
  const next = answers[firstAfter(answers, click)]
  return next !== undefined && next.at <= click.at + windowMs
}

/** Whether the next page loaded within NAVIGATION_WINDOW_MS of click with no other click before it. */
function navigatedAfter(seen: Observations, click: Click): boolean {
  const navigations = seen.navigations ?? []
  const next = navigations[firstAfter(navigations, click)]
  if (next === undefined || next.at > click.at + NAVIGATION_WINDOW_MS) return false
  const following = seen.clicks[firstAfter(seen.clicks, click)]
  return following === undefined || byMoment(next, following) < 0
}

/** Each error goes to the latest click before it, when that click came at most ERROR_WINDOW_MS earlier; a click keeps its first. */
function errorsOfClicks(seen: Observations): Map<Click, { message: string; delayMs: number }> {
  const found = new Map<Click, { message: string; delayMs: number }>()
  for (const error of seen.errors) {
    const click = seen.clicks[firstAfter(seen.clicks, error) - 1]
    if (click && error.at - click.at <= ERROR_WINDOW_MS && !found.has(click)) found.set(click, { message: error.message, delayMs: error.at - click.at })
  }
  return found
}

/** Runs of RAGE_MIN_CLICKS or more on one node, each under RAGE_GAP_MS after the one before, that the page did not answer every time. */
function rageBursts(clicks: readonly Click[], answered: ReadonlySet<Click>): Occurrence[] {
  const byNode = new Map<string, Click[]>()
  for (const click of clicks) {
    if (click.target.role === 'text_entry') continue
    const key = `${click.snapshot}:${click.target.nodeId}`
    const list = byNode.get(key) ?? []
    list.push(click)
    byNode.set(key, list)
  }
  const bursts: Occurrence[] = []
  for (const list of byNode.values()) {
    let run: Click[] = []
    for (const click of [...list, undefined]) {
      const last = run.at(-1)
      if (click && last && click.at - last.at < RAGE_GAP_MS && click.page === last.page) {
        run.push(click)
        continue
      }
      const answeredRun = run.filter((one) => answered.has(one)).length
      if (run.length >= RAGE_MIN_CLICKS && answeredRun < run.length) bursts.push({ kind: 'rage_click', clicks: run, answered: answeredRun })
      run = click ? [click] : []
    }
  }
  return bursts
}

/**
 * One occurrence per (kind, control, page) per burst: a later one within BURST_GAP_MS of the
 * burst's last click joins it. The control is told by its names (control.ts), so two controls that
 * read alike (two Change buttons in two sections) are two findings; one without a name by its description.
 */
function mergeBursts(occurrences: Occurrence[]): Occurrence[] {
  occurrences.sort((a, b) => byMoment(a.clicks[0]!, b.clicks[0]!))
  const open = new Map<string, Occurrence[]>()
  const merged: Occurrence[] = []
  for (const occurrence of occurrences) {
    const first = occurrence.clicks[0]!
    const key = JSON.stringify([occurrence.kind, first.page])
    const bursts = open.get(key) ?? []
    const burst = bursts.find((one) => sameTarget(one.clicks[0]!, first))
    if (burst && first.at - burst.clicks.at(-1)!.at <= BURST_GAP_MS) {
      burst.clicks = [...burst.clicks, ...occurrence.clicks].sort(byMoment)
      burst.answered += occurrence.answered
      continue
    }
    const copy = { ...occurrence, clicks: [...occurrence.clicks] }
    // The newest burst of a target replaces its older one: only the newest can still be continued.
    open.set(key, [...bursts.filter((one) => one !== burst), copy])
    merged.push(copy)
  }
  return merged
}

/** Whether two clicks of one page landed on one control. */
function sameTarget(a: Click, b: Click): boolean {
  if (a.target.names.length === 0 || b.target.names.length === 0) return a.target.description === b.target.description
  return sameControl({ screen: '', names: a.target.names }, { screen: '', names: b.target.names })
}

function toFinding(occurrence: Occurrence): FrictionFinding {
  const first = occurrence.clicks[0]!
  const last = occurrence.clicks.at(-1)!
  const facts = {
    kind: occurrence.kind,
    page: first.page,
    target: first.target.description,
    clicks: occurrence.clicks.length,
    spanMs: last.at - first.at,
    answered: occurrence.answered,
    message: occurrence.error?.message,
    errorDelayMs: occurrence.error?.delayMs,
  }
  const screen = screenOf(first.page)
  return { kind: facts.kind, page: facts.page, target: facts.target, screen, names: first.target.names, subject: subjectOf({ ...facts, screen }), at: first.at, narrative: narrate(facts), clicks: facts.clicks }
}

/** The index of the first moment in sorted that comes after moment (binary search). */
function firstAfter(sorted: readonly Moment[], moment: Moment): number {
  let low = 0
  let high = sorted.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if (byMoment(sorted[middle]!, moment) <= 0) low = middle + 1
    else high = middle
  }
  return low
}
