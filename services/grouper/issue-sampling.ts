/**
 * Per-issue sampling (docs/sampling.md): within an issue's window, the first storedPerWindow events
 * are stored whole and past them one in oneIn; the others are stored slim (columns kept, payload
 * dropped, events.whole false), so they are still deduplicated by id and counted like any event.
 * The window's state lives on the issue row (issues.sample_window_start, sample_window_events),
 * read under the row's lock and written by the counters' update of the same transaction: two
 * grouper consumers that share an issue take turns, and the numbers are exact.
 */
import type pg from 'pg'
import { dataConfig, type DataSettings } from '../../shared/config/data.js'
import type { Prepared } from './prepared.js'

/** How many events of one issue are stored whole (config.data). */
export interface IssueSampling {
  /** Events of one issue stored whole in one window before sampling starts. */
  readonly storedPerWindow: number
  readonly windowMs: number
  /** Past storedPerWindow, one event in this many is still stored whole. */
  readonly oneIn: number
}

/** The grouper's sampling settings out of config.data. */
export function issueSamplingOf(data: DataSettings): IssueSampling {
  return { storedPerWindow: data.issueStoredPerWindow, windowMs: data.issueWindowMs, oneIn: data.sampleOneIn }
}

/** Sampling as an unset environment gives it: 1000 events whole an hour per issue, then 1 in 100. */
export const DEFAULT_SAMPLING: IssueSampling = issueSamplingOf(dataConfig({}))

/** An issue's current window: when it started (null: never) and the events counted in it. */
export interface SampleWindow {
  start: number | null
  events: number
}

/** What the grouper stores of one event: whole, or a slim row. */
export const SLIM_PAYLOAD = '{"sampled":true}'

/**
 * Walks events of one issue, oldest received first, through its window: an event received a
 * window or more after the window's start opens a new one. Answers the window after them and the
 * ids of the events stored slim: the n-th event of a window is whole when n <= storedPerWindow or
 * (n - storedPerWindow) is a multiple of oneIn, so the choice is the same on every run.
 */
export function walkWindow(window: SampleWindow, events: ReadonlyArray<{ id: string; at: number }>, sampling: IssueSampling): { window: SampleWindow; slim: string[] } {
  let { start, events: n } = window
  const slim: string[] = []
  for (const event of [...events].sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    if (start === null || event.at >= start + sampling.windowMs) {
      start = event.at
      n = 0
    }
    n++
    if (n > sampling.storedPerWindow && (n - sampling.storedPerWindow) % sampling.oneIn !== 0) slim.push(event.id)
  }
  return { window: { start, events: n }, slim }
}

/** The batch's events by issue id, one per event id (a resend within a batch is one event). */
function byIssue(events: readonly Prepared[], issueIds: Map<string, string>): Map<string, Array<{ id: string; at: number }>> {
  const seen = new Set<string>()
  const out = new Map<string, Array<{ id: string; at: number }>>()
  for (const x of events) {
    if (seen.has(x.envelope.id)) continue
    seen.add(x.envelope.id)
    const issueId = issueIds.get(x.issueKey)!
    const list = out.get(issueId) ?? []
    list.push({ id: x.envelope.id, at: x.envelope.receivedAt })
    out.set(issueId, list)
  }
  return out
}

/** The plan for a batch: which events go in slim, and each issue's window as it was. */
export interface SamplingPlan {
  slim: ReadonlySet<string>
  windows: ReadonlyMap<string, SampleWindow>
  /** The batch's issues found merged once locked (a merge may have committed while the lock was awaited). */
  merged: ReadonlySet<string>
}

/**
 * Locks the batch's issues (in id order, the order the counters' update takes them) and picks the
 * events stored slim. Only an issue the batch may take past its cap is asked which of its events
 * are stored already (a redelivery): those are not counted again, so they take no place in the
 * window. FOR NO KEY UPDATE is the counters' own lock: it does not hold up inserts of events that
 * name the issue.
 */
export async function planSampling(client: pg.PoolClient, prepared: readonly Prepared[], issueIds: Map<string, string>, sampling: IssueSampling): Promise<SamplingPlan> {
  const events = byIssue(prepared, issueIds)
  const { rows } = await client.query<{ id: string; sample_window_start: Date | null; sample_window_events: number; merged: boolean }>(
    'SELECT id, sample_window_start, sample_window_events, merged_into IS NOT NULL AS merged FROM issues WHERE id = ANY($1::uuid[]) ORDER BY id FOR NO KEY UPDATE',
    [[...events.keys()]],
  )
  const windows = new Map(rows.map((row) => [row.id, { start: row.sample_window_start?.getTime() ?? null, events: row.sample_window_events }]))
  const merged = new Set(rows.filter((row) => row.merged).map((row) => row.id))
  const slim = new Set<string>()
  const full = [...events].filter(([issueId, list]) => walkWindow(windows.get(issueId)!, list, sampling).slim.length > 0)
  if (full.length === 0) return { slim, windows, merged }
  const { rows: stored } = await client.query<{ id: string }>('SELECT id FROM events WHERE id = ANY($1::uuid[])', [full.flatMap(([, list]) => list.map((e) => e.id))])
  const already = new Set(stored.map((row) => row.id))
  for (const [issueId, list] of full) {
    for (const id of walkWindow(windows.get(issueId)!, list.filter((e) => !already.has(e.id)), sampling).slim) slim.add(id)
  }
  return { slim, windows, merged }
}

/** Each issue's window after the events the batch newly stored (the counters' update writes it). */
export function windowsAfter(plan: SamplingPlan, inserted: readonly Prepared[], issueIds: Map<string, string>, sampling: IssueSampling): Map<string, SampleWindow> {
  const out = new Map<string, SampleWindow>()
  for (const [issueId, list] of byIssue(inserted, issueIds)) out.set(issueId, walkWindow(plan.windows.get(issueId) ?? { start: null, events: 0 }, list, sampling).window)
  return out
}
