/**
 * Friction narratives as the matcher's scan writes them (docs/known-problems.md, "Narrative"):
 * rage clicks, dead clicks and errors after a click on the screens of a shop, each problem seen by
 * many users with their own counts, timings and ids. Deterministic: the same list every run.
 * For the bench:match parts (embeddings, and the matching decisions' sample).
 */

import { screenOf } from '../../services/matcher/friction/control.js'
import { subjectOf } from '../../services/matcher/friction/narrative.js'

/** One narrative and the problem it is an instance of (what a perfect matcher would group by). */
export interface Narrative {
  readonly problem: string
  readonly text: string
  /** What matching embeds of it (narrative.ts subjectOf), and for a rage or dead click its control (target and screen). */
  readonly subject: string
  readonly control: string | undefined
}

const PAGES = ['/checkout', '/checkout/shipping', '/cart', '/products/{id}', '/account/orders/{id}', '/settings/profile', '/search?q={word}', '/blog/{slug}', '/signup', '/help/returns']
const TARGETS = [
  { label: 'Pay now', selector: 'button#pay.primary' },
  { label: 'Apply coupon', selector: 'a.coupon-link' },
  { label: 'Add to cart', selector: 'button.add-to-cart.btn' },
  { label: 'Next', selector: 'button.carousel-next' },
  { label: 'Save profile', selector: 'button#save' },
  { label: 'Track parcel', selector: 'a.track' },
  { label: 'Load more', selector: 'button.load-more' },
  { label: 'Continue', selector: 'button.btn.btn-lg' },
]
const ERRORS = [
  "TypeError: Cannot read properties of undefined (reading 'id')",
  'TypeError: items.map is not a function',
  'Error: Request failed with status code 500',
  'ReferenceError: paypal is not defined',
  'NetworkError when attempting to fetch resource.',
]
const WORDS = ['shoes', 'red dress', 'gift card', 'usb-c cable', 'winter jacket']
const SLUGS = ['how-to-return-an-order', 'summer-sale', 'size-guide']

const KINDS = ['rage_click', 'dead_click', 'error_after_click'] as const

interface Problem {
  readonly kind: (typeof KINDS)[number]
  readonly page: string
  readonly target: (typeof TARGETS)[number]
  readonly error: string
}

/** A small deterministic generator (mulberry32), so runs compare. */
function random(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** count narratives of about count / 25 distinct problems. */
export function frictionNarratives(count: number, seed = 22): Narrative[] {
  const next = random(seed)
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1))
  // Distinct problems: two draws that would read alike (only an error after a click names its error) are one.
  const problems: Problem[] = []
  const seen = new Set<string>()
  while (problems.length < Math.max(1, Math.round(count / 25))) {
    const problem: Problem = { kind: pick(KINDS), page: pick(PAGES), target: pick(TARGETS), error: pick(ERRORS) }
    const key = [problem.kind, problem.page, problem.target.label, problem.kind === 'error_after_click' ? problem.error : ''].join('|')
    if (seen.has(key)) continue
    seen.add(key)
    problems.push(problem)
  }
  return Array.from({ length: count }, () => {
    const index = Math.floor(next() * problems.length)
    const problem = problems[index]!
    const page = problem.page.replace('{id}', String(int(1, 99_999))).replace('{word}', encodeURIComponent(pick(WORDS))).replace('{slug}', pick(SLUGS))
    const { label, selector } = problem.target
    const target = `${selector} "${label}"`
    const text = {
      rage_click: `Rage click: ${int(3, 15)} clicks in ${(int(5, 40) / 10).toFixed(1)} s on ${target} on ${page}; nothing changed on the page.`,
      dead_click: `Dead click on ${target} on ${page}: nothing changed on the page and no page loaded within 1 s.`,
      error_after_click: `Error after click on ${target} on ${page}: the error "${problem.error}" ${(int(1, 19) / 10).toFixed(1)} s later.`,
    }[problem.kind]
    const screen = screenOf(page)
    const subject = subjectOf({ kind: problem.kind, target, screen, message: problem.error })
    return { problem: `p${index}`, text, subject, control: problem.kind === 'error_after_click' ? undefined : `${target} on ${screen}` }
  })
}
