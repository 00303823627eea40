import { gzipSync } from 'node:zlib'
import t, { type Test } from 'tap'
import { dueRecordings, scanDueRecordings, scanRecording, type ScanDeps } from '../../../services/matcher/scan-due.js'
import { createObjectStore, ObjectStoreUnavailable, type ObjectStore } from '../../../shared/object-store.js'
import { capturedLog } from '../../helpers/browser/recording-chunks.js'
import { click, pageLoad, seedRecording, svcError, type RrwebEvent } from '../../helpers/browser/recording-fixture.js'
import { startTestStack, type TestStack } from '../../helpers/stack.js'

const T0 = Date.parse('2026-11-20T09:00:00.000Z')
const PAY = 'button#pay.primary.big "Pay now"'

/** A stack with the fs object store, and the scan's dependencies on it. */
async function scanStack(t: Test) {
  const stack = await startTestStack(t, { ingress: false })
  const objects = await createObjectStore(stack.config.objectStore)
  const { log, lines } = capturedLog()
  const deps = (store: ObjectStore = objects): ScanDeps => ({ db: stack.db, objects: store, log })
  return { stack, objects, deps, lines }
}

/** A shop session at start: the checkout page, five clicks on its dead pay button, then an error after the last one; and a quiet moment later. */
function frictionChunks(start: number): Map<number, RrwebEvent[]> {
  const checkout = pageLoad(start, 'https://shop.example.com/checkout?step=2', { heading: 'Checkout', paragraph: 'Total: 42.00 EUR', button: 'Pay now' })
  const rage = [0, 300, 600, 900, 1200].map((offset) => click(start + 1000 + offset, checkout.buttonId))
  const after = [click(start + 20_000, checkout.buttonId), svcError(start + 20_400, 'evt-1', 'Payment provider answered 502'), click(start + 40_000, 7)]
  return new Map([[0, [...checkout.events, ...rage]], [1, after]])
}

async function count(stack: TestStack, sql: string, values: unknown[] = []): Promise<number> {
  return (await stack.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM (${sql}) AS rows`, values)).rows[0]!.n
}

t.test('a closed recording is scanned once: its findings, a match job for each and its scan row in one go; an open one waits', async (t) => {
  const { stack, deps, objects } = await scanStack(t)
  const projectId = stack.projectId
  const closed = await seedRecording(stack.db, objects, { projectId, user: { id: 'user-7' }, sessionId: 'session-7', chunks: frictionChunks(T0), closed: true })
  const quiet = await seedRecording(stack.db, objects, { projectId, user: { id: 'user-8' }, chunks: new Map([[0, pageLoad(T0, 'https://shop.example.com/', { heading: 'Shop', paragraph: 'Hi', button: 'Browse' }).events]]), closed: true })
  const open = await seedRecording(stack.db, objects, { projectId, user: { id: 'user-9' }, chunks: frictionChunks(T0 + 3_600_000) })

  const first = await scanDueRecordings(deps(), 10)
  t.match(first, { scanned: 2, unreadableChunks: 0, failed: 0, storeDown: undefined })
  t.equal(first.findings.length, 2, 'a rage click and an error after click')
  t.equal(first.matchJobs.length, 2)

  const { rows: findings } = await stack.db.query(
    `SELECT f.id, f.kind, f.page, f.target, f.at, f.narrative, f.narrative_by, f.embedding, f.user_key = r.user_key AS same_user, f.session_id, f.environment_id = r.environment_id AS same_environment
     FROM friction_findings f JOIN recordings r ON r.project_id = f.project_id AND r.id = f.recording_id ORDER BY f.at`,
  )
  t.match(findings, [
    { kind: 'rage_click', page: '/checkout?step=2', target: PAY, at: new Date(T0 + 1000), narrative: `Rage click: 5 clicks in 1.2 s on ${PAY} on /checkout?step=2; nothing changed on the page.`, narrative_by: 'mechanical', embedding: null, same_user: true, session_id: 'session-7', same_environment: true },
    { kind: 'error_after_click', target: PAY, at: new Date(T0 + 20_000), narrative: `Error after click on ${PAY} on /checkout?step=2: the error "Payment provider answered 502" 0.4 s later.` },
  ])
  t.same(findings.map((row) => row.id).sort(), [...first.findings].sort(), 'the ids answered are the findings stored')
  const { rows: jobs } = await stack.db.query('SELECT id, kind, subject, state, project_id, environment_id IS NOT NULL AS has_environment FROM friction_jobs ORDER BY created_at')
  t.same(jobs.map((job) => job.subject).sort(), [...first.findings].sort(), 'one match job per finding')
  t.ok(jobs.every((job) => job.kind === 'match' && job.state === 'pending' && job.project_id === projectId && job.has_environment), 'pending match jobs of the project and environment')
  t.same(jobs.map((job) => job.id).sort(), [...first.matchJobs].sort(), 'the job ids answered are theirs, to dispatch')
  const { rows: scans } = await stack.db.query<{ recording_id: string; findings: number }>('SELECT recording_id, findings FROM friction_scans ORDER BY findings DESC')
  t.same(scans.map((scan) => [scan.recording_id, scan.findings]), [[closed, 2], [quiet, 0]], 'a scan row for each closed recording, a quiet one too')
  t.same(await dueRecordings(stack.db, 10), [], 'the open recording is not due')

  const second = await scanDueRecordings(deps(), 10)
  t.match(second, { scanned: 0, findings: [], matchJobs: [] }, 'a second scan finds nothing to do')
  t.same(await scanRecording(deps(), projectId, closed), { status: 'skipped' }, 'nor does a scan of that recording asked for by id')
  t.same(await scanRecording(deps(), projectId, open), { status: 'skipped' }, 'and an open one is not scanned by id either')

  await stack.db.query('UPDATE recordings SET closed_at = now() WHERE id = $1', [open])
  const closing = await scanRecording(deps(), projectId, open)
  t.match(closing, { status: 'scanned', detected: 2, chunks: 2, unreadable: [] }, 'once closed, it is scanned')
  t.equal(await count(stack, 'SELECT 1 FROM friction_findings'), 4)
})

t.test('a rescan after a scan row is removed stores no finding twice and queues no match job again', async (t) => {
  const { stack, deps, objects } = await scanStack(t)
  const id = await seedRecording(stack.db, objects, { projectId: stack.projectId, user: { id: 'u' }, chunks: frictionChunks(T0), closed: true })
  const first = await scanRecording(deps(), stack.projectId, id)
  t.match(first, { status: 'scanned', detected: 2 })
  await stack.db.query('DELETE FROM friction_scans WHERE recording_id = $1', [id])
  const again = await scanRecording(deps(), stack.projectId, id)
  t.match(again, { status: 'scanned', detected: 2, findings: [], matchJobs: [] }, 'the findings were there: nothing new')
  t.equal(await count(stack, 'SELECT 1 FROM friction_findings'), 2)
  t.equal(await count(stack, 'SELECT 1 FROM friction_jobs'), 2)

  // Only a finding stored anew gets a job: one deleted by hand comes back with a new id and a job of its own.
  await stack.db.query('DELETE FROM friction_scans WHERE recording_id = $1', [id])
  await stack.db.query(`DELETE FROM friction_findings WHERE kind = 'rage_click'`)
  const third = await scanRecording(deps(), stack.projectId, id)
  t.match(third, { status: 'scanned', findings: [String], matchJobs: [String] }, 'the deleted finding is stored again, with one job')
  t.equal(await count(stack, 'SELECT 1 FROM friction_jobs'), 3)
  t.equal(await count(stack, `SELECT 1 FROM friction_jobs WHERE state IN ('pending', 'claimed') GROUP BY subject HAVING count(*) > 1`), 0, 'one active job per subject')
})

t.test("a backfill's scan queues its match jobs as the backfill asked: source backfill, and allowed without embeddings when it was", async (t) => {
  const { stack, deps, objects } = await scanStack(t)
  const id = await seedRecording(stack.db, objects, { projectId: stack.projectId, chunks: frictionChunks(T0), closed: true })
  const scan = await scanRecording(deps(), stack.projectId, id, { source: 'backfill', allowMissingEmbeddings: true })
  t.match(scan, { status: 'scanned', matchJobs: [String, String] })
  const { rows } = await stack.db.query('SELECT DISTINCT source, allow_missing_embeddings FROM friction_jobs')
  t.same(rows, [{ source: 'backfill', allow_missing_embeddings: true }])
})

t.test('two callers scanning at once store each recording once, and queue each match job once', async (t) => {
  const { stack, deps, objects } = await scanStack(t)
  // A store that answers slowly, so both callers are reading chunks while the other holds rows.
  const slow: ObjectStore = {
    put: (key, body) => objects.put(key, body),
    get: async (key) => {
      await new Promise((resolve) => setTimeout(resolve, 30))
      return objects.get(key)
    },
    delete: (keys) => objects.delete(keys),
  }
  const ids: string[] = []
  for (let i = 0; i < 8; i++) ids.push(await seedRecording(stack.db, objects, { projectId: stack.projectId, user: { id: `user-${i}` }, chunks: frictionChunks(T0 + i * 3_600_000), closed: true }))

  const [a, b] = await Promise.all([scanDueRecordings(deps(slow), 20), scanDueRecordings(deps(slow), 20)])
  t.equal(a.scanned + b.scanned, 8, `each recording scanned by one of them (${a.scanned} and ${b.scanned})`)
  t.equal(new Set([...a.findings, ...b.findings]).size, a.findings.length + b.findings.length, 'no finding answered twice')
  t.equal(await count(stack, 'SELECT 1 FROM friction_findings'), 16)
  t.equal(await count(stack, 'SELECT 1 FROM friction_scans'), 8)
  t.equal(await count(stack, `SELECT 1 FROM friction_jobs WHERE kind = 'match'`), 16)
  t.equal(a.matchJobs.length + b.matchJobs.length, 16)

  const extra = await seedRecording(stack.db, objects, { projectId: stack.projectId, user: { id: 'late' }, chunks: frictionChunks(T0), closed: true })
  const both = await Promise.all([scanRecording(deps(slow), stack.projectId, extra), scanRecording(deps(slow), stack.projectId, extra)])
  t.same(both.map((scan) => scan.status).sort(), ['scanned', 'skipped'], 'one recording asked for twice at once is scanned by one caller')
  t.equal(await count(stack, 'SELECT 1 FROM friction_findings WHERE recording_id = $1', [extra]), 2)
  t.equal(await count(stack, `SELECT 1 FROM friction_jobs`), 18)
})

t.test('unreadable chunks (bad gzip, bad JSON, no object) are skipped and counted; the rest is scanned', async (t) => {
  const { stack, deps, objects, lines } = await scanStack(t)
  const chunks = frictionChunks(T0)
  chunks.set(2, [click(T0 + 50_000, 12)])
  chunks.set(3, [click(T0 + 60_000, 12)])
  chunks.set(4, [click(T0 + 70_000, 12)])
  const id = await seedRecording(stack.db, objects, { projectId: stack.projectId, user: { id: 'u' }, chunks, withoutObject: [4], closed: true })
  const keys = new Map((await stack.db.query<{ seq: number; object_key: string }>('SELECT seq, object_key FROM recording_chunks WHERE recording_id = $1', [id])).rows.map((row) => [row.seq, row.object_key]))
  await objects.put(keys.get(2)!, Buffer.from('not gzip at all'))
  await objects.put(keys.get(3)!, gzipSync('{"events": [unterminated'))

  const outcome = await scanDueRecordings(deps(), 10)
  t.match(outcome, { scanned: 1, unreadableChunks: 3, failed: 0 })
  t.equal(outcome.findings.length, 2, 'the readable chunks\' findings are stored')
  t.equal(await count(stack, 'SELECT 1 FROM friction_scans WHERE recording_id = $1', [id]), 1, 'and the recording is scanned: those chunks will not read better later')
  t.match(lines.find((line) => line.msg === 'recording scanned for friction without some of its chunks'), { recording: id, unreadable_seqs: [2, 3, 4], unreadable: 3 })
})

t.test('while the object store is down a recording stays unscanned, with nothing written, and is scanned once it is back', async (t) => {
  const { stack, deps, objects, lines } = await scanStack(t)
  const down: ObjectStore = {
    put: (key, body) => objects.put(key, body),
    get: async () => {
      throw new ObjectStoreUnavailable('the test store is down')
    },
    delete: (keys) => objects.delete(keys),
  }
  const ids = [
    await seedRecording(stack.db, objects, { projectId: stack.projectId, user: { id: 'a' }, chunks: frictionChunks(T0), closed: true }),
    await seedRecording(stack.db, objects, { projectId: stack.projectId, user: { id: 'b' }, chunks: frictionChunks(T0 + 3_600_000), closed: true }),
  ]
  const outcome = await scanDueRecordings(deps(down), 10)
  t.match(outcome, { scanned: 0, findings: [], matchJobs: [], failed: 0, storeDown: 'the test store is down' })
  t.ok(lines.some((line) => line.msg === 'object store unavailable: recordings stay unscanned until the next pass'), 'it says so')
  await t.rejects(scanRecording(deps(down), stack.projectId, ids[0]!), ObjectStoreUnavailable, 'a scan by id throws it for its caller to retry')
  for (const table of ['friction_scans', 'friction_findings', 'friction_jobs']) t.equal(await count(stack, `SELECT 1 FROM ${table}`), 0, `nothing in ${table}`)
  t.equal((await dueRecordings(stack.db, 10)).length, 2, 'both recordings are still due')

  const back = await scanDueRecordings(deps(), 10)
  t.match(back, { scanned: 2, storeDown: undefined })
  t.equal(back.findings.length, 4)
})

t.test('a scan pass is bounded by its limit, newest recordings first', async (t) => {
  const { stack, deps, objects } = await scanStack(t)
  const ids: string[] = []
  for (let i = 0; i < 3; i++) ids.push(await seedRecording(stack.db, objects, { projectId: stack.projectId, chunks: frictionChunks(T0 + i * 3_600_000), closed: true }))
  t.same((await dueRecordings(stack.db, 2)).map((due) => due.recordingId), [ids[2], ids[1]])
  t.match(await scanDueRecordings(deps(), 2), { scanned: 2 })
  t.same((await dueRecordings(stack.db, 10)).map((due) => due.recordingId), [ids[0]], 'the rest waits for the next pass')
  await t.rejects(scanDueRecordings(deps(), 0), RangeError, 'a limit out of range is refused')
})
