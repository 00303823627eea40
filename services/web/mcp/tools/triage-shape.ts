/**
 * What the triage tools share (resolve_issue, ignore_issue, reopen_issue, get_issue_history, and
 * get_issue's triage): the agent as the history names it, one change in one transaction through
 * the grouper's command, and the triage and history as answers show them. Release names and
 * titles come from browsers, and reasons from whoever wrote them: they sit under `untrusted`.
 */
import { triageIssues } from '../../../grouper/commands/triage.js'
import { issueHistory, issueTriage, type IssueTriage } from '../../../grouper/read/triage.js'
import { issueUrl, ToolError, type ToolContext } from '../tool.js'

// The grouper's triage types as its command and read face publish them (triage/types.ts is its insides).
type TriageChange = Parameters<typeof triageIssues>[3]
type TriageActor = Parameters<typeof triageIssues>[4]
type HistoryEntry = Awaited<ReturnType<typeof issueHistory>>[number]

/** The api key as the issue's history names it: an agent, by the key's id (never its secret). */
export function agentActor(ctx: Pick<ToolContext, 'keyId'>): TriageActor {
  return { kind: 'agent', id: ctx.keyId, label: `agent (key ${ctx.keyId})` }
}

/** Applies change to the key's project's issue in one transaction; answers the issue's triage after it. */
export async function changeTriage(ctx: ToolContext, issueId: string, change: TriageChange, reason: string): Promise<Record<string, unknown>> {
  const moved = await ctx.db.withTransaction(async (tx) => {
    const triage = await issueTriage(tx, ctx.projectId, issueId)
    if (!triage) throw new ToolError('issue_not_found', 'This project has no issue with this id. Take ids from list_issues; an issue belongs to exactly one project.')
    if (triage.mergedInto) throw new ToolError('issue_merged', `This issue was merged into ${triage.mergedInto.id}, whose triage it shares. Act on that issue instead.`)
    return triageIssues(tx, ctx.projectId, [issueId], change, agentActor(ctx), reason)
  })
  ctx.log.info('issue triaged', { project_id: ctx.projectId, issue_id: issueId, key_id: ctx.keyId, action: change.action, changed: moved.length > 0, via: 'tool_server' })
  const triage = await issueTriage(ctx.db, ctx.projectId, issueId)
  return { issue_id: issueId, issue_url: issueUrl(ctx, issueId), changed: moved.length > 0, triage: triage ? triageJson(triage) : null }
}

/** An issue's triage; release names and the merged issues' titles are recorded text. */
export function triageJson(triage: IssueTriage): Record<string, unknown> {
  return {
    state: triage.triage,
    resolved_at: triage.resolvedAt?.toISOString() ?? null,
    resolved_mode: triage.resolvedMode || null,
    ignored_until: triage.ignoredUntil?.toISOString() ?? null,
    ignored_until_events: triage.ignoredUntilEvents,
    ignored_until_users: triage.ignoredUntilUsers,
    regressed_at: triage.regressedAt?.toISOString() ?? null,
    merged_into: triage.mergedInto?.id ?? null,
    merged_from: triage.mergedFrom.map((m) => m.id),
    untrusted: {
      resolved_release: triage.resolvedRelease,
      regressed_release: triage.regressedRelease,
      merged_into_title: triage.mergedInto?.title ?? null,
      merged_from_titles: triage.mergedFrom.map((m) => m.title),
    },
  }
}

/** One history line; the reason (a person's, an agent's or made from a pull request) and the detail (titles, releases) are untrusted. */
export function historyLineJson(entry: HistoryEntry): Record<string, unknown> {
  return {
    at: entry.at.toISOString(),
    actor: { kind: entry.actorKind, id: entry.actorId },
    action: entry.action,
    from: entry.fromState,
    to: entry.toState,
    untrusted: { actor_label: entry.actorLabel, reason: entry.reason, detail: entry.detail },
  }
}

/** The optional reason argument ('' when absent). */
export function reasonOf(args: Record<string, unknown>): string {
  return typeof args.reason === 'string' ? args.reason.trim() : ''
}
