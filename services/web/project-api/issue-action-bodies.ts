/**
 * The bodies of the project API's triage actions (issue-action-routes.ts), read into what the
 * grouper's commands take. Every refusal is a catalogued 400 naming the field at fault, so a client
 * (often an agent) can correct the one thing and send again.
 */
import { unstorableField } from '../../../shared/http/request-text.js'
import { isUuid } from '../../../shared/domain/uuid.js'
import type { triageIssues } from '../../grouper/commands/triage.js'
import { ProjectApiError } from './errors.js'

/** What the grouper's triageIssues takes (triage/types.ts is its insides). */
type TriageChange = Parameters<typeof triageIssues>[3]

/** Issues one bulk request may name. */
export const BULK_MAX_ISSUES = 100
/** The longest reason issue_history keeps. */
const REASON_MAX = 1000
/** The largest count an ignore may wait for. */
const COUNT_MAX = 1_000_000_000

type Body = Record<string, unknown>

/** The body as an object: {} when empty; ProjectApiError invalid_json when it is not one JSON object. */
export function parseBody(text: string): Body {
  if (text.trim() === '') return {}
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new ProjectApiError('invalid_json')
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ProjectApiError('invalid_json')
  const unstorable = unstorableField(value)
  if (unstorable !== undefined) throw new ProjectApiError('invalid_json', { field: unstorable, message: `${unstorable || 'The body'} holds text that cannot be stored (\\u0000 or a lone surrogate). Remove it and send again.` })
  return value as Body
}

/** Refuses a field the action does not take (a typo would otherwise be ignored silently). */
export function onlyFields(body: Body, allowed: readonly string[]): void {
  const extra = Object.keys(body).find((key) => !allowed.includes(key))
  if (extra !== undefined) throw new ProjectApiError('unknown_field', { field: extra, message: `The body has a field this action does not take: ${extra.slice(0, 40)}. It takes ${allowed.join(', ')}; remove the others and send again.` })
}

/** The optional reason ('' when absent). */
export function readReason(body: Body): string {
  if (body.reason === undefined || body.reason === null) return ''
  if (typeof body.reason !== 'string' || body.reason.length > REASON_MAX) throw new ProjectApiError('invalid_reason', { field: 'reason' })
  return body.reason.trim()
}

/** A resolve: { mode: "now" | "next_release" }. */
export function readResolve(body: Body): TriageChange {
  if (body.mode !== 'now' && body.mode !== 'next_release') throw new ProjectApiError('invalid_mode', { field: 'mode' })
  return { action: 'resolve', mode: body.mode }
}

/** An ignore: for good (no condition), until a future time, until N more events or N more users (any one met ends it). */
export function readIgnore(body: Body, now = new Date()): TriageChange {
  const change: Extract<TriageChange, { action: 'ignore' }> = { action: 'ignore' }
  if (body.until !== undefined && body.until !== null) {
    const time = typeof body.until === 'string' ? Date.parse(body.until) : NaN
    if (!Number.isFinite(time) || time <= now.getTime()) throw new ProjectApiError('invalid_ignore', { field: 'until' })
    change.until = new Date(time)
  }
  for (const [field, key] of [['more_events', 'moreEvents'], ['more_users', 'moreUsers']] as const) {
    const value = body[field]
    if (value === undefined || value === null) continue
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > COUNT_MAX) throw new ProjectApiError('invalid_ignore', { field })
    change[key] = value
  }
  return change
}

/** A bulk change: { action, and the action's own fields }. */
export function readBulkChange(body: Body): TriageChange {
  if (body.action === 'resolve') return readResolve(body)
  if (body.action === 'ignore') return readIgnore(body)
  if (body.action === 'reopen') return { action: 'reopen' }
  throw new ProjectApiError('invalid_action', { field: 'action' })
}

/** The fields a bulk request may carry with its action. */
export const BULK_FIELDS: Readonly<Record<TriageChange['action'], readonly string[]>> = {
  resolve: ['issues', 'action', 'mode', 'reason'],
  ignore: ['issues', 'action', 'until', 'more_events', 'more_users', 'reason'],
  reopen: ['issues', 'action', 'reason'],
}

/** The bulk request's issue ids: 1 to BULK_MAX_ISSUES distinct UUIDs (lower case). */
export function readIssueIds(body: Body): string[] {
  const list = body.issues
  if (!Array.isArray(list) || list.length === 0 || list.length > BULK_MAX_ISSUES || !list.every((id) => typeof id === 'string' && isUuid(id))) {
    throw new ProjectApiError('invalid_issues', { field: 'issues' })
  }
  return [...new Set((list as string[]).map((id) => id.toLowerCase()))]
}

/** The merge target: { into: <issue id> }, another issue than issueId. */
export function readMergeTarget(body: Body, issueId: string): string {
  const into = body.into
  if (typeof into !== 'string' || !isUuid(into) || into.toLowerCase() === issueId.toLowerCase()) throw new ProjectApiError('invalid_merge', { field: 'into' })
  return into.toLowerCase()
}
