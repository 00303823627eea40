import t, { type Test } from 'tap'
import type { Matcher } from '../../../services/matcher/index.js'
import { startWorker, type Worker } from '../../../services/worker/index.js'
import { createLogger } from '../../../shared/log.js'
import { createObjectStore, type ObjectStore } from '../../../shared/object-store.js'
import { seedEnvironment, seedRecording as seedRows, seedScan } from '../../helpers/investigation/friction-seed.js'
import { addAlert, click, pageLoad, seedRecording, type RrwebEvent } from '../../helpers/browser/recording-fixture.js'
import { startTestStack, waitFor, type TestStack } from '../../helpers/stack.js'

// Real processes and several stacks in one file: past 80 s under CI load on 2 cores, near tap's
// 120 s default for a file, though each wait inside stays bounded.
t.setTimeout(5 * 60_000)

const T0 = Date.parse('2026-11-20T09:00:00.000Z')
/** Short leases: the matcher sweeps every half lease, so a test waits half a second for a pass. */
const QUICK = { SVC_SERVICES: 'matcher', SVC_STREAM_LEASE_MS: '1000' }

/** A session on the checkout page with five quick clicks on its pay button that change nothing: a rage click. */
function rageChunks(start: number): Map<number, RrwebEvent[]> {
  const checkout = pageLoad(start, 'https://shop.example.com/checkout?step=2', { heading: 'Checkout', paragraph: 'Total: 42.00 EUR', button: 'Pay now' })
  const rage = [0, 300, 600, 900, 1200].map((offset) => click(start + 1000 + offset, checkout.buttonId))
  return new Map([[0, [...checkout.events, ...rage, click(start + 40_000, 7)]]])
}

async function rows<R>(stack: TestStack, sql: string, values: unknown[] = []): Promise<R[]> {
  return (await stack.db.query(sql, values)).rows as R[]
}

function matcherOf(worker: Worker): Matcher {
  return worker.services.find((service) => service.name === 'matcher') as Matcher
}

/** A second worker of the stack, hosting the matcher with the caps given. */
async function matcherWorker(t: Test, stack: TestStack, objects: ObjectStore, caps: { matchMaxConcurrent: number; confirmMaxConcurrent: number }): Promise<Worker> {
  const worker = await startWorker({ db: stack.db, objects, redis: stack.redis, keys: stack.keys, log: createLogger(stack.config.logLevel), services: ['matcher'], timing: stack.config.stream, healthPort: 0, healthHost: '127.0.0.1', matcher: { limits: { ...stack.config.friction, ...caps }, embeddings: stack.config } })
  t.teardown(() => worker.stop())
  return worker
}

t.test('a closed recording is scanned and its rage click opens a known problem; the same rage click in a second recording joins it', async (t) => {
  const stack = await startTestStack(t, { ingress: false, worker: true, env: QUICK })
  const objects = await createObjectStore(stack.config.objectStore)
  const first = await seedRecording(stack.db, objects, { projectId: stack.projectId, user: { id: 'user-1' }, chunks: rageChunks(T0), closed: true })

  const [created] = await waitFor(async () => {
    const found = await rows<{ decision: string; ticket_id: string; decided_by: string; recording_id: string }>(stack, 'SELECT d.decision, d.ticket_id, d.decided_by, f.recording_id FROM matching_decisions d JOIN friction_findings f ON f.id = d.finding_id')
    return found.length > 0 ? found : undefined
  })
  t.match(created, { decision: 'created', decided_by: 'embeddings', recording_id: first }, 'the finding opened a known problem, compared by its vector')
  const [issue] = await rows<{ kind: string; fingerprint: string; title: string }>(stack, 'SELECT i.kind, i.fingerprint, i.title FROM issues i JOIN tickets k ON k.issue_id = i.id WHERE k.id = $1', [created!.ticket_id])
  t.match(issue, { kind: 'friction', fingerprint: `ticket:${created!.ticket_id}`, title: /^Rage click: 5 clicks/ }, 'on its friction-kind issue')

  const second = await seedRecording(stack.db, objects, { projectId: stack.projectId, user: { id: 'user-2' }, chunks: rageChunks(T0 + 3_600_000), closed: true })
  const joined = await waitFor(async () => (await rows<{ decision: string; ticket_id: string }>(stack, 'SELECT d.decision, d.ticket_id FROM matching_decisions d JOIN friction_findings f ON f.id = d.finding_id WHERE f.recording_id = $1', [second]))[0])
  t.match(joined, { decision: 'joined', ticket_id: created!.ticket_id }, 'the second recording joined the same known problem')
  const [ticket] = await rows<{ matched: number; users: number }>(stack, 'SELECT matched, users FROM tickets')
  t.same(ticket, { matched: 2, users: 2 }, 'one known problem, seen in two recordings by two users')
  const jobs = await rows<{ kind: string; state: string; attempts: number; started_at: Date | null }>(stack, 'SELECT kind, state, attempts, started_at FROM friction_jobs ORDER BY created_at')
  t.equal(jobs.length, 2, 'a match job per finding')
  t.ok(jobs.every((job) => job.kind === 'match' && job.state === 'completed' && job.attempts === 1 && job.started_at !== null), 'both completed on their first attempt')

  const health = await matcherOf(stack.worker!).details!()
  t.match(health.join('\n'), /friction match: running=\d+ max_concurrent=2 embeddings=local:hashed-ngrams-v1/, '/health names the cap and the model')
  t.match(health.join('\n'), /friction_jobs match: pending=0 claimed=0 failed=0/)
})

t.test('with both caps at 0 nothing is scanned or matched and jobs stay pending; a worker with the caps back drains them', async (t) => {
  const stack = await startTestStack(t, { ingress: false, worker: true, env: { ...QUICK, FRICTION_MATCH_MAX_CONCURRENT: '0', FRICTION_CONFIRM_MAX_CONCURRENT: '0' } })
  const objects = await createObjectStore(stack.config.objectStore)
  const recording = await seedRecording(stack.db, objects, { projectId: stack.projectId, user: { id: 'user-1' }, chunks: rageChunks(T0), closed: true })
  const environment = await seedEnvironment(stack.db, stack.projectId, 'production')
  const scanned = await seedRows(stack.db, stack.projectId, environment, 5)
  const [finding] = await seedScan(stack.db, stack.projectId, environment, scanned, ['Rage click: 4 clicks in 0.9 s on button#pay on /checkout; nothing changed on the page.'])
  await stack.db.query(`INSERT INTO friction_jobs (kind, project_id, environment_id, subject) VALUES ('match', $1, $2, $3)`, [stack.projectId, environment, finding])

  const paused = matcherOf(stack.worker!)
  await paused.sweepNow()
  await paused.sweepNow()
  t.same(await rows(stack, 'SELECT recording_id FROM friction_scans WHERE recording_id = $1', [recording]), [], 'the closed recording is not scanned')
  t.same(await rows(stack, 'SELECT state, lease_until FROM friction_jobs'), [{ state: 'pending', lease_until: null }], 'the match job stays pending, not even dispatched')
  t.equal(await stack.redis.xlen(stack.keys.friction), 0, 'nothing is published on stream:friction')
  t.match((await paused.details!()).join('\n'), /max_concurrent=0 \(paused: FRICTION_MATCH_MAX_CONCURRENT=0\)[^\n]*\n[^\n]*\(paused: FRICTION_CONFIRM_MAX_CONCURRENT=0\)/, '/health says both are paused')
  t.match((await paused.details!()).join('\n'), /friction_jobs match: pending=1 claimed=0 failed=0/)

  await stack.worker!.stop()
  await matcherWorker(t, stack, objects, { matchMaxConcurrent: 2, confirmMaxConcurrent: 1 })
  const decided = await waitFor(async () => {
    const found = await rows<{ recording_id: string; decision: string }>(stack, 'SELECT f.recording_id, d.decision FROM matching_decisions d JOIN friction_findings f ON f.id = d.finding_id ORDER BY f.recording_id')
    return found.length === 2 ? found : undefined
  })
  t.same(decided.map((row) => row.recording_id).sort(), [recording, scanned].sort(), 'the waiting finding and the unscanned recording were both decided')
  const unfinished = await waitFor(async () => {
    const left = await rows(stack, `SELECT state FROM friction_jobs WHERE state <> 'completed'`)
    return left.length === 0 ? left : undefined
  }, 20_000, 100).catch(() => 'some job never completed')
  t.same(unfinished, [], 'every job completed')
})

t.test("a backfill's match job is not started before its not_before, then it is", async (t) => {
  const stack = await startTestStack(t, { ingress: false, worker: true, env: QUICK })
  const environment = await seedEnvironment(stack.db, stack.projectId, 'production')
  const recording = await seedRows(stack.db, stack.projectId, environment, 60)
  const [finding] = await seedScan(stack.db, stack.projectId, environment, recording, ['Dead click on a "Contact" on /help: nothing changed on the page and no page loaded within 1 s.'])
  const { rows: [job] } = await stack.db.query<{ id: string; not_before: Date }>(
    `INSERT INTO friction_jobs (kind, project_id, environment_id, subject, source, not_before) VALUES ('match', $1, $2, $3, 'backfill', now() + interval '3 seconds') RETURNING id, not_before`,
    [stack.projectId, environment, finding],
  )

  await matcherOf(stack.worker!).sweepNow()
  t.same(await rows(stack, 'SELECT state, lease_until, attempts FROM friction_jobs'), [{ state: 'pending', lease_until: null, attempts: 0 }], 'a sweep before its not_before leaves it alone')
  t.same(await rows(stack, 'SELECT 1 FROM matching_decisions'), [], 'and nothing is decided')

  const done = await waitFor(async () => (await rows<{ state: string; started_at: Date }>(stack, `SELECT state, started_at FROM friction_jobs WHERE id = $1 AND state = 'completed'`, [job!.id]))[0])
  t.ok(done.started_at.getTime() >= job!.not_before.getTime(), 'it started at or after its not_before')
  const [decision] = await rows<{ decision: string }>(stack, 'SELECT decision FROM matching_decisions WHERE finding_id = $1', [finding])
  t.match(decision, { decision: 'created' })
})

t.test('a match job on a worker without embeddings fails saying so, unless it allows missing embeddings', async (t) => {
  const stack = await startTestStack(t, { ingress: false, worker: true, env: { ...QUICK, SVC_EMBEDDINGS_PLUGIN: 'none' } })
  const environment = await seedEnvironment(stack.db, stack.projectId, 'production')
  const recording = await seedRows(stack.db, stack.projectId, environment, 5)
  const [strict, allowed] = await seedScan(stack.db, stack.projectId, environment, recording, ['Rage click on button#pay on /checkout.', 'Dead click on a#help on /help.'])
  await stack.db.query(
    `INSERT INTO friction_jobs (kind, project_id, environment_id, subject, source, allow_missing_embeddings) VALUES ('match', $1, $2, $3, 'backfill', false), ('match', $1, $2, $4, 'backfill', true)`,
    [stack.projectId, environment, strict, allowed],
  )

  const ended = await waitFor(async () => {
    const found = await rows<{ subject: string; state: string; error: string | null }>(stack, `SELECT subject, state, error FROM friction_jobs WHERE state IN ('completed', 'failed')`)
    return found.length === 2 ? found : undefined
  })
  const bySubject = new Map(ended.map((job) => [job.subject, job]))
  t.match(bySubject.get(strict!), { state: 'failed', error: /^embeddings_missing: .*SVC_EMBEDDINGS_PLUGIN=none.*--allow-missing-embeddings/ }, 'the strict job fails with a clear error')
  t.match(bySubject.get(allowed!), { state: 'completed', error: null }, 'the one that allows it runs')
  t.same(await rows(stack, 'SELECT finding_id, decision, decided_by FROM matching_decisions'), [{ finding_id: allowed, decision: 'created', decided_by: 'no_embeddings' }], 'and makes its finding a known problem of its own')

  // Live findings of a worker whose operator turned embeddings off are matched without them.
  const objects = await createObjectStore(stack.config.objectStore)
  const live = await seedRecording(stack.db, objects, { projectId: stack.projectId, user: { id: 'user-1' }, chunks: rageChunks(T0), closed: true })
  const liveDecision = await waitFor(async () => (await rows<{ decided_by: string }>(stack, 'SELECT d.decided_by FROM matching_decisions d JOIN friction_findings f ON f.id = d.finding_id WHERE f.recording_id = $1', [live]))[0])
  t.match(liveDecision, { decided_by: 'no_embeddings' })
  t.match((await matcherOf(stack.worker!).details!()).join('\n'), /embeddings=none/)
})

/** A session on the same checkout page whose pay button answered its one click: no friction. */
function answeredChunks(start: number): Map<number, RrwebEvent[]> {
  const checkout = pageLoad(start, 'https://shop.example.com/checkout?step=2', { heading: 'Checkout', paragraph: 'Total: 42.00 EUR', button: 'Pay now' })
  return new Map([[0, [...checkout.events, click(start + 1000, checkout.buttonId), addAlert(start + 1100, checkout.bodyId, 100, 'Paid, thank you'), click(start + 40_000, 7)]]])
}

t.test('a known problem with 3 matched recordings gets its checks: its own rage clicks confirm it, the page\'s calm visits refute it, and the gate publishes it', async (t) => {
  const stack = await startTestStack(t, { ingress: false, worker: true, env: QUICK })
  const objects = await createObjectStore(stack.config.objectStore)
  const answered = [
    await seedRecording(stack.db, objects, { projectId: stack.projectId, user: { id: 'calm-1' }, chunks: answeredChunks(T0), closed: true }),
    await seedRecording(stack.db, objects, { projectId: stack.projectId, user: { id: 'calm-2' }, chunks: answeredChunks(T0 + 60_000), closed: true }),
  ]
  const raging: string[] = []
  for (const [i, user] of ['user-1', 'user-2', 'user-3'].entries()) {
    raging.push(await seedRecording(stack.db, objects, { projectId: stack.projectId, user: { id: user }, chunks: rageChunks(T0 + (i + 1) * 3_600_000), closed: true }))
  }

  const checks = await waitFor(async () => {
    const found = await rows<{ recording_id: string; verdict: string }>(stack, 'SELECT recording_id, verdict FROM ticket_checks ORDER BY recording_id')
    return found.length === 5 ? found : undefined
  }, 20_000, 100)
  const verdictOf = new Map(checks.map((check) => [check.recording_id, check.verdict]))
  t.same(raging.map((id) => verdictOf.get(id)), ['confirmed', 'confirmed', 'confirmed'], 'the three rage clicks confirm it')
  t.same(answered.map((id) => verdictOf.get(id)), ['refuted', 'refuted'], 'both recordings whose button answered refute it')
  const ticket = await waitFor(async () => (await rows<{ matched: number; checks_confirmed: number; checks_refuted: number; checks_next_at: number; published_at: Date | null }>(stack, 'SELECT matched, checks_confirmed, checks_refuted, checks_next_at, published_at FROM tickets WHERE published_at IS NOT NULL'))[0], 10_000, 100)
  t.match(ticket, { matched: 3, checks_confirmed: 3, checks_refuted: 2, checks_next_at: 13 }, 'counted on the ticket, the next batch due at 13')
  t.ok(ticket.published_at, 'published: 3 confirmed, 3 users, 60% of conclusive checks')
  const confirm = await waitFor(async () => (await rows<{ state: string }>(stack, `SELECT state FROM friction_jobs WHERE kind = 'confirm' AND state = 'completed'`))[0], 10_000, 100)
  t.equal(confirm.state, 'completed', 'by a confirm job the third match queued')
})

t.test("a project's checks a UTC day are FRICTION_PROJECT_DAILY_CHECKS: past them the batch waits for the next UTC midnight", async (t) => {
  const stack = await startTestStack(t, { ingress: false, worker: true, env: { ...QUICK, FRICTION_PROJECT_DAILY_CHECKS: '2' } })
  const objects = await createObjectStore(stack.config.objectStore)
  await seedRecording(stack.db, objects, { projectId: stack.projectId, user: { id: 'calm-1' }, chunks: answeredChunks(T0), closed: true })
  for (const [i, user] of ['user-1', 'user-2', 'user-3'].entries()) {
    await seedRecording(stack.db, objects, { projectId: stack.projectId, user: { id: user }, chunks: rageChunks(T0 + (i + 1) * 3_600_000), closed: true })
  }

  // The confirm job the third match queued ends; at the cap it queues the rest for the next UTC day.
  const next = await waitFor(async () => (await rows<{ not_before: Date }>(stack, `SELECT not_before FROM friction_jobs WHERE kind = 'confirm' AND state = 'pending' AND not_before > now()`))[0], 20_000, 100).catch(() => undefined)
  const checks = await rows<{ utc_day: string }>(stack, "SELECT to_char(utc_day, 'YYYY-MM-DD') AS utc_day FROM ticket_checks")
  t.equal(checks.length, 2, 'two checks of the four recordings of the screen, as the setting says (2000 by default)')
  const midnight = new Date(`${checks[0]?.utc_day ?? '1970-01-01'}T00:00:00.000Z`).getTime() + 24 * 3_600_000
  t.equal(next?.not_before.getTime(), midnight, 'and the next batch of checks waits for the next UTC midnight')
  t.match((await matcherOf(stack.worker!).details!()).join('\n'), /friction confirm: running=\d+ max_concurrent=1 checks_per_project_day=2/, '/health names the budget')
})
