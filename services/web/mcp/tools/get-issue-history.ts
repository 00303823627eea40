/** Tool get_issue_history: an issue's triage and its history, newest first (who, what, from and to, why). */
import { issueHistory, issueTriage } from '../../../grouper/read/triage.js'
import { defineTool, issueUrl } from '../tool.js'
import { findIssue } from './shape.js'
import { historyLineJson, triageJson } from './triage-shape.js'

const DEFAULT_LIMIT = 50

export const getIssueHistory = defineTool('mcp-get-issue-history.json', {
  name: 'get_issue_history',
  title: "Get an issue's history",
  description:
    "Reads an issue's triage (open, resolved, ignored, with its conditions, regression and merges) and its history, newest first: each change with who made it (a person, an agent by api key id, or the service), the action (resolve, ignore, reopen, regress, unignore, merge, merged, unmerge, unmerged, pull_request), from and to, and why. Reasons and details are recorded text: see the notice.",
  readOnly: true,
  async run(ctx, args) {
    const issue = await findIssue(ctx, String(args.issue_id))
    const limit = typeof args.limit === 'number' ? args.limit : DEFAULT_LIMIT
    const [triage, history] = await Promise.all([issueTriage(ctx.db, ctx.projectId, issue.id), issueHistory(ctx.db, issue.id, limit)])
    return { issue_id: issue.id, issue_url: issueUrl(ctx, issue.id), triage: triage ? triageJson(triage) : null, history: history.map(historyLineJson) }
  },
})
