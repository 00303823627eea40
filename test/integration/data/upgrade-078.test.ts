/**
 * docs/upgrade-078.md walked on a database that holds data from before 078: friction groups of the
 * old release (one being fixed, one with an open pull request, others with queued work), error
 * issues and recordings; then the migrate step, the retire script in one transaction (twice), and
 * the backfill of the last day and then of 14 days at 60 a minute (and once more).
 */
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { createDb, type Db } from '../../../shared/db/index.js'
import { migrate, readMigrations } from '../../../shared/db/migrate.js'
import { applySeed, SEED_PROJECT_ID } from '../../../shared/db/seed.js'
import { jobsOf, runSvc, seedEnvironment, seedFix, seedInvestigation, seedRecording, seedTicket } from '../../helpers/investigation/friction-seed.js'
import { createTestDatabase } from '../../helpers/stack.js'

const P = SEED_PROJECT_ID
const RETIRE = fileURLToPath(new URL('../../../scripts/retire-friction-buckets.sql', import.meta.url))

/** A group as the old release made them. */
async function oldGroup(db: Db, kind: 'friction' | 'error', status: string): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO issues (project_id, kind, fingerprint, grouping_version, status, title, first_seen, last_seen)
     VALUES ($1, $2, md5(random()::text), 4, $3, 'Checkout button rage-clicked', now() - interval '3 days', now()) RETURNING id`,
    [P, kind, status],
  )
  return rows[0]!.id
}

async function statuses(db: Db): Promise<Record<string, { status: string; previous_status: string | null }>> {
  const { rows } = await db.query<{ id: string; status: string; previous_status: string | null }>('SELECT id, status, previous_status FROM issues')
  return Object.fromEntries(rows.map((r) => [r.id, { status: r.status, previous_status: r.previous_status }]))
}

function retire(url: string): string {
  return execFileSync('psql', ['-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-f', RETIRE, url], { encoding: 'utf8' })
}

t.test('the upgrade across 078 as the runbook walks it: migrate, retire in one transaction, backfill 1d then 14d', async (t) => {
  const url = await createTestDatabase(t)
  const db = createDb(url, { max: 2 })
  t.teardown(() => db.close())

  // The release before 078, with its data.
  await migrate(db, readMigrations().filter((m) => m.version <= 10))
  await applySeed(db)
  const env = await seedEnvironment(db, P, 'production')
  const errorIssue = await oldGroup(db, 'error', 'new')
  const idle = await oldGroup(db, 'friction', 'new')
  const queued = await oldGroup(db, 'friction', 'queued')
  const investigation = await seedInvestigation(db, queued, P, 'queued')
  const waitingFix = await oldGroup(db, 'friction', 'investigated')
  const queuedFix = await seedFix(db, waitingFix, P, 'queued')
  const fixing = await oldGroup(db, 'friction', 'fixing')
  const runningFix = await seedFix(db, fixing, P, 'fixing')
  const drafted = await oldGroup(db, 'friction', 'pr_draft')
  await seedFix(db, drafted, P, 'pr_draft')
  const lastDay = [await seedRecording(db, P, env, 60), await seedRecording(db, P, env, 600)]
  const lastTwoWeeks = [await seedRecording(db, P, env, 3 * 24 * 60), await seedRecording(db, P, env, 5 * 24 * 60), await seedRecording(db, P, env, 13 * 24 * 60)]
  await seedRecording(db, P, env, 30 * 24 * 60)
  await seedRecording(db, P, env, 5, { open: true })

  // 1. The migrate step.
  const migrated = await migrate(db)
  t.equal(migrated.applied[0]?.version, 78)
  // A known problem the new release made: its group is live.
  const live = await seedTicket(db, P, env, 'candidate', 'new')

  // 3. The retire script, in one transaction.
  t.same(retire(url).trim().split('\n'), ['3', '1', '1'], 'archived 3 groups, failed 1 investigation and 1 fix')
  const after = await statuses(db)
  t.same(after[idle], { status: 'archived', previous_status: 'new' })
  t.same(after[queued], { status: 'archived', previous_status: 'queued' })
  t.same(after[waitingFix], { status: 'archived', previous_status: 'investigated' })
  t.same(after[fixing], { status: 'fixing', previous_status: null }, 'a group being fixed is left intact')
  t.same(after[drafted], { status: 'pr_draft', previous_status: null }, 'a group with a pull request is left intact')
  t.same(after[live.issueId], { status: 'new', previous_status: null }, 'a group with a live known problem is left')
  t.same(after[errorIssue], { status: 'new', previous_status: null }, 'error issues are not friction groups')
  const { rows: work } = await db.query<{ id: string; state: string; reason: string }>(
    `SELECT v.id, v.state, o.reason_code AS reason FROM investigations v JOIN investigation_outcomes o ON o.investigation_id = v.id WHERE v.id = $1
     UNION ALL SELECT f.id, f.state, f.reason_code FROM fixes f WHERE f.id = ANY($2::uuid[]) ORDER BY 1`,
    [investigation, [queuedFix, runningFix]],
  )
  t.same(
    Object.fromEntries(work.map((w) => [w.id, [w.state, w.reason]])),
    { [investigation]: ['needs_human', 'friction_group_retired'], [queuedFix]: ['needs_human', 'friction_group_retired'], [runningFix]: ['fixing', ''] },
    'the archived groups\' queued investigation and fix failed with the reason; the running fix of the intact group runs on',
  )
  t.same(retire(url).trim().split('\n'), ['0', '0', '0'], 'a rerun changes nothing more')
  t.same(await statuses(db), after, 'and keeps every previous status')

  // 4. New workers up; the backfill of the last day, then of 14 days, at 60 a minute.
  const base = ['backfill-tickets', '--project', P, '--environment', env, '--rate', '60']
  const day = runSvc([...base, '--since', '1d'], { DATABASE_URL: url, EMBEDDINGS_API_KEY: 'test-key' })
  t.equal(day.status, 0, day.stderr)
  t.match(day.stdout, /2 closed recording\(s\) in the last 1d: scheduled 2 job\(s\) \(2 scan, 0 match\)/)
  const weeks = runSvc([...base, '--since', '14d'], { DATABASE_URL: url, EMBEDDINGS_API_KEY: 'test-key' })
  t.equal(weeks.status, 0, weeks.stderr)
  t.match(weeks.stdout, /5 closed recording\(s\) in the last 14d: scheduled 3 job\(s\) \(3 scan, 0 match\).*skipped 2 with a job already pending or claimed/)
  const jobs = await jobsOf(db, P)
  t.same(jobs.map((j) => j.subject), [...lastDay.reverse(), ...lastTwoWeeks.reverse()], 'the last day first (oldest first), then the rest queued behind it')
  t.same(jobs.map((j, i) => (i === 0 ? 0 : j.not_before.getTime() - jobs[i - 1]!.not_before.getTime())), [0, 1000, 1000, 1000, 1000], 'one a second: 60 a minute')
  t.ok(jobs.every((j) => j.kind === 'scan' && j.state === 'pending' && j.source === 'backfill'))
  const rerun = runSvc([...base, '--since', '14d'], { DATABASE_URL: url, EMBEDDINGS_API_KEY: 'test-key' })
  t.equal(rerun.status, 0, rerun.stderr)
  t.match(rerun.stdout, /scheduled 0 job\(s\).*skipped 5 with a job already pending or claimed/, 'a rerun skips what is scheduled')
})
