/** How much data the service keeps and takes in (docs/retention.md, docs/quotas.md, docs/storage.md). */
import { int, type Env } from './values.js'
import { DAY, MINUTE } from '../time.js'

export interface DataSettings {
  /** Days a project's events are kept when its settings name none (projects.retention_days). */
  readonly retentionDays: number
  /** Events a minute a project takes in when its settings name no cap (projects.events_per_minute); 0: no project cap (each key's SVC_EVENTS_PER_KEY_PER_MINUTE still holds). */
  readonly projectEventsPerMinute: number
  /** Events of one issue stored whole in one window; past it the issue's events are counted, and only a sample is stored whole. */
  readonly issueStoredPerWindow: number
  /** The per-issue window. */
  readonly issueWindowMs: number
  /** Past the per-issue cap, one event in this many is still stored whole. */
  readonly sampleOneIn: number
  /** How often the retention pass runs (partitions ahead, expired partitions dropped, expired rows deleted). */
  readonly retentionPassMs: number
  /** Age past which delivered or failed digests are removed. */
  readonly digestsKeepMs: number
  /** Age past a setup session's expiry after which it is removed. */
  readonly setupSessionsKeepMs: number
  /** Age past which dead-lettered stream entries are removed. */
  readonly deadLettersKeepMs: number
}

/** Reads SVC_RETENTION_DAYS, SVC_PROJECT_EVENTS_PER_MINUTE, SVC_ISSUE_EVENTS_STORED_PER_HOUR, SVC_ISSUE_SAMPLE_ONE_IN, SVC_RETENTION_PASS_MINUTES and the cleanup ages. */
export function dataConfig(env: Env): DataSettings {
  return {
    // Ninety days: Sentry's and GlitchTip's default, and a quarter's releases to compare.
    retentionDays: int(env, 'SVC_RETENTION_DAYS', 90, 1, 3650),
    projectEventsPerMinute: int(env, 'SVC_PROJECT_EVENTS_PER_MINUTE', 0, 0),
    // A thousand copies of one error in an hour tell everything a million would; the rest are counted.
    issueStoredPerWindow: int(env, 'SVC_ISSUE_EVENTS_STORED_PER_HOUR', 1000, 1),
    issueWindowMs: 60 * MINUTE,
    sampleOneIn: int(env, 'SVC_ISSUE_SAMPLE_ONE_IN', 100, 1, 1_000_000),
    retentionPassMs: int(env, 'SVC_RETENTION_PASS_MINUTES', 60, 1, 24 * 60) * MINUTE,
    digestsKeepMs: int(env, 'SVC_DIGESTS_KEEP_DAYS', 90, 1, 3650) * DAY,
    setupSessionsKeepMs: int(env, 'SVC_SETUP_SESSIONS_KEEP_DAYS', 7, 1, 3650) * DAY,
    deadLettersKeepMs: int(env, 'SVC_DEAD_LETTERS_KEEP_DAYS', 30, 1, 3650) * DAY,
  }
}
