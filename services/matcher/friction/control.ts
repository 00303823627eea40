/**
 * Which control a finding is of (docs/known-problems.md, "Control identity"): its screen and the
 * names it goes by on it, so matching and confirmation can tell the same control from another
 * before any nearness is weighed. A control goes by up to two names: its hand-written id
 * (`button#pay`) and the words a person reads it by (`button "pay now"`). Two findings are of the
 * same control when they are on the same screen and share a name, so a control survives a release
 * that changes its text or its id, not one that changes both (nothing recorded would say it is the
 * same control then: it is taken for a new one). Everything here is recorded page text, folded and
 * compared, never read for meaning.
 */

/** Characters of a folded label kept. */
const LABEL_MAX = 80
/** How many names a known problem remembers (its first, then the most recent). */
export const CONTROL_NAMES_MAX = 20

/**
 * An id as a name, or '' when it is not one. An id with a digit is taken for one a framework
 * generated (React's `:r1:`, `ember123`, `mui-42`): those number elements in render order, so the
 * same id can name another control in another session or release.
 */
export function stableId(id: string): string {
  return /\p{Nd}/u.test(id) ? '' : id
}

/**
 * Words as a name compares them: compatibility-folded, lower case, every run of digits 0 (a price
 * or a count in a button's text changes, the button does not), anything but letters and digits one
 * space.
 */
export function foldLabel(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/\p{Nd}+/gu, '0')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
    .slice(0, LABEL_MAX)
}

/** The name an id gives a control of tag. */
export function idName(tag: string, id: string): string {
  return `${tag}#${id}`
}

/** The name a label gives a control of tag; with context, the id of the nearest ancestor that has one (a label its page shows twice). */
export function labelName(tag: string, label: string, context?: string): string {
  return context ? `${tag} "${label}" in #${context}` : `${tag} "${label}"`
}

/**
 * The names a control goes by, from what its page showed when it was clicked: its stable id, and its
 * label unless the page showed another element of its tag with the same label. A shared label then
 * names it only with its context (the nearest ancestor's stable id), and not at all when it has an
 * id of its own: two Edit buttons of one page are told apart by their ids, or by their sections.
 */
export function controlNames(control: { tag: string; id: string; label: string; labelShared: boolean; context: string | undefined }): string[] {
  const names = control.id ? [idName(control.tag, control.id)] : []
  if (!control.label) return names
  if (!control.labelShared) return [...names, labelName(control.tag, control.label)]
  if (control.id) return names
  return [labelName(control.tag, control.label, control.context)]
}

/**
 * A path segment that is a record's id rather than a screen's name: digits only, a UUID, or 16 or
 * more letters and digits with a digit among them (hex or base-62 ids). The SQL backfill of
 * migration 081 uses the same pattern (SCREEN_ID_SQL).
 */
const ID_SEGMENT = /\/(?:\d+|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|(?=[a-z]*\d)[a-z0-9]{16,})(?=\/|$)/gi

/**
 * The screen of a page: its path without the query, each id segment `:id`, without a trailing
 * slash. `/orders/1001?tab=items` and `/orders/1002` are one screen, `/orders/:id`; `/checkout`
 * and `/checkout/shipping` are two.
 */
export function screenOf(page: string): string {
  const path = page.split(/[?#]/, 1)[0]!.replace(ID_SEGMENT, '/:id')
  return path.length > 1 ? path.replace(/\/+$/, '') || '/' : path || '/'
}

/** What identifies a control to matching and confirmation. */
export interface ControlIdentity {
  screen: string
  names: readonly string[]
}

/** Whether a and b are one control: the same screen and a name in common. */
export function sameControl(a: ControlIdentity, b: ControlIdentity): boolean {
  return a.screen === b.screen && a.names.some((name) => b.names.includes(name))
}

/** names with more added, each once: the first kept, then the most recent, at most CONTROL_NAMES_MAX. */
export function withNames(names: readonly string[], more: readonly string[]): string[] {
  const next = [...names]
  for (const name of more) if (!next.includes(name)) next.push(name)
  return next.length <= CONTROL_NAMES_MAX ? next : [next[0]!, ...next.slice(next.length - CONTROL_NAMES_MAX + 1)]
}
