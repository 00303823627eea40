/**
 * The matcher's scan step over the fleet (docs/known-problems.md, "Pipeline" 1): closed recordings
 * without a friction_scans row, newest first, each scanned on its own (friction/scan-recording.ts).
 * A pass is bounded by its limit; what is left waits for the next pass. Dispatching the match jobs
 * it queued is the caller's, after this returns (their rows are committed by then).
 */
import { isDatabaseOutage, type Queryable } from '../../shared/db/index.js'
import { ObjectStoreUnavailable } from '../../shared/object-store.js'
import { scanRecording, type MatchJobOptions, type ScanDeps } from './friction/scan-recording.js'

export { scanRecording, type MatchJobOptions, type RecordingScan, type ScanDeps } from './friction/scan-recording.js'

/** Recordings one pass may scan at most, whatever it is asked for. */
export const MAX_SCAN_LIMIT = 1000

/** What a pass did. */
export interface DueScanOutcome {
  /** Recordings scanned (each now has its friction_scans row). */
  scanned: number
  /** Ids of the findings stored, and of the match jobs queued for them (to dispatch). */
  findings: string[]
  matchJobs: string[]
  /** Chunks skipped as unreadable (gone, bad gzip or JSON) in the recordings scanned. */
  unreadableChunks: number
  /** Recordings whose scan failed for another reason: logged, and due again next pass. */
  failed: number
  /** Set when the object store could not be read: the pass stopped there, the rest stays due. */
  storeDown: string | undefined
}

/** A recording the scan has yet to read. */
export interface DueRecording {
  projectId: string
  recordingId: string
}

/**
 * Up to limit closed recordings without a scan, most recently active first (the recordings_last
 * index read backwards, each probed against friction_scans' key, so the query stops at limit).
 */
export async function dueRecordings(db: Queryable, limit: number): Promise<DueRecording[]> {
  const { rows } = await db.query<{ project_id: string; id: string }>(
    `SELECT r.project_id, r.id FROM recordings r
     WHERE r.closed_at IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM friction_scans s WHERE s.project_id = r.project_id AND s.recording_id = r.id)
     ORDER BY r.last_at DESC
     LIMIT $1`,
    [checkedLimit(limit)],
  )
  return rows.map((row) => ({ projectId: row.project_id, recordingId: row.id }))
}

/**
 * Scans up to limit due recordings, one transaction each. The object store being down stops the
 * pass (nothing of that recording written); a database outage is thrown for the caller to wait
 * out; any other failure of one recording is logged and the pass goes on. A signal that aborts
 * stops it before the next recording. jobs says how the match jobs are queued (scanRecording).
 */
export async function scanDueRecordings(deps: ScanDeps, limit: number, signal?: AbortSignal, jobs: MatchJobOptions = {}): Promise<DueScanOutcome> {
  const outcome: DueScanOutcome = { scanned: 0, findings: [], matchJobs: [], unreadableChunks: 0, failed: 0, storeDown: undefined }
  for (const { projectId, recordingId } of await dueRecordings(deps.db, limit)) {
    if (signal?.aborted) break
    try {
      const scan = await scanRecording(deps, projectId, recordingId, jobs)
      if (scan.status !== 'scanned') continue
      outcome.scanned++
      outcome.findings.push(...scan.findings)
      outcome.matchJobs.push(...scan.matchJobs)
      outcome.unreadableChunks += scan.unreadable.length
    } catch (error) {
      if (error instanceof ObjectStoreUnavailable) {
        outcome.storeDown = error.message
        deps.log.warn('object store unavailable: recordings stay unscanned until the next pass', { error: error.message })
        break
      }
      if (isDatabaseOutage(error)) throw error
      outcome.failed++
      deps.log.error('scanning a recording for friction failed; the next pass tries it again', { project: projectId, recording: recordingId, error })
    }
  }
  return outcome
}

function checkedLimit(limit: number): number {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SCAN_LIMIT) throw new RangeError(`scan limit must be a whole number from 1 to ${MAX_SCAN_LIMIT}, not ${limit}`)
  return limit
}
