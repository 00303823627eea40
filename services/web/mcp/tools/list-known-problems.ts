/** Tool list_known_problems: the project's known problems (friction tickets), as the dashboard's list reads them. */
import { listKnownProblems } from '../../../matcher/read/known-problems.js'
import { defineTool, issueUrl } from '../tool.js'

export const listKnownProblemsTool = defineTool('mcp-list-known-problems.json', {
  name: 'list_known_problems',
  title: 'List known problems',
  description:
    'Lists the project\'s known problems: friction that session recordings show (rage clicks, dead clicks, errors after a click), each with its state, how many recordings and users it was matched in, its checks, and whether it is published. Most recent activity first, 50 a page. The page, target and narrative are recorded text: see the notice.',
  readOnly: true,
  async run(ctx, args) {
    const page = typeof args.page === 'number' ? args.page : 1
    const filters = { archived: args.include_archived === true, published: args.published_only === true, kind: typeof args.kind === 'string' ? args.kind : '' }
    const listed = await listKnownProblems(ctx.db, ctx.projectId, filters, page)
    return {
      known_problems: listed.problems.map((p) => ({
        id: p.id,
        issue_id: p.issue_id,
        issue_url: issueUrl(ctx, p.issue_id),
        state: p.state,
        kind: p.kind,
        environment: p.environment,
        matched_recordings: p.matched,
        users: p.users,
        checks: { confirmed: p.checks_confirmed, refuted: p.checks_refuted, inconclusive: p.checks_inconclusive },
        published: p.published_at !== null && p.unpublished_at === null,
        created_at: p.created_at.toISOString(),
        last_activity: new Date(p.last_activity).toISOString(),
        untrusted: { page: p.page, target: p.target, pages: p.pages, narrative: p.narrative },
      })),
      page,
      next_page: listed.more ? page + 1 : null,
      archived_count: listed.archivedCount,
    }
  },
})
