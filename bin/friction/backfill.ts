/**
 * svc backfill-tickets' work: for the closed recordings of one environment inside the lookback,
 * friction jobs spaced by the rate (docs/upgrade-078.md). A recording never scanned gets a scan
 * job; a scanned one whose findings lack matching decisions gets a match job per undecided
 * finding (partial decisions resume). Skipped: a recording or finding with a job already pending
 * or claimed, a scanned recording whose findings are all decided (not_a_problem included), and,
 * counted apart, a scanned recording with no finding to match (none found, or only findings with
 * an empty narrative). Rerunning it schedules only what is still missing; an interrupted run is
 * finished by running it again.
 */
import type { Db } from '../../shared/db/index.js'
import { MINUTE } from '../../shared/time.js'
import type { Target } from './target.js'
import { cutoffOf } from './target.js'

/** Recordings examined per statement. */
const PAGE = 500

export interface BackfillOptions extends Target {
  ratePerMinute: number
  allowMissingEmbeddings: boolean
}

export interface BackfillCounts {
  /** Closed recordings of the environment inside the lookback. */
  recordings: number
  examined: number
  scanJobs: number
  matchJobs: number
  /** Recordings with a scan job (or every undecided finding with a match job) already pending or claimed. */
  skippedActive: number
  /** Scanned recordings with findings to match, every one of them decided already. */
  skippedDecided: number
  /** Scanned recordings with no finding to match: the scan found none (or only empty narratives). */
  skippedNoFindings: number
  /** When the first and the last scheduled job may start. */
  firstAt?: Date
  lastAt?: Date
}

interface PageRow {
  id: string
  /** last_at as PostgreSQL prints it: a JS Date would drop its microseconds and the page would never advance. */
  cursor: string
  scanned: boolean
  scan_active: boolean
  /** Its findings with a narrative to match, decided or not. */
  findings: number
  undecided: string[]
  undecided_active: string[]
}

interface Planned {
  kind: 'scan' | 'match'
  subject: string
}

/** Schedules the environment's missing friction jobs; onPage sees the counts after each page. */
export async function scheduleBackfill(db: Db, options: BackfillOptions, onPage: (counts: BackfillCounts) => void = () => {}): Promise<BackfillCounts> {
  const cutoff = await cutoffOf(db, options.since)
  const scope = [options.projectId, options.environmentId, cutoff]
  const { rows: total } = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM recordings WHERE project_id = $1 AND environment_id = $2 AND closed_at IS NOT NULL AND last_at >= $3',
    scope,
  )
  const counts: BackfillCounts = { recordings: total[0]!.n, examined: 0, scanJobs: 0, matchJobs: 0, skippedActive: 0, skippedDecided: 0, skippedNoFindings: 0 }
  const spacingMs = MINUTE / options.ratePerMinute
  const start = await startOf(db, options, spacingMs)
  let next = 0
  let after: { lastAt: string; id: string } | undefined
  for (;;) {
    const rows = await readPage(db, scope, after)
    if (rows.length === 0) break
    after = { lastAt: rows.at(-1)!.cursor, id: rows.at(-1)!.id }
    const planned: Planned[] = []
    for (const row of rows) {
      if (!row.scanned) {
        if (row.scan_active) counts.skippedActive++
        else planned.push({ kind: 'scan', subject: row.id })
        continue
      }
      const active = new Set(row.undecided_active)
      const missing = row.undecided.filter((finding) => !active.has(finding))
      if (missing.length > 0) planned.push(...missing.map((subject) => ({ kind: 'match' as const, subject })))
      else if (row.undecided.length > 0) counts.skippedActive++
      else if (row.findings === 0) counts.skippedNoFindings++
      else counts.skippedDecided++
    }
    const times = planned.map((_, i) => new Date(start.getTime() + (next + i) * spacingMs))
    next += planned.length
    const inserted = await insertJobs(db, options, planned, times)
    for (const job of inserted) {
      if (job.kind === 'scan') counts.scanJobs++
      else counts.matchJobs++
      counts.firstAt = counts.firstAt && counts.firstAt < job.not_before ? counts.firstAt : job.not_before
      counts.lastAt = counts.lastAt && counts.lastAt > job.not_before ? counts.lastAt : job.not_before
    }
    // A job another run scheduled between the read and the insert: active now, so skipped.
    counts.skippedActive += planned.length - inserted.length
    counts.examined += rows.length
    onPage({ ...counts })
  }
  return counts
}

/**
 * The first job's start: now, or after the environment's last pending backfill job, so that a
 * second run (14d after 1d) queues behind the first instead of doubling the rate.
 */
async function startOf(db: Db, options: BackfillOptions, spacingMs: number): Promise<Date> {
  const { rows } = await db.query<{ start: Date }>(
    `SELECT greatest(now(), max(not_before) + make_interval(secs => $3)) AS start FROM friction_jobs
      WHERE project_id = $1 AND environment_id = $2 AND source = 'backfill' AND state = 'pending'`,
    [options.projectId, options.environmentId, spacingMs / 1000],
  )
  return rows[0]!.start
}

async function readPage(db: Db, scope: unknown[], after: { lastAt: string; id: string } | undefined): Promise<PageRow[]> {
  const { rows } = await db.query<PageRow>(
    `WITH page AS (
       SELECT r.id, r.last_at FROM recordings r
        WHERE r.project_id = $1 AND r.environment_id = $2 AND r.closed_at IS NOT NULL AND r.last_at >= $3
          AND ($4::timestamptz IS NULL OR (r.last_at, r.id) > ($4, $5::uuid))
        ORDER BY r.last_at, r.id LIMIT ${PAGE}
     ), open AS (
       SELECT p.id AS recording_id, f.id, EXISTS (
                SELECT 1 FROM friction_jobs j WHERE j.kind = 'match' AND j.subject = f.id AND j.state IN ('pending', 'claimed')) AS active
         FROM page p JOIN friction_findings f ON f.project_id = $1 AND f.recording_id = p.id
        WHERE btrim(f.narrative) <> '' AND NOT EXISTS (SELECT 1 FROM matching_decisions d WHERE d.finding_id = f.id)
     )
     SELECT p.id, p.last_at::text AS cursor,
            EXISTS (SELECT 1 FROM friction_scans s WHERE s.project_id = $1 AND s.recording_id = p.id) AS scanned,
            EXISTS (SELECT 1 FROM friction_jobs j WHERE j.kind = 'scan' AND j.project_id = $1 AND j.subject = p.id AND j.state IN ('pending', 'claimed')) AS scan_active,
            (SELECT count(*)::int FROM friction_findings f WHERE f.project_id = $1 AND f.recording_id = p.id AND btrim(f.narrative) <> '') AS findings,
            coalesce((SELECT array_agg(o.id ORDER BY o.id) FROM open o WHERE o.recording_id = p.id), '{}') AS undecided,
            coalesce((SELECT array_agg(o.id ORDER BY o.id) FROM open o WHERE o.recording_id = p.id AND o.active), '{}') AS undecided_active
       FROM page p ORDER BY p.last_at, p.id`,
    [...scope, after?.lastAt ?? null, after?.id ?? null],
  )
  return rows
}

/** Inserts the planned jobs in one statement; one already active for the same subject is left as it is. */
async function insertJobs(db: Db, options: BackfillOptions, planned: Planned[], times: Date[]): Promise<Array<{ kind: string; not_before: Date }>> {
  if (planned.length === 0) return []
  const { rows } = await db.query<{ kind: string; not_before: Date }>(
    `INSERT INTO friction_jobs (kind, project_id, environment_id, subject, source, not_before, allow_missing_embeddings)
     SELECT j.kind, $1, $2, j.subject, 'backfill', j.not_before, $6
       FROM unnest($3::text[], $4::uuid[], $5::timestamptz[]) AS j (kind, subject, not_before)
     ON CONFLICT (kind, subject) WHERE state IN ('pending', 'claimed') DO NOTHING
     RETURNING kind, not_before`,
    [options.projectId, options.environmentId, planned.map((p) => p.kind), planned.map((p) => p.subject), times, options.allowMissingEmbeddings],
  )
  return rows
}
