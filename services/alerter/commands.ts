/**
 * What others ask of the alerter (its commands): a project's rule changed on its alerts page. The
 * alerter alone writes alert_rules; the numbers are checked here, once, with a stable code and a
 * message that says what to do, and nothing is written when any is wrong.
 */
import type { Queryable } from '../../shared/db/index.js'
import { ALERT_KINDS, type AlertKind } from './rules.js'

/** A rule as a person sets it. */
export interface RuleInput {
  kind: string
  enabled: boolean
  spikeEvents?: number
  spikeUsers?: number
  spikeMinutes?: number
}

/** Why a rule was refused: the field and what to do. */
export interface RuleError {
  code: 'unknown_kind' | 'bad_number' | 'spike_without_threshold'
  field: string
  message: string
}

const LIMITS = { spikeEvents: [0, 10_000_000], spikeUsers: [0, 10_000_000], spikeMinutes: [1, 1440] } as const
const WORDS = { spikeEvents: 'Events', spikeUsers: 'Users', spikeMinutes: 'Minutes' } as const

/** The errors of input, none when it may be saved. */
export function checkRule(input: RuleInput): RuleError[] {
  if (!(ALERT_KINDS as readonly string[]).includes(input.kind)) return [{ code: 'unknown_kind', field: 'kind', message: `There is no alert rule "${String(input.kind).slice(0, 40)}"; the rules are ${ALERT_KINDS.join(', ')}.` }]
  const errors: RuleError[] = []
  for (const field of ['spikeEvents', 'spikeUsers', 'spikeMinutes'] as const) {
    const value = input[field]
    if (value === undefined) continue
    const [min, max] = LIMITS[field]
    if (!Number.isInteger(value) || value < min || value > max) errors.push({ code: 'bad_number', field, message: `${WORDS[field]} must be a whole number from ${min} to ${max}.` })
  }
  if (errors.length === 0 && input.kind === 'spike' && input.enabled && (input.spikeEvents ?? 1) === 0 && (input.spikeUsers ?? 1) === 0) {
    errors.push({ code: 'spike_without_threshold', field: 'spikeEvents', message: 'A spike needs a number of events or of users above 0; set one, or turn the spike rule off.' })
  }
  return errors
}

/** Saves a project's rule (its unset numbers keep what the row had, or the defaults); answers the errors instead when input is wrong. */
export async function setAlertRule(tx: Queryable, projectId: string, input: RuleInput): Promise<RuleError[]> {
  const errors = checkRule(input)
  if (errors.length > 0) return errors
  await tx.query(
    `INSERT INTO alert_rules (project_id, kind, enabled, spike_events, spike_users, spike_minutes)
     VALUES ($1, $2, $3, COALESCE($4, 100), COALESCE($5, 20), COALESCE($6, 60))
     ON CONFLICT (project_id, kind) DO UPDATE SET enabled = EXCLUDED.enabled,
       spike_events = COALESCE($4, alert_rules.spike_events), spike_users = COALESCE($5, alert_rules.spike_users),
       spike_minutes = COALESCE($6, alert_rules.spike_minutes), updated_at = now()`,
    [projectId, input.kind as AlertKind, input.enabled, input.spikeEvents ?? null, input.spikeUsers ?? null, input.spikeMinutes ?? null],
  )
  return []
}
