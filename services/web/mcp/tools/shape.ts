/**
 * What several tools share: an issue as answers show it, the issue an id names (of the key's
 * project only), and the opaque cursors of paged lists.
 */
import { getIssueDetail, type IssueDetail } from '../../../grouper/read/issues.js'
import type { IssueRow } from '../../../grouper/read/issue-list.js'
import { issueUrl, ToolError, type ToolContext } from '../tool.js'

/** An issue's fields; title, culprit and reason text are made from recorded text: untrusted. */
export function issueSummary(ctx: ToolContext, issue: IssueRow & { created_at: Date; reason_code?: string; reason_message?: string }): Record<string, unknown> {
  return {
    id: issue.id,
    url: issueUrl(ctx, issue.id),
    kind: issue.kind,
    status: issue.status,
    noise: issue.noise,
    reason_code: issue.reason_code ?? '',
    first_seen: issue.first_seen.toISOString(),
    last_seen: issue.last_seen.toISOString(),
    created_at: issue.created_at.toISOString(),
    // bigint in PostgreSQL, read as text: a count past 2^53 is not a concern for one issue.
    event_count: Number(issue.event_count),
    user_count: issue.user_count,
    session_count: issue.session_count,
    untrusted: { title: issue.title, culprit: issue.culprit, ...(issue.reason_message ? { reason_message: issue.reason_message } : {}) },
  }
}

/** The issue of the key's project with this id; another project's issue is "not found" like a missing one. */
export async function findIssue(ctx: ToolContext, issueId: string): Promise<IssueDetail> {
  const issue = await getIssueDetail(ctx.db, ctx.projectId, issueId)
  if (!issue) throw new ToolError('issue_not_found', 'This project has no issue with this id. Take ids from list_issues; an issue belongs to exactly one project.')
  return issue
}

/** A cursor: where the next page starts, in the list's own order (a time in microseconds and an id). */
export function encodeCursor(micros: string, id: string): string {
  return Buffer.from(`${micros}|${id}`).toString('base64url')
}

/** The position a cursor names; ToolError invalid_cursor when it is not one this server handed out. */
export function decodeCursor(cursor: unknown): { micros: string; id: string } | undefined {
  if (cursor === undefined) return undefined
  const [at, id, ...rest] = Buffer.from(String(cursor), 'base64url').toString('utf8').split('|')
  if (rest.length > 0 || !/^-?\d{1,19}$/.test(at ?? '') || !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(id ?? '')) {
    throw new ToolError('invalid_cursor', 'The cursor is not one this server handed out. Pass next_cursor from the previous page unchanged, or omit it for the first page.')
  }
  return { micros: at!, id: id! }
}

/** Optional ISO time argument as a Date; ToolError invalid_arguments when it names no time. */
export function readTime(value: unknown, field: string): Date | undefined {
  if (value === undefined) return undefined
  const time = Date.parse(String(value))
  if (!Number.isFinite(time)) throw new ToolError('invalid_arguments', `${field} is not a time. Send ISO 8601, for example 2026-01-31T09:00:00Z.`)
  return new Date(time)
}
