/**
 * The scan of one closed recording (docs/known-problems.md, "Pipeline" 1): its chunks read from
 * the object store in seq order, the detectors run over their events, and in one transaction its
 * findings, a match job for each new one and its friction_scans row, so a recording is scanned once
 * and whole or not at all.
 *
 * The recording's row is held (FOR NO KEY UPDATE SKIP LOCKED) while its chunks are read: a second
 * worker passes it by instead of reading it too, and a late chunk that would reopen it waits for
 * the scan. The friction_scans insert (ON CONFLICT DO NOTHING) settles the one race the lock leaves
 * (a worker whose query saw the recording unscanned just before the first one committed): only one
 * transaction writes the scan, and the other writes nothing.
 */
import type { Db } from '../../../shared/db/index.js'
import type { Logger } from '../../../shared/log.js'
import type { ObjectStore } from '../../../shared/object-store.js'
import { walkChunks } from '../../recorder/read/chunks.js'
import { findingsOf, type FrictionFinding } from './detectors.js'
import { RecordingObserver } from './observe.js'

export interface ScanDeps {
  db: Db
  objects: ObjectStore
  log: Logger
}

/** What scanning one recording did. */
export type RecordingScan =
  | {
      status: 'scanned'
      /** Ids of the findings this scan stored, and of the match job queued for each. */
      findings: string[]
      matchJobs: string[]
      /** Findings the detectors reported (a rescan after a reset may find them stored already). */
      detected: number
      chunks: number
      /** Seqs whose object was gone or held no readable chunk (bad gzip or JSON): scanned without them. */
      unreadable: number[]
      /** Where the events cap stopped the reading, when it did (the rest of the recording was not scanned). */
      cappedAt: number | undefined
    }
  /** Not closed, scanned already, gone, or held by another worker scanning it now. */
  | { status: 'skipped' }

/** How the match jobs of a scan's findings are queued: as the scan job was (a backfill's carry its source and its --allow-missing-embeddings). */
export interface MatchJobOptions {
  source?: 'live' | 'backfill'
  allowMissingEmbeddings?: boolean
}

interface RecordingRow {
  environment_id: string | null
  user_key: string | null
  session_id: string
}

/**
 * Scans one recording when it is closed and not scanned yet. Throws ObjectStoreUnavailable (with
 * nothing written) when its chunks cannot be read now: the recording stays due and a later scan
 * tries again.
 */
export async function scanRecording(deps: ScanDeps, projectId: string, recordingId: string, jobs: MatchJobOptions = {}): Promise<RecordingScan> {
  const scan = await deps.db.withTransaction(async (client): Promise<RecordingScan> => {
    const { rows } = await client.query<RecordingRow>(
      `SELECT r.environment_id, r.user_key, r.session_id FROM recordings r
       WHERE r.project_id = $1 AND r.id = $2 AND r.closed_at IS NOT NULL
         AND NOT EXISTS (SELECT 1 FROM friction_scans s WHERE s.project_id = r.project_id AND s.recording_id = r.id)
       FOR NO KEY UPDATE OF r SKIP LOCKED`,
      [projectId, recordingId],
    )
    const recording = rows[0]
    if (!recording) return { status: 'skipped' }
    const { rows: chunks } = await client.query<{ seq: number; object_key: string }>(
      'SELECT seq, object_key FROM recording_chunks WHERE project_id = $1 AND recording_id = $2 ORDER BY seq',
      [projectId, recordingId],
    )
    const observer = new RecordingObserver()
    const walk = await walkChunks(deps.objects, chunks, (events) => observer.add(events))
    const detected = findingsOf(observer.finish())
    const claimed = await client.query(
      'INSERT INTO friction_scans (project_id, recording_id, findings) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
      [projectId, recordingId, detected.length],
    )
    if (claimed.rowCount === 0) return { status: 'skipped' }
    const findings = await insertFindings(client, projectId, recordingId, recording, detected)
    const { rows: queued } = await client.query<{ id: string }>(
      `INSERT INTO friction_jobs (kind, project_id, environment_id, subject, source, allow_missing_embeddings)
       SELECT 'match', $1, $2, finding, $4, $5 FROM unnest($3::uuid[]) AS finding
       ON CONFLICT (kind, subject) WHERE state IN ('pending', 'claimed') DO NOTHING
       RETURNING id`,
      [projectId, recording.environment_id, findings, jobs.source ?? 'live', jobs.allowMissingEmbeddings ?? false],
    )
    return { status: 'scanned', findings, matchJobs: queued.map((job) => job.id), detected: detected.length, chunks: chunks.length, unreadable: walk.unreadable, cappedAt: walk.cappedAt }
  })
  if (scan.status === 'scanned' && (scan.unreadable.length > 0 || scan.cappedAt !== undefined)) {
    deps.log.warn('recording scanned for friction without some of its chunks', { project: projectId, recording: recordingId, unreadable_seqs: scan.unreadable.slice(0, 20), unreadable: scan.unreadable.length, capped_at_seq: scan.cappedAt })
  }
  return scan
}

/** Stores the findings (each once: the table is unique on recording, kind, target and moment); answers the ids of those stored now. */
async function insertFindings(client: Pick<Db, 'query'>, projectId: string, recordingId: string, recording: RecordingRow, found: readonly FrictionFinding[]): Promise<string[]> {
  if (found.length === 0) return []
  const { rows } = await client.query<{ id: string }>(
    `INSERT INTO friction_findings (project_id, environment_id, recording_id, kind, page, target, at, user_key, session_id, narrative, screen, control_names, subject)
     SELECT $1, $2, $3, f.kind, f.page, f.target, f.at, $4, $5, f.narrative, f.screen, ARRAY(SELECT jsonb_array_elements_text(f.names)), f.subject
     FROM unnest($6::text[], $7::text[], $8::text[], $9::timestamptz[], $10::text[], $11::text[], $12::jsonb[], $13::text[]) AS f(kind, page, target, at, narrative, screen, names, subject)
     ON CONFLICT DO NOTHING
     RETURNING id`,
    [
      projectId,
      recording.environment_id,
      recordingId,
      recording.user_key,
      recording.session_id,
      found.map((finding) => finding.kind),
      found.map((finding) => finding.page),
      found.map((finding) => finding.target),
      found.map((finding) => new Date(finding.at)),
      found.map((finding) => finding.narrative),
      found.map((finding) => finding.screen),
      // A text[] per finding: unnest would flatten a text[][], so each goes as a JSON array.
      found.map((finding) => JSON.stringify(finding.names)),
      found.map((finding) => finding.subject),
    ],
  )
  return rows.map((row) => row.id)
}
