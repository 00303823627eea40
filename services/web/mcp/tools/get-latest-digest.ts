/**
 * Tool get_latest_digest: the project's latest daily digests as the digester stored them
 * (services/digester/read.ts): when and how each went out, its items' frozen facts, and the text
 * as delivered. Titles and the text come from event text (and a model that read it): untrusted.
 */
import { readLatestDigests, type DigestView } from '../../../digester/read.js'
import { defineTool, issueUrl, type ToolContext } from '../tool.js'

function digestAnswer(ctx: ToolContext, digest: DigestView): Record<string, unknown> {
  return {
    id: digest.id,
    local_date: digest.local_date,
    timezone: digest.timezone,
    state: digest.state,
    step: digest.step,
    due_at: digest.due_at,
    window: { start: digest.window_start, end: digest.window_end },
    written_by: digest.written_by,
    delivered_at: digest.delivered_at,
    error_code: digest.error_code || null,
    items: digest.items.map((item) => ({
      position: item.position,
      kind: item.kind,
      issue_id: item.issue_id,
      issue_url: issueUrl(ctx, item.issue_id),
      known_problem_id: item.ticket_id,
      outcome: item.outcome,
      users: item.users,
      pull_request_url: item.pull_request_url,
      completed_at: item.completed_at,
      check: item.check_result || null,
      untrusted: { title: item.title },
    })),
    untrusted: { text: digest.text, error: digest.error || null },
  }
}

export const getLatestDigest = defineTool('mcp-get-latest-digest.json', {
  name: 'get_latest_digest',
  title: 'Get the latest digest',
  description:
    "Reads the project's latest daily digest (or the latest few): the summary posted to the team's chat around 09:00 in the project's time zone, listing the issues and known problems whose investigation or fix completed since the one before. Each item has its outcome, affected users and pull request, frozen when the digest was written; the text is the message as delivered. Titles and text are recorded or written text: see the notice.",
  readOnly: true,
  async run(ctx, args) {
    const limit = typeof args.limit === 'number' ? args.limit : 1
    const digests = await readLatestDigests(ctx.db, ctx.projectId, limit)
    return { digests: digests.map((digest) => digestAnswer(ctx, digest)) }
  },
})
