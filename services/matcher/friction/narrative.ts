/**
 * The mechanical narrative of a finding: one or two plain sentences saying what happened where,
 * built only from counts, times, the page and the target. Matching embeds and compares it (a model
 * may rewrite it later, narrative_by 'model'). The page, target and error message are the recorded
 * page's text, quoted as they are (already cleaned and capped), never read for meaning.
 */
import { cleanText } from '../../../shared/domain/untrusted-text.js'

export type FrictionKind = 'rage_click' | 'dead_click' | 'error_after_click'

/** What a narrative is told from. */
export interface NarrativeFacts {
  kind: FrictionKind
  page: string
  target: string
  /** Clicks the finding gathers, and the time from the first to the last (ms). */
  clicks: number
  spanMs: number
  /** Of those clicks, how many the page answered (changed, loaded, scrolled, took input) within the dead-click window. */
  answered: number
  /** error_after_click: the first error's message ('' when it had none) and how long after its click it came (ms). */
  message?: string
  errorDelayMs?: number
}

/** Characters of a page as a narrative quotes it (the finding keeps the whole of it). */
const PAGE_SHOWN = 120
/** Characters of a narrative at most. */
export const NARRATIVE_MAX = 600

/** The narrative of a finding. */
export function narrate(facts: NarrativeFacts): string {
  const where = `on ${facts.target} on ${cleanText(facts.page, PAGE_SHOWN) || '/'}`
  const over = `${facts.clicks} clicks in ${seconds(facts.spanMs)}`
  let text: string
  if (facts.kind === 'rage_click') {
    const answer = facts.answered === 0 ? 'nothing changed on the page' : `the page answered only ${facts.answered} of them`
    text = `Rage click: ${over} ${where}; ${answer}.`
  } else if (facts.kind === 'dead_click') {
    text = facts.clicks === 1 ? `Dead click ${where}: nothing changed on the page and no page loaded within 1 s.` : `Dead click: ${over} ${where}; after none of them did the page change or load within 1 s.`
  } else {
    const error = facts.message ? `the error "${facts.message}"` : 'an error without a message'
    const after = seconds(facts.errorDelayMs ?? 0)
    text = facts.clicks === 1 ? `Error after click ${where}: ${error} ${after} later.` : `Error after click: ${over} ${where}, each followed within 2 s by an error; the first, ${error}, ${after} after its click.`
  }
  return cleanText(text, NARRATIVE_MAX)
}

/** Characters of a subject at most. */
export const SUBJECT_MAX = 300

/**
 * What is specific to a finding, the text matching embeds and compares (docs/known-problems.md,
 * "Control identity"): the narrative without its template, whose shared words (clicks, seconds,
 * "nothing changed on the page") put every control of a screen near every other. For a rage or
 * dead click, its target on its screen; for an error after a click, the error's message, which is
 * what tells two problems of one control apart ('' when it had none).
 */
export function subjectOf(facts: Pick<NarrativeFacts, 'kind' | 'target' | 'message'> & { screen: string }): string {
  if (facts.kind === 'error_after_click') return cleanText(facts.message ?? '', SUBJECT_MAX)
  return cleanText(`${facts.target} on ${facts.screen}`, SUBJECT_MAX)
}

/** A duration as people read it: 1.8 s. */
function seconds(ms: number): string {
  return `${(Math.max(0, ms) / 1000).toFixed(1)} s`
}
