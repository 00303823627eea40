/** Tool list_issues: the project's issues, most recently seen first, filtered and a page at a time. */
import { pageIssues } from '../../../grouper/read/issue-pages.js'
import { defineTool } from '../tool.js'
import { decodeCursor, encodeCursor, issueSummary, readTime } from './shape.js'

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
    // The schema has made status, kind and environment strings when they are sent.
    const text = (value: unknown): string | null => (typeof value === 'string' ? value : null)
    const filters = { status: text(args.status), kind: text(args.kind), since: since ?? null, includeNoise: args.include_noise === true, environment: text(args.environment) }
    const rows = await pageIssues(ctx.db, ctx.projectId, filters, after, limit + 1)
    const page = rows.slice(0, limit)
    const last = page[page.length - 1]
    return {
      issues: page.map((issue) => issueSummary(ctx, issue)),
      next_cursor: rows.length > limit && last ? encodeCursor(last.position, last.id) : null,
    }
  },
})
