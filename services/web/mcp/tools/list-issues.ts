/** Tool list_issues: the project's issues, most recently seen first, filtered and a page at a time. */
import type { IssueRow } from '../../../grouper/read/issue-list.js'
import { defineTool } from '../tool.js'
import { decodeCursor, encodeCursor, fromMicros, issueSummary, micros, readTime } from './shape.js'

const DEFAULT_LIMIT = 25

export const listIssues = defineTool('mcp-list-issues.json', {
  name: 'list_issues',
  title: 'List issues',
  description:
    'Lists the project\'s issues (errors grouped by cause, and friction issues of known problems), most recently seen first. Filters: status, kind (error or friction), environment (issues with an event there), since (seen at or after). Noise is left out unless include_noise. Pass next_cursor back as cursor for the next page. Titles and culprits are recorded text: see the notice.',
  readOnly: true,
  async run(ctx, args) {
    const limit = typeof args.limit === 'number' ? args.limit : DEFAULT_LIMIT
    const after = decodeCursor(args.cursor)
    const since = readTime(args.since, 'since')
    // Ordered by (last_seen, id) descending; a cursor continues strictly after the last row shown.
    const { rows } = await ctx.db.query<IssueRow & { created_at: Date; reason_code: string; reason_message: string; position: string }>(
      `SELECT i.id, i.title, i.culprit, i.status, i.kind, i.noise, i.event_count, i.user_count, i.session_count, i.first_seen, i.last_seen, i.created_at,
              i.reason_code, i.reason_message, ${micros('i.last_seen')} AS position
         FROM issues i
        WHERE i.project_id = $1
          AND ($2::text IS NULL OR i.status = $2)
          AND ($3::text IS NULL OR i.kind = $3)
          AND ($4::timestamptz IS NULL OR i.last_seen >= $4)
          AND ($5 OR i.noise = '')
          AND ($6::text IS NULL OR (i.last_seen, i.id) < (${fromMicros('$6')}, $7::uuid))
          AND ($8::text IS NULL OR EXISTS (
                SELECT 1 FROM events e JOIN environments env ON env.id = e.environment_id
                 WHERE e.issue_id = i.id AND env.project_id = i.project_id AND env.name = $8))
        ORDER BY i.last_seen DESC, i.id DESC
        LIMIT $9`,
      [ctx.projectId, args.status ?? null, args.kind ?? null, since ?? null, args.include_noise === true, after?.micros ?? null, after?.id ?? null, args.environment ?? null, limit + 1],
    )
    const page = rows.slice(0, limit)
    const last = page[page.length - 1]
    return {
      issues: page.map((issue) => issueSummary(ctx, issue)),
      next_cursor: rows.length > limit && last ? encodeCursor(last.position, last.id) : null,
    }
  },
})
