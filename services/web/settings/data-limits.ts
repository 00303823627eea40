/**
 * A project's own data limits (migration 087): how many days its events are kept
 * (projects.retention_days) and how many events a minute it takes in (projects.events_per_minute).
 * Blank is the service's default (NULL); a value outside the range is refused with a stable code
 * and nothing is written, not even the other field. Writes are bounded by the owner, as every
 * settings write is.
 */
import type { DataSettings } from '../../../shared/config/data.js'
import type { Queryable } from '../../../shared/db/index.js'
import { OWNER_OF_PROJECT } from '../projects/project-queries.js'

/** The ranges the columns' checks hold (migration 087). */
export const RETENTION_DAYS_RANGE = { min: 1, max: 3650 } as const
export const EVENTS_PER_MINUTE_RANGE = { min: 0, max: 100_000_000 } as const

/** A project's stored limits; null: the service's default. */
export interface DataLimits {
  retentionDays: number | null
  eventsPerMinute: number | null
}

/** The service's defaults (config.data), shown beside a blank field. */
export type DataDefaults = Pick<DataSettings, 'retentionDays' | 'projectEventsPerMinute'>

/** Why a field was refused: stable codes the page carries (data-code) and docs/storage.md lists. */
export type DataLimitsCode = 'retention_days_not_a_number' | 'retention_days_out_of_range' | 'events_per_minute_not_a_number' | 'events_per_minute_out_of_range'

export interface DataLimitsProblem {
  field: 'retention_days' | 'events_per_minute'
  code: DataLimitsCode
  /** What was typed, trimmed and cut to 40 characters, to show back. */
  text: string
}

export type DataLimitsParse = { ok: true; limits: DataLimits } | { ok: false; problems: DataLimitsProblem[]; typed: Record<DataLimitsProblem['field'], string> }

/** One field: blank is null, else a whole number within range, else a problem. */
function parseField(field: DataLimitsProblem['field'], raw: string, range: { min: number; max: number }): number | null | DataLimitsProblem {
  const text = raw.trim()
  if (text === '') return null
  if (!/^\d{1,10}$/.test(text)) return { field, code: `${field}_not_a_number`, text: text.slice(0, 40) }
  const value = Number(text)
  if (value < range.min || value > range.max) return { field, code: `${field}_out_of_range`, text }
  return value
}

/** The form's two fields as limits, or every problem with them. */
export function parseDataLimits(retentionText: string, capText: string): DataLimitsParse {
  const retention = parseField('retention_days', retentionText, RETENTION_DAYS_RANGE)
  const cap = parseField('events_per_minute', capText, EVENTS_PER_MINUTE_RANGE)
  const problems = [retention, cap].filter((value): value is DataLimitsProblem => value !== null && typeof value === 'object')
  if (problems.length > 0) return { ok: false, problems, typed: { retention_days: retentionText.trim().slice(0, 40), events_per_minute: capText.trim().slice(0, 40) } }
  return { ok: true, limits: { retentionDays: retention as number | null, eventsPerMinute: cap as number | null } }
}

/** What to tell the person about a refused field: what a valid value is. */
export function problemMessage(problem: DataLimitsProblem): string {
  if (problem.field === 'retention_days') {
    return `“${problem.text}” is not a number of days from ${RETENTION_DAYS_RANGE.min} to ${RETENTION_DAYS_RANGE.max}. Enter a whole number of days, or leave the field blank for the service's default.`
  }
  return `“${problem.text}” is not an intake cap: enter a whole number of events a minute from 0 (no cap) to ${EVENTS_PER_MINUTE_RANGE.max.toLocaleString('en-US')}, or leave the field blank for the service's default.`
}

/** The project's stored limits. */
export async function getDataLimits(db: Queryable, projectId: string): Promise<DataLimits> {
  const { rows } = await db.query<{ retention_days: number | null; events_per_minute: number | null }>('SELECT retention_days, events_per_minute FROM projects WHERE id = $1', [projectId])
  return { retentionDays: rows[0]?.retention_days ?? null, eventsPerMinute: rows[0]?.events_per_minute ?? null }
}

/** Stores both limits for the project's owner userId; false when the project is not theirs. */
export async function setDataLimits(db: Queryable, userId: string, projectId: string, limits: DataLimits): Promise<boolean> {
  const { rowCount } = await db.query(`UPDATE projects SET retention_days = $3, events_per_minute = $4 WHERE id = $1 AND ${OWNER_OF_PROJECT}`, [projectId, userId, limits.retentionDays, limits.eventsPerMinute])
  return (rowCount ?? 0) > 0
}
