/** Tool ignore_issue: ignores an issue for good, until a time, or until it gains more events or users, as the agent in the issue's history. */
import { defineTool, ToolError } from '../tool.js'
import { readTime } from './shape.js'
import { changeTriage, reasonOf } from './triage-shape.js'

export const ignoreIssue = defineTool('mcp-ignore-issue.json', {
  name: 'ignore_issue',
  title: 'Ignore an issue',
  description:
    "Ignores an issue: with no condition for good; with until (an ISO 8601 time in the future) an event after it reopens the issue; with more_events or more_users it reopens once it gained that many more (any condition met reopens it). Ignoring again replaces the conditions. Recorded in the issue's history as yours (your api key's id) with the reason you give.",
  readOnly: false,
  async run(ctx, args) {
    const until = readTime(args.until, 'until')
    if (until && until.getTime() <= Date.now()) throw new ToolError('invalid_arguments', 'until is not in the future. Send a later time, or leave it out to ignore the issue for good.')
    const change = {
      action: 'ignore' as const,
      ...(until ? { until } : {}),
      ...(typeof args.more_events === 'number' ? { moreEvents: args.more_events } : {}),
      ...(typeof args.more_users === 'number' ? { moreUsers: args.more_users } : {}),
    }
    return changeTriage(ctx, String(args.issue_id).toLowerCase(), change, reasonOf(args))
  },
})
