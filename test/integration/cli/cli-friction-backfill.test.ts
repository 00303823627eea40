import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { createDb } from '../../../shared/db/index.js'
import { migrate, readMigrations } from '../../../shared/db/migrate.js'
import { applySeed, SEED_PROJECT_ID } from '../../../shared/db/seed.js'
import { decide, jobsOf, runSvc, seedEnvironment, seedRecording, seedScan, seedTicket } from '../../helpers/investigation/friction-seed.js'
import { SVC } from '../../helpers/processes.js'
import { createTestDatabase } from '../../helpers/stack.js'
import { childEnv } from '../../helpers/env.js'

const P = SEED_PROJECT_ID
const KEY = { EMBEDDINGS_API_KEY: 'test-key' }

async function migratedDb(t: { teardown(fn: () => unknown): void }) {
  const url = await createTestDatabase(t)
  const db = createDb(url, { max: 2 })
  t.teardown(() => db.close())
  await migrate(db)
  await applySeed(db)
  return { url, db }
}

t.test('backfill schedules scans and the undecided findings at the rate, skipping what is active or decided, and reruns schedule only what is missing', async (t) => {
  const { url, db } = await migratedDb(t)
  const env = await seedEnvironment(db, P, 'production')
  const other = await seedEnvironment(db, P, 'staging')
  const unscanned = await seedRecording(db, P, env, 30)
  const partial = await seedRecording(db, P, env, 120)
  const [joined, undecided] = await seedScan(db, P, env, partial, ['Pay button does nothing', 'Coupon field rejects input', ''])
  const { ticketId } = await seedTicket(db, P, env, 'candidate')
  await decide(db, P, env, joined!, 'joined', ticketId)
  const decided = await seedRecording(db, P, env, 180)
  const [a, b] = await seedScan(db, P, env, decided, ['Pay button does nothing', 'User scrolled a lot'])
  await decide(db, P, env, a!, 'joined', ticketId)
  await decide(db, P, env, b!, 'not_a_problem')
  const emptyOnly = await seedRecording(db, P, env, 240)
  await seedScan(db, P, env, emptyOnly, ['', '  '])
  const nothingFound = await seedRecording(db, P, env, 270)
  await seedScan(db, P, env, nothingFound, [])
  const scanning = await seedRecording(db, P, env, 300)
  await db.query(`INSERT INTO friction_jobs (kind, project_id, environment_id, subject) VALUES ('scan', $1, $2, $3)`, [P, env, scanning])
  const matching = await seedRecording(db, P, env, 360)
  const [busy] = await seedScan(db, P, env, matching, ['Dead link in footer'])
  await db.query(`INSERT INTO friction_jobs (kind, project_id, environment_id, subject, state) VALUES ('match', $1, $2, $3, 'claimed')`, [P, env, busy])
  await seedRecording(db, P, env, 10, { open: true })
  const old = await seedRecording(db, P, env, 3 * 24 * 60)
  await seedRecording(db, P, other, 30)

  const base = ['backfill-tickets', '--project', P, '--environment', env]
  const first = runSvc([...base, '--since', '1d', '--rate', '60'], { DATABASE_URL: url, ...KEY })
  t.equal(first.status, 0, first.stderr)
  t.equal(first.stderr, '', 'no warning when the key is set')
  t.match(first.stdout, /^embeddings: Where this command runs, embeddings come from embeddings-openai \(EMBEDDINGS_API_KEY is set\)/m, 'what workers configured alike do')
  t.match(first.stdout, /7 closed recording\(s\) in the last 1d: scheduled 2 job\(s\) \(1 scan, 1 match\) at 60\/min/)
  t.match(first.stdout, /skipped 2 with a job already pending or claimed, 1 already decided and 2 scanned with no finding to match\./, 'recordings with nothing to match are not counted as decided')
  t.match(first.stdout, /^examined 7\/7 recording\(s\): 2 job\(s\) scheduled, 5 recording\(s\) skipped$/m, 'a plain progress line when stdout is not a terminal')
  t.notMatch(first.stdout, /\r/, 'no carriage returns in a pipe')
  let jobs = (await jobsOf(db, P)).filter((j) => j.source === 'backfill')
  t.same(jobs.map((j) => [j.kind, j.subject]), [['match', undecided], ['scan', unscanned]], 'oldest recording first: its undecided finding, then the unscanned one')
  t.equal(jobs[1]!.not_before.getTime() - jobs[0]!.not_before.getTime(), 1000, '60 a minute: one second apart')
  t.ok(jobs.every((j) => j.state === 'pending' && !j.allow_missing_embeddings))

  const wide = runSvc([...base, '--since', '14d', '--rate', '30', '--allow-missing-embeddings'], { DATABASE_URL: url, EMBEDDINGS_API_KEY: undefined })
  t.equal(wide.status, 0, wide.stderr)
  t.equal(wide.stderr, '', 'no warning: without a key the workers embed with embeddings-local, and no job fails')
  t.match(wide.stdout, /^embeddings: Where this command runs, embeddings come from embeddings-local \(the default without EMBEDDINGS_API_KEY\).*no job fails for want of a key\. --allow-missing-embeddings changes nothing on such a worker/m)
  t.match(wide.stdout, /8 closed recording\(s\) in the last 14d: scheduled 1 job\(s\) \(1 scan, 0 match\)/)
  t.match(wide.stdout, /skipped 4 with a job already pending or claimed, 1 already decided and 2 scanned with no finding to match/)
  jobs = (await jobsOf(db, P)).filter((j) => j.source === 'backfill')
  const added = jobs.find((j) => j.subject === old)!
  t.ok(added.allow_missing_embeddings, 'the flag is recorded on the job for the worker')
  t.equal(added.not_before.getTime() - jobs[1]!.not_before.getTime(), 2000, 'the second run queues behind the first, at its own rate')

  const again = runSvc([...base, '--since', '14d', '--rate', '30'], { DATABASE_URL: url, ...KEY })
  t.equal(again.status, 0, again.stderr)
  t.match(again.stdout, /scheduled 0 job\(s\)/, 'a rerun while they are pending schedules nothing')
  t.equal((await jobsOf(db, P)).length, jobs.length + 2)

  // Workers ran them: the scan found one problem; the unembedded old scan failed; the match decided.
  await db.query(`UPDATE friction_jobs SET state = 'completed' WHERE subject = ANY($1::uuid[])`, [[unscanned, undecided]])
  await db.query(`UPDATE friction_jobs SET state = 'failed', error = 'no embeddings' WHERE subject = $1`, [old])
  const [found] = await seedScan(db, P, env, unscanned, ['Pay button does nothing'])
  await decide(db, P, env, undecided!, 'created')
  const resumed = runSvc([...base, '--since', '14d', '--rate', '60'], { DATABASE_URL: url, ...KEY })
  t.equal(resumed.status, 0, resumed.stderr)
  t.match(resumed.stdout, /scheduled 2 job\(s\) \(1 scan, 1 match\)/)
  const pending = (await jobsOf(db, P)).filter((j) => j.state === 'pending' && j.source === 'backfill')
  t.same(pending.map((j) => j.subject).sort(), [found, old].sort(), 'the failed scan again, and the new finding; the decided ones not')
})

t.test("backfill says what workers configured like its own environment do with the jobs, what the workers last did, and warns only when jobs would fail or the two disagree", async (t) => {
  const { url, db } = await migratedDb(t)
  const env = await seedEnvironment(db, P, 'production')
  const recording = await seedRecording(db, P, env, 30)
  const run = (extra: Record<string, string | undefined>, flags: string[] = []) =>
    runSvc(['backfill-tickets', '--project', P, '--environment', env, '--since', '1d', '--rate', '60', ...flags], { DATABASE_URL: url, EMBEDDINGS_API_KEY: undefined, SVC_EMBEDDINGS_PLUGIN: undefined, ...extra })

  const local = run({})
  t.equal(local.status, 0, local.stderr)
  t.equal(local.stderr, '', 'the default local embedder needs no key: nothing to warn about')
  t.match(local.stdout, /^embeddings: Where this command runs, embeddings come from embeddings-local .* This command reads its own environment, not the workers'\. No finding of this environment has been matched yet/m)
  t.notMatch(local.stdout + local.stderr, /EMBEDDINGS_API_KEY is not set|fails each job/, 'no claim that a worker without a key fails the jobs')

  const off = run({ SVC_EMBEDDINGS_PLUGIN: 'none' })
  t.equal(off.status, 0, off.stderr)
  t.match(off.stderr, /^svc backfill-tickets: warning: Embeddings are off where this command runs \(SVC_EMBEDDINGS_PLUGIN=none\): a worker configured so fails each match job with embeddings_missing, unless the backfill is run with --allow-missing-embeddings/m)
  const offAllowed = run({ SVC_EMBEDDINGS_PLUGIN: 'none' }, ['--allow-missing-embeddings'])
  t.equal(offAllowed.stderr, '', 'allowed: the jobs run, nothing to warn about')
  t.match(offAllowed.stdout, /with --allow-missing-embeddings it runs them anyway, every problem its own known problem/)

  // The workers matched with the OpenAI plugin's vectors, so this environment (local) is not theirs.
  const [finding] = await seedScan(db, P, env, recording, ['Pay button does nothing'])
  await db.query(`UPDATE friction_findings SET embedding_model = 'openai:text-embedding-3-small' WHERE id = $1`, [finding])
  const { ticketId } = await seedTicket(db, P, env, 'candidate')
  await decide(db, P, env, finding!, 'created', ticketId)
  const differs = run({})
  t.match(differs.stderr, /warning: Where this command runs, embeddings come from embeddings-local .* latest decision in this environment \(\d{4}-[^)]+\) used vectors of openai:text-embedding-3-small\. So the workers are configured otherwise than this environment/)
  t.equal(run({ EMBEDDINGS_API_KEY: 'test-key' }).stderr, '', 'the same plugin as the workers: no warning')

  // Later, a worker without embeddings failed a match job.
  await db.query(
    `INSERT INTO friction_jobs (kind, project_id, environment_id, subject, state, error, updated_at) VALUES ('match', $1, $2, $3, 'failed', 'embeddings_missing: no embeddings', now() + interval '1 minute')`,
    [P, env, finding],
  )
  const missing = run({ EMBEDDINGS_API_KEY: 'test-key' })
  t.match(missing.stderr, /warning: .*A match job of this environment failed for want of embeddings at \d{4}-[^:]+:\d\d:[^ ]+: a worker there runs with SVC_EMBEDDINGS_PLUGIN=none\. So the workers are configured otherwise/)
})

t.test('backfill refuses bad flags with exit 2 and a missing project, environment or migration with exit 1, scheduling nothing', async (t) => {
  const { url, db } = await migratedDb(t)
  const env = await seedEnvironment(db, P, 'production')
  await seedRecording(db, P, env, 30)
  const run = (args: string[], extra: Record<string, string | undefined> = {}) => runSvc(['backfill-tickets', ...args], { DATABASE_URL: url, ...KEY, ...extra })
  const ok = ['--project', P, '--environment', env, '--since', '1d', '--rate', '60']
  const without = (flag: string) => ok.filter((_, i) => ok[i] !== flag && ok[i - 1] !== flag)
  const cases: Array<[string[], RegExp]> = [
    [without('--project'), /--project is required: the project's UUID/],
    [without('--environment'), /--environment is required/],
    [without('--since'), /--since is required: how far back to look/],
    [without('--rate'), /--rate is required: how many jobs start per minute/],
    [['--project', 'e2e', ...ok.slice(2)], /--project must be a project UUID like .*, got "e2e"/],
    [[...ok.slice(0, 2), '--environment', 'production\u001b[31m', ...ok.slice(4)], /--environment must be an? environment UUID.*got "production\?\[31m"/],
    [[...ok.slice(0, 4), '--since', '2 weeks', ...ok.slice(6)], /--since must be a whole number of hours or days from 1h to 3650d \(for example 1d or 14d\), got "2 weeks"/],
    [[...ok.slice(0, 4), '--since', '0d', ...ok.slice(6)], /--since must be/],
    [[...ok.slice(0, 4), '--since', '3651d', ...ok.slice(6)], /--since must be/],
    [[...ok.slice(0, 6), '--rate', '0'], /--rate must be a number of jobs per minute above 0 and at most 6000/],
    [[...ok.slice(0, 6), '--rate', 'fast'], /--rate must be/],
    [[...ok.slice(0, 6), '--rate', '7000'], /--rate must be/],
  ]
  for (const [args, message] of cases) {
    const result = run(args)
    t.equal(result.status, 2, `exit 2 for ${args.join(' ')}`)
    t.match(result.stderr, message)
    t.notOk(result.stderr.includes('\u001b'), 'no escape sequence reaches the terminal')
  }
  const noEnv = run([...ok.slice(0, 2), '--environment', '11111111-1111-4111-8111-111111111111', ...ok.slice(4)])
  t.equal(noEnv.status, 1)
  t.match(noEnv.stderr, new RegExp(`no environment 11111111-1111-4111-8111-111111111111 in project ${P}\\. Its environments: development \\(.+\\), production \\(${env}\\)`))
  const noProject = run(['--project', '11111111-1111-4111-8111-111111111111', ...ok.slice(2)])
  t.equal(noProject.status, 1)
  t.match(noProject.stderr, /no project 11111111-1111-4111-8111-111111111111/)
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-backfill-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const noUrl = run(ok, { DATABASE_URL: undefined, SVC_DATA_DIR: dataDir })
  t.equal(noUrl.status, 2)
  t.match(noUrl.stderr, /DATABASE_URL is not set, and there is no embedded database in .*postgres:\/\/svc:svc@localhost:5434\/svc/)
  t.equal((await jobsOf(db, P)).length, 0, 'nothing was scheduled by any of them')

  const oldUrl = await createTestDatabase(t)
  const oldDb = createDb(oldUrl, { max: 1 })
  t.teardown(() => oldDb.close())
  await migrate(oldDb, readMigrations().filter((m) => m.version <= 10))
  const unmigrated = runSvc(['backfill-tickets', ...ok], { DATABASE_URL: oldUrl, ...KEY })
  t.equal(unmigrated.status, 1)
  t.match(unmigrated.stderr, /not migrated to 078 \(known problems\): run "svc migrate" first/)
})

t.test('backfill pages through more recordings than one read holds, whatever their timestamps\' precision', async (t) => {
  const { url, db } = await migratedDb(t)
  const env = await seedEnvironment(db, P, 'production')
  // Timestamps with microseconds, as PostgreSQL's now() makes them, and a shared one across a page boundary.
  await db.query(
    `INSERT INTO recordings (project_id, id, environment_id, session_id, started_at, last_at, received_at, closed_at)
     SELECT $1, gen_random_uuid(), $2, 's' || g, t, t, t, now() FROM generate_series(1, 1201) g,
            LATERAL (SELECT now() - (CASE WHEN g BETWEEN 490 AND 510 THEN 490 ELSE g END) * interval '1 minute 0.000001 second' AS t) at`,
    [P, env],
  )
  const result = runSvc(['backfill-tickets', '--project', P, '--environment', env, '--since', '1d', '--rate', '6000'], { DATABASE_URL: url, ...KEY })
  t.equal(result.status, 0, result.stderr)
  t.match(result.stdout, /^examined 500\/1201 recording\(s\)/m)
  t.match(result.stdout, /^examined 1201\/1201 recording\(s\): 1201 job\(s\) scheduled/m)
  const { rows } = await db.query<{ jobs: number; subjects: number }>('SELECT count(*)::int AS jobs, count(DISTINCT subject)::int AS subjects FROM friction_jobs')
  t.same(rows[0], { jobs: 1201, subjects: 1201 }, 'every recording once')
})

t.test('backfill on a terminal rewrites one progress line in place', async (t) => {
  const { url, db } = await migratedDb(t)
  const env = await seedEnvironment(db, P, 'production')
  for (let i = 0; i < 3; i++) await seedRecording(db, P, env, 30 + i)
  // script(1) gives the command a pseudo-terminal, as an operator's shell would.
  const command = [process.execPath, SVC, 'backfill-tickets', '--project', P, '--environment', env, '--since', '1d', '--rate', '60'].map((a) => `'${a}'`).join(' ')
  const out = execFileSync('script', ['-qec', command, '/dev/null'], { env: childEnv({ DATABASE_URL: url, LOG_LEVEL: 'silent', ...KEY }), encoding: 'utf8' })
  t.ok(out.includes('\r\u001b[2Kexamined 3/3 recording(s): 3 job(s) scheduled, 0 recording(s) skipped\r\n'), 'the line is rewritten in place, then ended')
  t.match(out, /scheduled 3 job\(s\) \(3 scan, 0 match\)/)
  t.equal((await jobsOf(db, P)).length, 3)
})

t.test('svc backfill-tickets --help says what reruns skip and what the workers need', async (t) => {
  const help = runSvc(['backfill-tickets', '--help'], {})
  t.equal(help.status, 0)
  t.match(help.stdout, /Reruns skip recordings and findings with a job pending or claimed/)
  t.match(help.stdout, /--allow-missing-embeddings/)
})
