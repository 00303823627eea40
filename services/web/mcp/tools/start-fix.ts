/**
 * Tool start_fix: a coding agent asks for a fix of an error issue, as a person presses "Fix this",
 * with one difference: the call is not a person's approval, so the fix carries the trigger agent
 * and its pull request opens as a draft whatever the evidence (docs/fixes.md, delivery rules).
 */
import { requestFix } from '../../../investigator/commands.js'
import { defineTool, issueUrl, ToolError } from '../tool.js'
import { findIssue } from './shape.js'

export const startFix = defineTool('mcp-start-fix.json', {
  name: 'start_fix',
  title: 'Start a fix',
  description:
    'Asks the service to fix an error issue. With a root cause already found, a fix starts at once; otherwise an investigation starts first and its fix follows. The fix is built and verified in a sandbox and its pull request always opens as a draft for a person to review (an agent\'s call is not a person\'s approval). Refused for friction and noise issues, and while an investigation or fix of the issue is in flight. Read progress with get_issue.',
  readOnly: false,
  async run(ctx, args) {
    const issue = await findIssue(ctx, String(args.issue_id))
    if (issue.kind !== 'error') throw new ToolError('not_an_error', 'Only error issues are investigated and fixed. Check the issue kind; do not retry with this issue.')
    if (issue.noise !== '') throw new ToolError('noise_issue', 'The issue is marked as noise (its noise field says why), which is never investigated or fixed; do not retry with this issue.')
    const result = await requestFix(ctx.orm, ctx.redis, ctx.keys, { issueId: issue.id, projectId: ctx.projectId, trigger: 'agent', userId: null, leaseMs: ctx.investigationLeaseMs })
    ctx.log.info('fix requested', { project_id: ctx.projectId, issue_id: issue.id, key_id: ctx.keyId, result, via: 'tool_server' })
    if (result === 'in_flight') throw new ToolError('in_flight', 'An investigation or a fix of this issue is already in progress, so nothing was started. Wait for it to end (read it with get_issue), then ask again.')
    return {
      result,
      issue_id: issue.id,
      issue_url: issueUrl(ctx, issue.id),
      delivery: 'draft',
      next:
        result === 'fix_started'
          ? 'A fix is being built from the investigation already done. Its pull request opens as a draft; read get_issue for the fix state.'
          : 'No root cause was known, so an investigation started; its fix follows and opens as a draft. Read get_issue for progress.',
    }
  },
})
