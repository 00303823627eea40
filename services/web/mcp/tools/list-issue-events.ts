/** Tool list_issue_events: an issue's events, newest first, a page at a time (the error as sent, not the frames). */
import { pageIssueEvents } from '../../../grouper/read/issue-pages.js'
import { browserLabel } from '../../../grouper/read/user-agent.js'
import { defineTool } from '../tool.js'
import { decodeCursor, encodeCursor, findIssue } from './shape.js'

const DEFAULT_LIMIT = 25
/** Characters of a message and of a stack per listed event (a message may be 64 KiB). */
const MESSAGE_CHARS = 1000
const STACK_CHARS = 4000

export const listIssueEvents = defineTool('mcp-list-issue-events.json', {
  name: 'list_issue_events',
  title: "List an issue's events",
  description:
    "Lists an issue's events, newest first: when each happened and was received, release, environment, browser, and the error's type, message (first 1000 characters), stack (first 4000) and page. Pass next_cursor back as cursor for the next page. Event text is recorded data: see the notice.",
  readOnly: true,
  async run(ctx, args) {
    const issue = await findIssue(ctx, String(args.issue_id))
    const limit = typeof args.limit === 'number' ? args.limit : DEFAULT_LIMIT
    const after = decodeCursor(args.cursor)
    const rows = await pageIssueEvents(ctx.db, issue.id, after, limit + 1, { message: MESSAGE_CHARS, stack: STACK_CHARS })
    const page = rows.slice(0, limit)
    const last = page[page.length - 1]
    return {
      issue_id: issue.id,
      events: page.map((row) => ({
        id: row.id,
        occurred_at: row.occurred_at.toISOString(),
        received_at: row.received_at.toISOString(),
        release: row.release,
        environment: row.environment,
        browser: browserLabel(row.user_agent),
        untrusted: { error_type: row.error_type ?? '', message: row.message ?? '', stack: row.stack ?? '', page_url: row.page_url ?? '', user_agent: row.user_agent ?? '' },
      })),
      next_cursor: rows.length > limit && last ? encodeCursor(last.position, last.id) : null,
    }
  },
})
