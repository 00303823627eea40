/**
 * What the alerts page (and anyone else) reads of the alerter: a project's rules as they apply
 * (defaults included) and its recent firings with their delivery's state.
 */
import type { Queryable } from '../../shared/db/index.js'
import { issueAlertFacts } from '../grouper/read/alert-facts.js'
import { ruleWords } from './message.js'
import { ALERT_KINDS, rulesOf, SPIKE_DEFAULTS, type AlertKind, type AlertRule } from './rules.js'

export { ALERT_KINDS, SPIKE_DEFAULTS, type AlertKind, type AlertRule }

/** A project's three rules, in their fixed order. */
export async function projectAlertRules(db: Queryable, projectId: string): Promise<AlertRule[]> {
  const rules = (await rulesOf(db, [projectId])).get(projectId)!
  return ALERT_KINDS.map((kind) => rules[kind])
}

/** A firing as the page lists it. */
export interface FiringView {
  issueId: string
  title: string
  kind: AlertKind
  /** The rule and its numbers, in words. */
  what: string
  firedAt: Date
  /** none: recorded without a delivery (no chat connected, or it was broken). */
  delivery: 'none' | 'pending' | 'sending' | 'delivered' | 'failed' | 'broken'
  error: string
}

/** The project's latest firings, newest first. */
export async function recentFirings(db: Queryable, projectId: string, limit = 50): Promise<FiringView[]> {
  const { rows } = await db.query<{ issue_id: string; kind: AlertKind; detail: Record<string, number>; fired_at: Date; state: FiringView['delivery'] | null; error: string | null }>(
    `SELECT f.issue_id, f.kind, f.detail, f.fired_at, d.state, d.error FROM alert_firings f LEFT JOIN alert_deliveries d ON d.id = f.delivery_id
      WHERE f.project_id = $1 ORDER BY f.fired_at DESC, f.id LIMIT $2`,
    [projectId, limit],
  )
  const facts = await issueAlertFacts(db, rows.map((row) => row.issue_id))
  return rows.map((row) => ({
    issueId: row.issue_id,
    title: facts.get(row.issue_id)?.title ?? '',
    kind: row.kind,
    what: ruleWords({ kind: row.kind, detail: row.detail }),
    firedAt: row.fired_at,
    delivery: row.state ?? 'none',
    error: row.error ?? '',
  }))
}
