/**
 * What the issue list can be narrowed and ordered by (docs/issues.md, "Search and filters"), read
 * from a query string with one set of parameter names for the project API, the tool server and
 * the dashboard: q, triage, status, kind, release, environment, user, first_seen_from,
 * first_seen_to, last_seen_from, last_seen_to, assignee, sort, noise, cursor, limit.
 */
import { storableText } from '../../../shared/domain/untrusted-text.js'
import type { Triage } from '../triage/types.js'

/** The orders the list knows, each newest or largest first with the id breaking ties. */
export const ISSUE_SORTS = ['last_seen', 'first_seen', 'events', 'users'] as const
export type IssueSort = (typeof ISSUE_SORTS)[number]

export const TRIAGE_STATES: readonly Triage[] = ['open', 'resolved', 'ignored']

/** The pipeline's statuses (docs/issues.md). */
export const ISSUE_STATUSES = ['new', 'queued', 'analyzing', 'investigated', 'insight', 'needs_human', 'fixing', 'pr_draft', 'pr_created', 'archived'] as const

export const ISSUE_KINDS = ['error', 'friction'] as const

export const DEFAULT_ISSUE_LIMIT = 50
export const MAX_ISSUE_LIMIT = 200

/** Where a page ended: the sort it was read in, that row's sort value (text: microseconds since 1970 or a count) and id. */
export interface IssueCursor {
  sort: IssueSort
  value: string
  id: string
}

/** A filter of the issue list; an absent field narrows nothing (triage: only open issues). */
export interface IssueFilter {
  /** Text in the title ("Type: message") or the culprit, as typed (% and _ are literal). */
  query?: string
  /** Default ['open']. */
  triage?: Triage[]
  /** Pipeline statuses. */
  status?: string[]
  kind?: string
  /** Issues seen in this release. */
  release?: string
  /** Issues seen in the environment of this name. */
  environment?: string
  /** Issues a user of this id or e-mail ran into (the SDK's first identity). */
  user?: string
  firstSeenFrom?: Date
  firstSeenTo?: Date
  lastSeenFrom?: Date
  lastSeenTo?: Date
  /** A user's id (lowercase), 'none' (unassigned), or 'me' (the caller must resolve it: resolveAssigneeMe). */
  assignee?: string
  /** Default last_seen. */
  sort?: IssueSort
  withNoise?: boolean
  /** next_cursor of the previous page, as handed out. */
  cursor?: string
  /** Default 50, at most 200. */
  limit?: number
}

/** A parameter that could not be read, named, with what to send instead. */
export interface IssueFilterError {
  ok: false
  code: 'invalid_filter'
  field: string
  message: string
}

export type ParsedIssueFilter = { ok: true; filter: IssueFilter } | IssueFilterError

const MAX_TEXT = 200
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const ISO_TIME = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?)?$/
const KNOWN = new Set(['q', 'triage', 'status', 'kind', 'release', 'environment', 'user', 'first_seen_from', 'first_seen_to', 'last_seen_from', 'last_seen_to', 'assignee', 'sort', 'noise', 'cursor', 'limit'])

class Refusal extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message)
  }
}

/** The filter a query string asks for, or which parameter is wrong and what to send instead. Unknown parameters are ignored. */
export function parseIssueFilter(params: URLSearchParams): ParsedIssueFilter {
  try {
    const filter: IssueFilter = {}
    const text = (name: string): string | undefined => {
      const values = params.getAll(name)
      if (values.length > 1) throw new Refusal(name, `${name} is given ${values.length} times. Send it once.`)
      const value = values[0]?.trim()
      if (value === undefined || value === '') return undefined
      if (value.length > MAX_TEXT) throw new Refusal(name, `${name} is over ${MAX_TEXT} characters. Send a shorter one.`)
      return storableText(value)
    }
    for (const name of new Set(params.keys())) if (KNOWN.has(name)) text(name)

    filter.query = text('q')
    const triage = text('triage')
    if (triage !== undefined && triage !== 'all') filter.triage = list('triage', triage, TRIAGE_STATES, 'open, resolved, ignored, or all') as Triage[]
    if (triage === 'all') filter.triage = [...TRIAGE_STATES]
    const status = text('status')
    if (status !== undefined) filter.status = list('status', status, ISSUE_STATUSES, ISSUE_STATUSES.join(', '))
    filter.kind = one('kind', text('kind'), ISSUE_KINDS)
    filter.release = text('release')
    filter.environment = text('environment')
    filter.user = text('user')
    filter.firstSeenFrom = time('first_seen_from', text('first_seen_from'))
    filter.firstSeenTo = time('first_seen_to', text('first_seen_to'))
    filter.lastSeenFrom = time('last_seen_from', text('last_seen_from'))
    filter.lastSeenTo = time('last_seen_to', text('last_seen_to'))
    filter.sort = one('sort', text('sort'), ISSUE_SORTS)
    const assignee = text('assignee')?.toLowerCase()
    if (assignee !== undefined && assignee !== 'me' && assignee !== 'none' && !UUID.test(assignee)) throw new Refusal('assignee', 'assignee is a member\'s user id, me, or none (unassigned). Send one of those.')
    filter.assignee = assignee
    const noise = text('noise')
    if (noise !== undefined && noise !== '0' && noise !== '1') throw new Refusal('noise', 'noise must be 1 (noise issues listed too) or 0 (left out, the default).')
    filter.withNoise = noise === '1'
    const limit = text('limit')
    if (limit !== undefined) {
      if (!/^\d{1,4}$/.test(limit) || Number(limit) < 1 || Number(limit) > MAX_ISSUE_LIMIT) throw new Refusal('limit', `limit must be a whole number from 1 to ${MAX_ISSUE_LIMIT}. Send one in that range, or none for ${DEFAULT_ISSUE_LIMIT}.`)
      filter.limit = Number(limit)
    }
    filter.cursor = text('cursor')
    if (filter.cursor !== undefined) {
      const cursor = decodeIssueCursor(filter.cursor)
      if (!cursor) throw new Refusal('cursor', 'cursor is not one this list handed out. Pass next_cursor of the previous page unchanged, or none for the first page.')
      if (cursor.sort !== (filter.sort ?? 'last_seen')) throw new Refusal('cursor', `cursor continues a list sorted by ${cursor.sort}. Send the same sort as the first page, or no cursor to start over.`)
    }
    ordered('first_seen', filter.firstSeenFrom, filter.firstSeenTo)
    ordered('last_seen', filter.lastSeenFrom, filter.lastSeenTo)
    for (const key of Object.keys(filter) as Array<keyof IssueFilter>) if (filter[key] === undefined) delete filter[key]
    return { ok: true, filter }
  } catch (error) {
    if (error instanceof Refusal) return { ok: false, code: 'invalid_filter', field: error.field, message: error.message }
    throw error
  }
}

/** The filter with assignee=me made the user's id; undefined when it asks for me and there is no user (an api key). */
export function resolveAssigneeMe(filter: IssueFilter, userId: string | null): IssueFilter | undefined {
  if (filter.assignee !== 'me') return filter
  return userId ? { ...filter, assignee: userId } : undefined
}

/** The values of a comma list, each one of allowed, without repeats. */
function list<T extends string>(name: string, value: string, allowed: readonly T[], says: string): T[] {
  const values = [...new Set(value.split(',').map((part) => part.trim()))]
  for (const part of values) if (!(allowed as readonly string[]).includes(part)) throw new Refusal(name, `${name} ${part === '' ? 'has an empty value' : `"${part.slice(0, 40)}" is not known`}. Send one or more of ${says}, separated by commas.`)
  return values as T[]
}

/** One value of allowed, or undefined when none was sent. */
function one<T extends string>(name: string, value: string | undefined, allowed: readonly T[]): T | undefined {
  if (value === undefined || (allowed as readonly string[]).includes(value)) return value as T | undefined
  throw new Refusal(name, `${name} takes one value of ${allowed.join(', ')}; "${value.slice(0, 40)}" is not one. Send one of them.`)
}

/** A range whose start comes first. */
function ordered(name: string, from: Date | undefined, to: Date | undefined): void {
  if (from && to && from > to) throw new Refusal(`${name}_from`, `${name}_from is after ${name}_to. Send a range whose start comes first.`)
}

/** An ISO 8601 date or time; a date alone is midnight UTC. */
function time(name: string, value: string | undefined): Date | undefined {
  if (value === undefined) return undefined
  // A time without a zone is UTC (JavaScript would read it as the server's local time).
  const iso = value.replace(' ', 'T')
  const at = ISO_TIME.test(value) ? Date.parse(/T.*(Z|[+-]\d{2}:?\d{2})$/.test(iso) || !iso.includes('T') ? iso : `${iso}Z`) : NaN
  if (!Number.isFinite(at)) throw new Refusal(name, `${name} is not a date. Send ISO 8601, for example 2026-01-31 or 2026-01-31T09:00:00Z.`)
  return new Date(at)
}

/** The opaque cursor of a position: base64url of "sort|value|id". */
export function encodeIssueCursor(cursor: IssueCursor): string {
  return Buffer.from(`${cursor.sort}|${cursor.value}|${cursor.id}`).toString('base64url')
}

/** The position a cursor names, or undefined when it is not one encodeIssueCursor made. */
export function decodeIssueCursor(text: string): IssueCursor | undefined {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(text)) return undefined
  const [sort, value, id, ...rest] = Buffer.from(text, 'base64url').toString('utf8').split('|')
  if (rest.length > 0 || !(ISSUE_SORTS as readonly string[]).includes(sort ?? '') || !/^-?\d{1,19}$/.test(value ?? '') || !UUID.test(id ?? '')) return undefined
  return { sort: sort as IssueSort, value: value!, id: id! }
}
