/**
 * The check of a written digest (spec "What the service does" 5), a few minutes after it was
 * written and on nothing but the stored text and the frozen facts: every item present exactly
 * once (its [n] marker), every number it claims one of the item's own (its users, its pull
 * request's number, a number in its title), every link one of the item's links and its pull
 * request linked when it has one, no internal vocabulary (state names, reason codes), and no chat
 * markup outside inline code once its title is quoted as the mechanical line quotes it
 * (chat-markup.ts): a title like `*bold*` or `<!channel>` reaches the channel as text, never as
 * formatting. An item that fails is sent as its mechanical line for that day; the verdict says why.
 */
import { liveMarkup, quoteEventText } from './chat-markup.js'
import type { ItemFacts } from './compose.js'

export type CheckVerdict = { ok: true; text: string } | { ok: false; reason: string }

/** Longest written paragraph kept for one item. */
const MAX_SECTION = 700
const URL_PATTERN = /https?:\/\/[^\s<>()"']+/g
const NUMBER_PATTERN = /\d+(?:[.,]\d+)*/g
/** snake_case words: every reason code and the state names made of two words (needs_human, pr_draft). */
const SNAKE_CASE = /\b[A-Za-z0-9]+(?:_[A-Za-z0-9]+)+\b/g
/** One-word state names that never belong in a sentence to a team. */
const STATE_WORDS = /\b(insight|candidate|queued|archived|awaiting[ _]approval|needs[ _]human|pr[ _]draft|pr[ _]created)\b/gi

/** Splits a written text into sections by their [n] markers at the start of a line. */
export function sectionsOf(text: string): Map<number, string[]> {
  const sections = new Map<number, string[]>()
  const marker = /^[ \t]*(?:[-*•][ \t]*)?\[(\d{1,3})\][ \t]*/gm
  const found = [...text.matchAll(marker)]
  found.forEach((match, i) => {
    const position = Number(match[1])
    const end = i + 1 < found.length ? found[i + 1]!.index : text.length
    const body = text.slice(match.index + match[0].length, end).replace(/\s+/g, ' ').trim()
    sections.set(position, [...(sections.get(position) ?? []), body])
  })
  return sections
}

/** The numbers an item may claim. */
function allowedNumbers(item: ItemFacts): Set<string> {
  const allowed = new Set<string>([String(item.users)])
  const pr = /\/pull\/(\d+)/.exec(item.prUrl)
  if (pr) allowed.add(pr[1]!)
  for (const number of item.title.match(NUMBER_PATTERN) ?? []) allowed.add(number)
  return allowed
}

/** Checks one item's written section (undefined: none, or several). */
export function checkSection(item: ItemFacts, sections: readonly string[] | undefined): CheckVerdict {
  if (!sections || sections.length === 0) return { ok: false, reason: 'missing: the written text has no paragraph for it' }
  if (sections.length > 1) return { ok: false, reason: `repeated: the written text has ${sections.length} paragraphs for it` }
  const text = sections[0]!
  if (text.length === 0) return { ok: false, reason: 'missing: its paragraph is empty' }
  if (text.length > MAX_SECTION) return { ok: false, reason: `too long: ${text.length} characters` }
  const urls = text.match(URL_PATTERN) ?? []
  const links = new Set(item.links.map((link) => link.url))
  const stray = urls.map((url) => url.replace(/[.,;:!?]+$/, '')).find((url) => !links.has(url))
  if (stray !== undefined) return { ok: false, reason: 'link: it links to an address that is not one of its own' }
  if (item.prUrl && !urls.some((url) => url.replace(/[.,;:!?]+$/, '') === item.prUrl)) return { ok: false, reason: 'link: its pull request is not linked' }
  const prose = text.replace(URL_PATTERN, ' ')
  const allowed = allowedNumbers(item)
  const wrong = (prose.match(NUMBER_PATTERN) ?? []).find((number) => !allowed.has(number))
  if (wrong !== undefined) return { ok: false, reason: `number: it claims ${wrong}, which is not one of its facts` }
  // Words quoted from the item's own title (an error's identifier) are its facts, not our vocabulary.
  const title = item.title.toLowerCase()
  const internal = [...(prose.match(SNAKE_CASE) ?? []), ...(prose.match(STATE_WORDS) ?? [])].find((word) => !title.includes(word.toLowerCase()))
  if (internal !== undefined) return { ok: false, reason: 'vocabulary: it uses a state name or a reason code' }
  const paragraph = quoteEventText(text, item.title)
  const markup = liveMarkup(paragraph)
  if (markup !== undefined) return { ok: false, reason: `markup: it carries chat formatting outside inline code (${markup})` }
  return { ok: true, text: paragraph }
}

/** Checks every item of a written text; the verdicts in the items' order. */
export function checkWritten(text: string, items: readonly ItemFacts[]): CheckVerdict[] {
  const sections = sectionsOf(text)
  return items.map((item) => checkSection(item, sections.get(item.position)))
}
