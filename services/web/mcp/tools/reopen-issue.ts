/** Tool reopen_issue: puts a resolved or ignored issue back to open, as the agent in the issue's history. */
import { defineTool } from '../tool.js'
import { changeTriage, reasonOf } from './triage-shape.js'

export const reopenIssue = defineTool('mcp-reopen-issue.json', {
  name: 'reopen_issue',
  title: 'Reopen an issue',
  description:
    "Puts a resolved or ignored issue back to open (its resolve or ignore conditions are cleared). Recorded in the issue's history as yours (your api key's id) with the reason you give; changed is false when it was already open.",
  readOnly: false,
  async run(ctx, args) {
    return changeTriage(ctx, String(args.issue_id).toLowerCase(), { action: 'reopen' }, reasonOf(args))
  },
})
