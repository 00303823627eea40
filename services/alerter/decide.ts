/**
 * Which rules a batch of issue changes makes fire (docs/alerts.md): a new issue for the batch that
 * opened it, a regression for the batch that regressed it, a spike for an issue past its project's
 * numbers in the last minutes. Noise, ignored and merged issues never fire. Whether a rule already
 * fired for the issue in the last hour is record-firings.ts's question, asked under its lock.
 */
import type { Queryable } from '../../shared/db/index.js'
import type { IssueChange } from '../../shared/domain/issue-changes.js'
import { issueAlertFacts, recentIssueCounts, type AlertIssueFacts } from '../grouper/read/alert-facts.js'
import { rulesOf, type AlertKind, type AlertRule } from './rules.js'

/** A rule about to fire for an issue, with the numbers behind it. */
export interface Candidate {
  projectId: string
  issueId: string
  kind: AlertKind
  detail: { receivedAt?: number; events?: number; users?: number; spikeEvents?: number; spikeUsers?: number; spikeMinutes?: number }
}

/** The changes of one issue across a batch of entries, folded into one. */
export function foldChanges(changes: readonly IssueChange[]): IssueChange[] {
  const byIssue = new Map<string, IssueChange>()
  for (const change of changes) {
    const seen = byIssue.get(change.issueId)
    if (!seen) {
      byIssue.set(change.issueId, { ...change, releases: [...change.releases] })
      continue
    }
    seen.created ||= change.created
    seen.regressed ||= change.regressed
    seen.events += change.events
    if (change.receivedAt > 0) seen.receivedAt = seen.receivedAt === 0 ? change.receivedAt : Math.min(seen.receivedAt, change.receivedAt)
  }
  return [...byIssue.values()]
}

/**
 * For a redelivered entry: the issue opened, or regressed, within the hour. A firing it already
 * had for that is within the same hour, so record-firings' hour check keeps it to one.
 */
export function recentlyHappened(issue: AlertIssueFacts, kind: AlertKind, now = Date.now()): boolean {
  const at = kind === 'new_issue' ? issue.createdAt : kind === 'regression' ? issue.regressedAt : null
  return at !== null && now - at.getTime() < HOUR_MS
}

const HOUR_MS = 3_600_000

/** True when an issue may alert at all. */
export function mayAlert(issue: AlertIssueFacts | undefined): issue is AlertIssueFacts {
  return issue !== undefined && issue.noise === '' && issue.triage !== 'ignored' && issue.mergedInto === null
}

/**
 * The candidates of a batch. skip answers the (issue, kind) pairs that fired within the hour, so a
 * spike already alerted is not counted again each batch (a busy issue stays cheap).
 */
export async function decide(db: Queryable, changes: readonly IssueChange[], skip: (pairs: Array<[string, AlertKind]>) => Promise<Set<string>>): Promise<Candidate[]> {
  const folded = foldChanges(changes)
  const rules = await rulesOf(db, [...new Set(folded.map((c) => c.projectId))])
  const wanted: Array<{ change: IssueChange; rule: AlertRule; recovered?: true }> = []
  for (const change of folded) {
    const own = rules.get(change.projectId)!
    // A batch the grouper stored again without new events (events 0) is a redelivery: its first
    // entry may have been lost between the grouper's commit and its XADD, and with it the only
    // "created"/"regressed" flag. Such an entry is weighed by the issue's own times below.
    const redelivered = change.events === 0
    if (own.new_issue.enabled && (change.created || redelivered)) wanted.push({ change, rule: own.new_issue, ...(change.created ? {} : { recovered: true as const }) })
    if (own.regression.enabled && (change.regressed || redelivered)) wanted.push({ change, rule: own.regression, ...(change.regressed ? {} : { recovered: true as const }) })
    // A spike needs new events: a redelivered batch (events 0) adds nothing to count.
    if (change.events > 0 && own.spike.enabled && (own.spike.spikeEvents > 0 || own.spike.spikeUsers > 0)) wanted.push({ change, rule: own.spike })
  }
  if (wanted.length === 0) return []
  const facts = await issueAlertFacts(db, [...new Set(wanted.map((w) => w.change.issueId))])
  const open = wanted.filter((w) => mayAlert(facts.get(w.change.issueId)) && (!w.recovered || recentlyHappened(facts.get(w.change.issueId)!, w.rule.kind)))
  const fired = await skip(open.filter((w) => w.rule.kind === 'spike').map((w) => [w.change.issueId, 'spike']))
  const candidates: Candidate[] = []
  for (const { change, rule } of open) {
    const base = { projectId: change.projectId, issueId: change.issueId, kind: rule.kind }
    const receivedAt = change.receivedAt > 0 ? { receivedAt: change.receivedAt } : {}
    if (rule.kind !== 'spike') {
      candidates.push({ ...base, detail: receivedAt })
      continue
    }
    if (fired.has(`${change.issueId}|spike`)) continue
    const counts = await recentIssueCounts(db, change.issueId, rule.spikeMinutes, { events: rule.spikeEvents, users: rule.spikeUsers })
    const overEvents = rule.spikeEvents > 0 && counts.events > rule.spikeEvents
    const overUsers = rule.spikeUsers > 0 && counts.users > rule.spikeUsers
    if (!overEvents && !overUsers) continue
    candidates.push({ ...base, detail: { ...receivedAt, events: counts.events, users: counts.users, spikeEvents: rule.spikeEvents, spikeUsers: rule.spikeUsers, spikeMinutes: rule.spikeMinutes } })
  }
  return candidates
}
