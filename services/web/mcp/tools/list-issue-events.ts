/** Tool list_issue_events: an issue's events, newest first, a page at a time (the error as sent, not the frames). */
import { browserLabel } from '../../../grouper/read/user-agent.js'
import { defineTool } from '../tool.js'
import { decodeCursor, encodeCursor, findIssue, fromMicros, micros } from './shape.js'

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
    // Walks events_issue_received (issue_id, received_at DESC); the id breaks ties.
    const { rows } = await ctx.db.query<{ id: string; occurred_at: Date; received_at: Date; position: string; release: string | null; environment: string | null; user_agent: string | null; error_type: string | null; message: string | null; stack: string | null; page_url: string | null }>(
      `SELECT e.id, e.occurred_at, e.received_at, ${micros('e.received_at')} AS position, e.release, env.name AS environment,
              left(e.payload->'context'->>'user_agent', 512) AS user_agent, left(e.payload->'error'->>'type', 256) AS error_type,
              left(e.payload->'error'->>'message', $3) AS message, left(e.payload->'error'->>'stack', $4) AS stack,
              left(e.payload->'context'->>'url', 2048) AS page_url
         FROM events e LEFT JOIN environments env ON env.id = e.environment_id
        WHERE e.issue_id = $1 AND ($5::text IS NULL OR (e.received_at, e.id) < (${fromMicros('$5')}, $6::uuid))
        ORDER BY e.received_at DESC, e.id DESC
        LIMIT $2`,
      [issue.id, limit + 1, MESSAGE_CHARS, STACK_CHARS, after?.micros ?? null, after?.id ?? null],
    )
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
