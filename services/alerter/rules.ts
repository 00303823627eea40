/**
 * A project's alert rules (alert_rules): a new issue, a regression, a spike, each on or off, the
 * spike with its numbers. A project without a row for a kind has its default: new issue and
 * regression on; spike off, at more than 100 events or more than 20 users in 60 minutes when a
 * person turns it on (Sentry's frequency rules and PostHog's spiking issues start about there).
 */
import type { Queryable } from '../../shared/db/index.js'

export const ALERT_KINDS = ['new_issue', 'regression', 'spike'] as const
export type AlertKind = (typeof ALERT_KINDS)[number]

/** One rule as it applies. */
export interface AlertRule {
  kind: AlertKind
  enabled: boolean
  /** More than this many events in spikeMinutes (0: not counted). */
  spikeEvents: number
  /** More than this many distinct users in spikeMinutes (0: not counted). */
  spikeUsers: number
  spikeMinutes: number
}

export const SPIKE_DEFAULTS = Object.freeze({ spikeEvents: 100, spikeUsers: 20, spikeMinutes: 60 })

/** The rule of kind a project has when it never set one. */
export function defaultRule(kind: AlertKind): AlertRule {
  return { kind, enabled: kind !== 'spike', ...SPIKE_DEFAULTS }
}

/** Each project's three rules, its own rows over the defaults. */
export async function rulesOf(db: Queryable, projectIds: readonly string[]): Promise<Map<string, Record<AlertKind, AlertRule>>> {
  const rules = new Map<string, Record<AlertKind, AlertRule>>()
  for (const id of projectIds) rules.set(id, { new_issue: defaultRule('new_issue'), regression: defaultRule('regression'), spike: defaultRule('spike') })
  if (projectIds.length === 0) return rules
  const { rows } = await db.query<{ project_id: string; kind: AlertKind; enabled: boolean; spike_events: number; spike_users: number; spike_minutes: number }>(
    'SELECT project_id, kind, enabled, spike_events, spike_users, spike_minutes FROM alert_rules WHERE project_id = ANY($1::uuid[])',
    [[...projectIds]],
  )
  for (const row of rows) {
    const own = rules.get(row.project_id)
    if (own) own[row.kind] = { kind: row.kind, enabled: row.enabled, spikeEvents: row.spike_events, spikeUsers: row.spike_users, spikeMinutes: row.spike_minutes }
  }
  return rules
}
