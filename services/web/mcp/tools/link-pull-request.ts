/**
 * Tool link_pull_request: records a pull request the agent opened itself against an issue, so the
 * issue page shows it. Only http(s) addresses are stored (the page links them); linking the same
 * address again updates its title.
 */
import { linkPullRequest, LINKED_PER_ISSUE } from '../pull-requests.js'
import { defineTool, issueUrl, ToolError } from '../tool.js'
import { findIssue } from './shape.js'

/** The address as stored, or ToolError invalid_url. */
function pullRequestUrl(text: string): string {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new ToolError('invalid_url', 'url is not an address. Send the pull request\'s full http or https address, as the code host shows it.')
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password) {
    throw new ToolError('invalid_url', 'url must be an http or https address without credentials. Send the pull request\'s address as the code host shows it.')
  }
  return url.toString()
}

export const linkPullRequestTool = defineTool('mcp-link-pull-request.json', {
  name: 'link_pull_request',
  title: 'Link a pull request',
  description:
    'Records a pull request you opened yourself against an issue (its address and title); the issue page and get_issue show it beside the service\'s own fix. Linking the same address again updates its title. The service does not watch or merge it.',
  readOnly: false,
  async run(ctx, args) {
    const issue = await findIssue(ctx, String(args.issue_id))
    const url = pullRequestUrl(String(args.url))
    const title = typeof args.title === 'string' ? args.title.trim() : ''
    const linked = await linkPullRequest(ctx.db, { projectId: ctx.projectId, issueId: issue.id, url, title, keyId: ctx.keyId })
    if (!linked) throw new ToolError('invalid_arguments', `The issue already has ${LINKED_PER_ISSUE} linked pull requests; nothing was stored. Link to an issue's newest pull request only.`)
    ctx.log.info('pull request linked', { project_id: ctx.projectId, issue_id: issue.id, key_id: ctx.keyId })
    return {
      issue_id: issue.id,
      issue_url: issueUrl(ctx, issue.id),
      pull_request: { url: linked.url, created_at: linked.created_at.toISOString(), untrusted: { title: linked.title } },
    }
  },
})
