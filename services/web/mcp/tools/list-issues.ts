/**
 * Tool list_issues: the project's issues with the project API's filters and sorts
 * (parseIssueFilter reads both), a page at a time.
 */
import { parseIssueFilter, resolveAssigneeMe } from '../../../grouper/read/issue-filter.js'
import { searchIssues } from '../../../grouper/read/issue-list.js'
import { defineTool, ToolError } from '../tool.js'
import { issueSummary } from './shape.js'

const DEFAULT_LIMIT = 25

/** Arguments passed on under the list's own parameter names. */
const SAME_NAMES = ['q', 'triage', 'status', 'kind', 'release', 'environment', 'user', 'assignee', 'first_seen_from', 'first_seen_to', 'last_seen_from', 'last_seen_to', 'sort', 'cursor'] as const

export const listIssues = defineTool('mcp-list-issues.json', {
  name: 'list_issues',
  title: 'List issues',
  description:
    "Lists the project's issues (errors grouped by cause, and friction issues of known problems), open ones most recently seen first. Filters: q (text in title or culprit), triage (open, resolved, ignored or all), status, kind, release, environment, user (id or e-mail), assignee (a member's user id, or none), first and last seen ranges; sort by last_seen, first_seen, events or users. Noise is left out unless include_noise; merged issues are never listed. Pass next_cursor back as cursor, with the same filters, for the next page. Titles and culprits are recorded text: see the notice.",
  readOnly: true,
  async run(ctx, args) {
    // The schema has checked the types; the list's parser checks the values, as the project API's.
    const params = new URLSearchParams()
    for (const name of SAME_NAMES) if (typeof args[name] === 'string') params.set(name, args[name])
    if (typeof args.since === 'string' && !params.has('last_seen_from')) params.set('last_seen_from', args.since)
    if (args.include_noise === true) params.set('noise', '1')
    params.set('limit', String(typeof args.limit === 'number' ? args.limit : DEFAULT_LIMIT))
    const parsed = parseIssueFilter(params)
    if (!parsed.ok) {
      if (parsed.field === 'cursor') throw new ToolError('invalid_cursor', `${parsed.message} The cursor belongs to the list it came from.`)
      throw new ToolError('invalid_arguments', parsed.message)
    }
    // An api key is the project's, not a person's: it has no "me".
    const filter = resolveAssigneeMe(parsed.filter, null)
    if (!filter) throw new ToolError('assignee_me_needs_person', 'An api key belongs to the project, not to a person, so assignee "me" names nobody. Pass the member\'s user id, or none for unassigned issues.')
    const page = await searchIssues(ctx.db, ctx.projectId, filter, { countNoise: false })
    return {
      issues: page.issues.map((issue) => ({
        ...issueSummary(ctx, issue),
        triage: issue.triage,
        resolved_mode: issue.resolved_mode || null,
        ignored_until: issue.ignored_until?.toISOString() ?? null,
        regressed_at: issue.regressed_at?.toISOString() ?? null,
        merged_count: issue.merged_count,
        // The id only: a display name is text its person typed, and an agent needs no name to assign or filter.
        assignee_id: issue.assignee_id,
      })),
      next_cursor: page.nextCursor,
    }
  },
})
