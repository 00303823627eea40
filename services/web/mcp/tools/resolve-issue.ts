/** Tool resolve_issue: marks an issue resolved, now or in the next release, as the agent (the key's id) in the issue's history. */
import { defineTool } from '../tool.js'
import { changeTriage, reasonOf } from './triage-shape.js'

export const resolveIssue = defineTool('mcp-resolve-issue.json', {
  name: 'resolve_issue',
  title: 'Resolve an issue',
  description:
    'Marks an issue resolved. mode now: any event received later reopens it as a regression; mode next_release: only an event of a release later than the newest one seen does (use it when the fix ships in the next release). The change is recorded in the issue\'s history as yours (your api key\'s id) with the reason you give. Answers the issue\'s triage after the change; changed is false when it was already resolved.',
  readOnly: false,
  async run(ctx, args) {
    const mode = args.mode === 'next_release' ? 'next_release' : 'now'
    return changeTriage(ctx, String(args.issue_id).toLowerCase(), { action: 'resolve', mode }, reasonOf(args))
  },
})
