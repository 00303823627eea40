import t from 'tap'
import { createDb, type Db } from '../../../shared/db/index.js'
import { migrate } from '../../../shared/db/migrate.js'
import { applySeed, SEED_PROJECT_ID } from '../../../shared/db/seed.js'
import { decide, jobsOf, runSvc, seedEnvironment, seedFix, seedInvestigation, seedRecording, seedScan, seedTicket } from '../../helpers/investigation/friction-seed.js'
import { createTestDatabase } from '../../helpers/stack.js'
import { seededByHand } from '../../helpers/suite-invariants.js'

const P = SEED_PROJECT_ID
const KEY = { EMBEDDINGS_API_KEY: 'test-key' }

/** An environment with two known problems, their evidence and queued work, one inside and one outside the lookback. */
async function seeded(t: { teardown(fn: () => unknown): void }) {
  const url = await createTestDatabase(t)
  const db = createDb(url, { max: 2 })
  t.teardown(() => db.close())
  await migrate(db)
  await applySeed(db)
  const env = await seedEnvironment(db, P, 'production')
  const otherEnv = await seedEnvironment(db, P, 'staging')
  const pay = await seedTicket(db, P, env, 'candidate', 'new')
  const coupon = await seedTicket(db, P, env, 'queued')
  const elsewhere = await seedTicket(db, P, otherEnv, 'candidate', 'new')
  const recent = await seedRecording(db, P, env, 60)
  const [payFinding, notAProblem, undecided] = await seedScan(db, P, env, recent, ['Pay button does nothing', 'Scrolled a lot', 'Coupon rejected'])
  await decide(db, P, env, payFinding!, 'joined', pay.ticketId)
  await decide(db, P, env, notAProblem!, 'not_a_problem')
  // Scanned, and nothing found: after the reset the backfill counts it apart from decided ones.
  await seedScan(db, P, env, await seedRecording(db, P, env, 90), [])
  const old = await seedRecording(db, P, env, 20 * 24 * 60)
  const [oldFinding] = await seedScan(db, P, env, old, ['Coupon rejected'])
  await decide(db, P, env, oldFinding!, 'created', coupon.ticketId)
  await db.query(`INSERT INTO ticket_checks (ticket_id, project_id, recording_id, verdict, utc_day) VALUES ($1, $2, $3, 'confirmed', current_date)`, [pay.ticketId, P, old])
  await db.query(
    `INSERT INTO friction_jobs (kind, project_id, environment_id, subject, state) VALUES
       ('match', $1, $2, $3, 'pending'), ('confirm', $1, $2, $4, 'claimed'), ('scan', $1, $2, $5, 'pending'), ('confirm', $1, $6, $7, 'pending')`,
    [P, env, undecided, coupon.ticketId, old, otherEnv, elsewhere.ticketId],
  )
  const investigation = await seedInvestigation(db, coupon.issueId, P, 'queued')
  return { url, db, env, pay, coupon, elsewhere, recent, old, payFinding: payFinding!, notAProblem: notAProblem!, oldFinding: oldFinding!, investigation }
}

async function snapshot(db: Db): Promise<string> {
  const { rows } = await db.query<{ dump: string }>(
    `SELECT json_build_object(
       'tickets', (SELECT json_agg(t ORDER BY t.id) FROM tickets t), 'issues', (SELECT json_agg(i ORDER BY i.id) FROM issues i),
       'jobs', (SELECT json_agg(j ORDER BY j.id) FROM friction_jobs j), 'decisions', (SELECT json_agg(d ORDER BY d.finding_id) FROM matching_decisions d),
       'links', (SELECT json_agg(r ORDER BY r.issue_id, r.recording_id) FROM issue_recordings r), 'investigations', (SELECT json_agg(v ORDER BY v.id) FROM investigations v))::text AS dump`,
  )
  return rows[0]!.dump
}

t.test('reset archives the environment\'s known problems and fails their work; findings inside the lookback are decided again by a backfill', async (t) => {
  const s = await seeded(t)
  const args = ['reset-friction-tickets', '--project', P, '--environment', s.env, '--since', '14d']
  const before = await snapshot(s.db)
  const dry = runSvc(args, { DATABASE_URL: s.url })
  t.equal(dry.status, 1, 'without --confirm it does not do it')
  t.match(dry.stdout, /would archive 2 known problem\(s\) and 2 issue\(s\); fail 2 pending or claimed friction job\(s\) and 1 queued or running investigation\(s\); detach 2 recording link\(s\) from the archived issues; delete 2 matching decision\(s\) of findings in the last 14d/)
  t.match(dry.stderr, /nothing was changed: add --confirm to do it/)
  t.equal(await snapshot(s.db), before, 'and changed nothing')

  const done = runSvc([...args, '--confirm'], { DATABASE_URL: s.url })
  t.equal(done.status, 0, done.stderr)
  t.match(done.stdout, /archived 2 known problem\(s\) and 2 issue\(s\); failed 2 pending or claimed friction job\(s\)/)
  t.match(done.stdout, new RegExp(`^Next: svc backfill-tickets --project ${P} --environment ${s.env} --since 14d --rate <jobs a minute>\\. No need to lower FRICTION_MATCH_MAX_CONCURRENT`, 'm'), 'it says what to run next, and that the matcher cap may stay')
  const { rows: tickets } = await s.db.query<{ id: string; state: string; previous_state: string | null; status: string; previous_status: string | null }>(
    'SELECT t.id, t.state, t.previous_state, i.status, i.previous_status FROM tickets t JOIN issues i ON i.id = t.issue_id',
  )
  const byId = new Map(tickets.map((row) => [row.id, row]))
  t.match(byId.get(s.pay.ticketId), { state: 'archived', previous_state: 'candidate', status: 'archived', previous_status: 'new' })
  t.match(byId.get(s.coupon.ticketId), { state: 'archived', previous_state: 'queued', status: 'archived', previous_status: 'queued' })
  t.match(byId.get(s.elsewhere.ticketId), { state: 'candidate', status: 'new' }, 'another environment\'s known problem is untouched')
  const jobs = await jobsOf(s.db, P)
  t.same(jobs.filter((j) => j.state === 'failed').map((j) => [j.kind, j.error]).sort(), [['confirm', 'reset'], ['match', 'reset']], 'the match inside the lookback and the coupon\'s confirmation failed')
  t.same(jobs.filter((j) => j.state === 'pending').map((j) => j.kind).sort(), ['confirm', 'scan'], 'the scan and the other environment\'s work stay')
  const { rows: stopped } = await s.db.query('SELECT v.state, o.reason_code FROM investigations v JOIN investigation_outcomes o ON o.investigation_id = v.id WHERE v.id = $1', [s.investigation])
  t.same(stopped, [{ state: 'needs_human', reason_code: 'known_problems_reset' }], 'the queued investigation stopped with the reason')
  const { rows: links } = await s.db.query('SELECT count(*)::int AS n FROM issue_recordings')
  t.equal(links[0]!.n, 0, 'recordings detached from the archived issues')
  const { rows: decisions } = await s.db.query<{ finding_id: string }>('SELECT finding_id FROM matching_decisions')
  t.same(decisions.map((d) => d.finding_id), [s.oldFinding], 'decisions inside the lookback deleted (not_a_problem too); the older one stays')
  const { rows: audit } = await s.db.query('SELECT (SELECT count(*)::int FROM ticket_matches) AS matches, (SELECT count(*)::int FROM ticket_checks) AS checks, (SELECT count(*)::int FROM recordings) AS recordings')
  t.same(audit, [{ matches: 2, checks: 1, recordings: 3 }], 'recordings, checks and matches stay for audit')

  const rerun = runSvc([...args, '--confirm'], { DATABASE_URL: s.url })
  t.equal(rerun.status, 0, rerun.stderr)
  t.match(rerun.stdout, /archived 0 known problem\(s\) and 0 issue\(s\); failed 0 pending/, 'a rerun finds nothing left to archive')
  const { rows: kept } = await s.db.query<{ previous_state: string }>('SELECT previous_state FROM tickets WHERE id = $1', [s.coupon.ticketId])
  t.equal(kept[0]!.previous_state, 'queued', 'and keeps the state each had')

  const backfill = runSvc(['backfill-tickets', '--project', P, '--environment', s.env, '--since', '14d', '--rate', '60'], { DATABASE_URL: s.url, ...KEY })
  t.equal(backfill.status, 0, backfill.stderr)
  t.match(backfill.stdout, /scheduled 3 job\(s\) \(0 scan, 3 match\)/, 'the backfill decides the three findings inside the lookback again')
  t.match(backfill.stdout, /skipped 0 with a job already pending or claimed, 0 already decided and 1 scanned with no finding to match\./, 'the recording without findings is not called decided')
})

t.test('reset refuses while a fix is in flight or its pull request is open, changing nothing', async (t) => {
  for (const state of ['queued', 'fixing', 'pr_draft'] as const) {
    const s = await seeded(t)
    await seededByHand(s.db)
    const fixing = await seedTicket(s.db, P, s.env, state === 'queued' ? 'investigated' : state)
    await seedFix(s.db, fixing.issueId, P, state)
    const before = await snapshot(s.db)
    const refused = runSvc(['reset-friction-tickets', '--project', P, '--environment', s.env, '--since', '14d', '--confirm'], { DATABASE_URL: s.url })
    t.equal(refused.status, 1, `refused with a fix ${state}`)
    t.match(refused.stderr, /refused: 1 known problem\(s\) of this environment have a fix in flight or a fix pull request open/)
    t.match(refused.stderr, { queued: /a fix is queued/, fixing: /a fix is being built/, pr_draft: /its fix pull request is open \(https:\/\/github\.com\/acme\/shop\/pull\/7\)/ }[state])
    t.match(refused.stderr, new RegExp(`${fixing.issueId} "Pay button does nothing"`))
    t.match(refused.stderr, /Nothing was changed/)
    t.equal(await snapshot(s.db), before, 'nothing changed')
  }
})

t.test('reset refuses bad flags with exit 2', async (t) => {
  const s = await seeded(t)
  const run = (args: string[]) => runSvc(['reset-friction-tickets', ...args], { DATABASE_URL: s.url })
  const cases: Array<[string[], RegExp]> = [
    [['--environment', s.env, '--since', '14d', '--confirm'], /--project is required/],
    [['--project', P, '--since', '14d'], /--environment is required/],
    [['--project', P, '--environment', s.env], /--since is required/],
    [['--project', P, '--environment', 'staging', '--since', '14d'], /--environment must be an environment UUID/],
    [['--project', P, '--environment', s.env, '--since', '14 days', '--confirm'], /--since must be a whole number of hours or days/],
  ]
  const before = await snapshot(s.db)
  for (const [args, message] of cases) {
    const result = run(args)
    t.equal(result.status, 2, args.join(' '))
    t.match(result.stderr, message)
  }
  const unknown = run(['--project', P, '--environment', '11111111-1111-4111-8111-111111111111', '--since', '14d', '--confirm'])
  t.equal(unknown.status, 1)
  t.match(unknown.stderr, /no environment 11111111-1111-4111-8111-111111111111 in project/)
  t.equal(await snapshot(s.db), before, 'nothing changed')
})

t.test('svc reset-friction-tickets --help sends the operator to the backfill without lowering the matcher cap, as the code allows', async (t) => {
  const help = runSvc(['reset-friction-tickets', '--help'], {})
  t.equal(help.status, 0)
  const text = help.stdout.replace(/\s+/g, ' ')
  t.match(text, /FRICTION_MATCH_MAX_CONCURRENT can stay as it is/)
  t.notMatch(text, /FRICTION_MATCH_MAX_CONCURRENT=1/, 'no advice to run one matcher')
  t.match(text, /svc environments --project/, 'and where the environment UUIDs are')
})
