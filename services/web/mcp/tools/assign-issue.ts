/** Tool assign_issue: assigns an issue to a member of the project (or unassigns it), as the agent in the issue's history. */
import { isUuid } from '../../../../shared/domain/uuid.js'
import { assignToMember } from '../../issues/assignment.js'
import { issueUrl, defineTool, ToolError } from '../tool.js'
import { agentActor } from './triage-shape.js'

export const assignIssueTool = defineTool('mcp-assign-issue.json', {
  name: 'assign_issue',
  title: 'Assign an issue',
  description:
    "Assigns an issue to a member of the project (user_id: a member's user id, as an issue's assignee_id shows it), or unassigns it (user_id null). Recorded in the issue's history as yours (your api key's id); changed is false when it was already so. Your api key belongs to the project, not to a person, so there is no \"me\".",
  readOnly: false,
  async run(ctx, args) {
    const issueId = String(args.issue_id).toLowerCase()
    const asked = args.user_id
    if (asked === 'me') throw new ToolError('assignee_me_needs_person', 'An api key belongs to the project, not to a person, so "me" names nobody. Pass the member\'s user id (an issue\'s assignee.id, or ask the person for theirs).')
    if (asked !== null && (typeof asked !== 'string' || !isUuid(asked))) throw new ToolError('invalid_arguments', "user_id must be a member's user id (a UUID), or null to unassign.")
    const result = await assignToMember(ctx.db, ctx.projectId, issueId, asked, agentActor(ctx))
    if (result.kind === 'no_issue') throw new ToolError('issue_not_found', 'This project has no issue with this id. Take ids from list_issues; an issue belongs to exactly one project.')
    if (result.kind === 'not_member') throw new ToolError('assignee_not_member', 'This user is not a member of the project, so nothing changed. Assign the issue to a member; an owner invites people on the members page.')
    ctx.log.info('issue assigned', { project_id: ctx.projectId, issue_id: issueId, key_id: ctx.keyId, assignee: result.assignee?.id ?? null, changed: result.changed, via: 'tool_server' })
    return { issue_id: issueId, issue_url: issueUrl(ctx, issueId), changed: result.changed, assignee_id: result.assignee?.id ?? null }
  },
})
