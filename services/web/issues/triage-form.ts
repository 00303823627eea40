/**
 * The triage forms' fields (issue page and the list's bulk bar) read into what the grouper's
 * commands take: the button pressed, the ignore choice of the small select, the reason, the issue
 * to merge into, and the person acting. A field the forms never send is refused as a 400 page.
 */
import { isUuid } from '../../../shared/domain/uuid.js'
import type { triageIssues } from '../../grouper/commands/triage.js'
import { PageError } from '../http/respond.js'
import type { Viewer } from '../http/viewer.js'

/** What the grouper's triageIssues takes (triage/types.ts is its insides). */
export type TriageChange = Parameters<typeof triageIssues>[3]
export type TriageActor = Parameters<typeof triageIssues>[4]

/** The buttons that change triage, by their value. */
export const TRIAGE_BUTTONS = ['resolve_now', 'resolve_next_release', 'ignore', 'reopen'] as const
export type TriageButton = (typeof TRIAGE_BUTTONS)[number]

const HOUR = 60 * 60 * 1000

/** The ignore select's choices: its value, its words, and the change it makes. */
export const IGNORE_CHOICES: ReadonlyArray<{ value: string; label: string; change: (now: Date) => Extract<TriageChange, { action: 'ignore' }> }> = [
  { value: 'forever', label: 'for good', change: () => ({ action: 'ignore' }) },
  { value: '1h', label: 'for 1 hour', change: (now) => ({ action: 'ignore', until: new Date(now.getTime() + HOUR) }) },
  { value: '24h', label: 'for 24 hours', change: (now) => ({ action: 'ignore', until: new Date(now.getTime() + 24 * HOUR) }) },
  { value: '7d', label: 'for 7 days', change: (now) => ({ action: 'ignore', until: new Date(now.getTime() + 7 * 24 * HOUR) }) },
  { value: 'events_10', label: 'until 10 more events', change: () => ({ action: 'ignore', moreEvents: 10 }) },
  { value: 'events_100', label: 'until 100 more events', change: () => ({ action: 'ignore', moreEvents: 100 }) },
  { value: 'users_10', label: 'until 10 more users', change: () => ({ action: 'ignore', moreUsers: 10 }) },
  { value: 'users_100', label: 'until 100 more users', change: () => ({ action: 'ignore', moreUsers: 100 }) },
]

/** The longest reason issue_history keeps. */
const REASON_MAX = 1000

/** The change the pressed button (the form's action field) asks for. */
export function readTriageChange(form: URLSearchParams, now = new Date()): TriageChange {
  const button = form.get('action') ?? ''
  if (button === 'resolve_now') return { action: 'resolve', mode: 'now' }
  if (button === 'resolve_next_release') return { action: 'resolve', mode: 'next_release' }
  if (button === 'reopen') return { action: 'reopen' }
  if (button === 'ignore') {
    const choice = IGNORE_CHOICES.find((c) => c.value === (form.get('ignore') ?? 'forever'))
    if (!choice) throw new PageError(400, 'Form not understood', 'That ignore choice is not one the page offers. Go back, reload the page and pick one from the list.')
    return choice.change(now)
  }
  throw new PageError(400, 'Form not understood', 'That button is not one the page offers. Go back, reload the page and press one of its buttons.')
}

/** The optional reason, trimmed ('' when empty). */
export function readReason(form: URLSearchParams): string {
  const reason = (form.get('reason') ?? '').trim()
  if (reason.length > REASON_MAX) throw new PageError(400, 'Reason too long', `A reason is at most ${REASON_MAX} characters. Go back and shorten it.`)
  return reason
}

/**
 * The issue an "into" field names: its id, or the address of its page in this project. An address
 * of another project's issue is refused here; an id of one, by the grouper's merge.
 */
export function readMergeTarget(form: URLSearchParams, projectId: string): string {
  const text = (form.get('into') ?? '').trim()
  if (isUuid(text)) return text.toLowerCase()
  let path = ''
  try {
    path = new URL(text, 'http://dashboard.invalid').pathname
  } catch {
    // not an address either: refused below
  }
  const match = /^\/projects\/([^/]+)\/issues\/([^/]+)\/?$/.exec(path)
  if (!match || !isUuid(match[2]!)) throw new PageError(400, 'Not merged', 'Enter the id of the issue to merge into, or the address of its page (copy it from the address bar).')
  if (match[1]!.toLowerCase() !== projectId.toLowerCase()) throw new PageError(409, 'Not merged', 'That address is an issue of another project. Issues merge only within one project: pick one of this project.')
  return match[2]!.toLowerCase()
}

/** The issue ids a bulk form selected (its issue checkboxes), in the order of the list. */
export function readSelectedIds(form: URLSearchParams): string[] {
  const ids = [...new Set(form.getAll('issue').map((id) => id.trim().toLowerCase()))]
  if (ids.length === 0) throw new PageError(400, 'Nothing selected', 'Tick the issues to change first, then press the button.')
  if (ids.length > 200 || !ids.every(isUuid)) throw new PageError(400, 'Form not understood', 'The selection is not one the list offers. Go back, reload the list and select the issues again.')
  return ids
}

/** The signed-in person as the history names them: their user id, and their e-mail (or another name when they have none). */
export function personActor(viewer: Viewer): TriageActor {
  const user = viewer.session!.user
  return { kind: 'person', id: user.id, label: user.email ?? user.codehostLogin ?? (user.displayName || 'a person') }
}
