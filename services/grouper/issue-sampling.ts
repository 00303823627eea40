/**
 * Per-issue sampling (docs/sampling.md): within an issue's window, the first storedPerWindow events
 * are stored whole and past them one in oneIn; the others are stored slim (columns kept, payload
 * dropped, events.whole false), so they are still deduplicated by id and counted like any event.
 * The window's state lives on the issue row (issues.sample_window_start, sample_window_events).
 * A batch is inserted with a guess read without a lock (predictSampling), then settled under the
 * row's lock (settleSampling), where a wrong guess is rewritten and the counters' update of the
 * same transaction writes the window back: the numbers are exact, and the insert waits on no one.
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

/** The window of an issue that has none yet. */
const NO_WINDOW: SampleWindow = { start: null, events: 0 }

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

/** Issue rows' windows and the issue each was merged into (null: none), as read (locked or not). */
interface IssueWindows {
  windows: Map<string, SampleWindow>
  mergedInto: Map<string, string | null>
}

async function readWindows(client: pg.PoolClient, issueIds: readonly string[], lock: boolean): Promise<IssueWindows> {
  const { rows } = await client.query<{ id: string; sample_window_start: Date | null; sample_window_events: number; merged_into: string | null }>(
    `SELECT id, sample_window_start, sample_window_events, merged_into FROM issues WHERE id = ANY($1::uuid[]) ORDER BY id${lock ? ' FOR NO KEY UPDATE' : ''}`,
    [issueIds],
  )
  return {
    windows: new Map(rows.map((row) => [row.id, { start: row.sample_window_start?.getTime() ?? null, events: row.sample_window_events }])),
    mergedInto: new Map(rows.map((row) => [row.id, row.merged_into])),
  }
}

/**
 * The events a batch is inserted slim with: a guess from its issues' windows read without a lock,
 * so the insert holds up no other grouper. It is exact unless another batch of the same issue
 * committed in between, and settleSampling corrects it once the issues are locked.
 */
export async function predictSampling(client: pg.PoolClient, prepared: readonly Prepared[], issueIds: Map<string, string>, sampling: IssueSampling): Promise<ReadonlySet<string>> {
  const events = byIssue(prepared, issueIds)
  const { windows } = await readWindows(client, [...events.keys()], false)
  const slim = new Set<string>()
  for (const [issueId, list] of events) for (const id of walkWindow(windows.get(issueId) ?? NO_WINDOW, list, sampling).slim) slim.add(id)
  return slim
}

/** Where a batch's sampling settled, under its issues' locks. */
export interface SettledSampling {
  /** Newly stored events that are slim; an inserted event the guess put on the other side is rewritten. */
  slim: ReadonlySet<string>
  /** Each issue's window after the batch's newly stored events (the counters' update writes it). */
  windows: Map<string, SampleWindow>
  /** Where each issue the batch routed from or to was merged into (null: none) once locked: a merge or an undo may have committed since the batch routed its events. */
  mergedInto: ReadonlyMap<string, string | null>
}

/**
 * Locks the batch's issues and those it routed events away from (merged ones), in id order, the
 * order the counters' update takes them (a locking read sees the latest committed window), and
 * walks each window through the events the batch newly stored: that choice is exact, since a
 * redelivered event was not inserted and takes no place. The lock is held from here to the
 * commit, so two grouper consumers sharing an issue take turns only for the short steps after
 * their inserts. FOR NO KEY UPDATE is the counters' own lock: it does not hold up inserts of
 * events that name the issue.
 */
export async function settleSampling(client: pg.PoolClient, inserted: readonly Prepared[], own: ReadonlyMap<string, string>, issueIds: Map<string, string>, sampling: IssueSampling): Promise<SettledSampling> {
  const { windows: locked, mergedInto } = await readWindows(client, [...new Set([...issueIds.values(), ...own.values()])], true)
  const slim = new Set<string>()
  const windows = new Map<string, SampleWindow>()
  for (const [issueId, list] of byIssue(inserted, issueIds)) {
    const walked = walkWindow(locked.get(issueId) ?? NO_WINDOW, list, sampling)
    windows.set(issueId, walked.window)
    for (const id of walked.slim) slim.add(id)
  }
  return { slim, windows, mergedInto }
}
