import t from 'tap'
import { intakeLastDay } from '../../../shared/domain/intake-tally.js'
import { mintKey } from '../../../shared/keys.js'
import { scrape } from '../../helpers/metrics.js'
import { postEvent, queuedEvents, sampleEvent, startTestStack, type TestStack } from '../../helpers/stack.js'

const JSON_TYPE = { 'Content-Type': 'application/json' }

/** A second project with an ingest key of its own. */
async function otherProject(stack: TestStack): Promise<{ projectId: string; key: string }> {
  const { rows } = await stack.db.query<{ id: string }>("INSERT INTO projects (name) VALUES ('other') RETURNING id")
  const projectId = rows[0]!.id
  return { projectId, key: (await mintKey(stack.db, projectId, 'ingest', 'test')).token }
}

async function send(stack: TestStack, key: string, n: number): Promise<Array<Awaited<ReturnType<typeof postEvent>>>> {
  const answers = []
  for (let i = 0; i < n; i++) answers.push(await postEvent(stack.baseUrl, sampleEvent(), { ...JSON_TYPE, 'X-API-Key': key }))
  return answers
}

const refusedCount = async (stack: TestStack, code: string): Promise<number> => (await scrape(`${stack.baseUrl}/metrics`)).value('svc_ingress_events_refused_total', { code })

t.test('a project over its cap gets 429 project_quota_exceeded with retry_after; another project is unaffected; the tally and the metric count it', async (t) => {
  const stack = await startTestStack(t)
  await stack.db.query('UPDATE projects SET events_per_minute = 5 WHERE id = $1', [stack.projectId])
  const other = await otherProject(stack)
  const metricBefore = await refusedCount(stack, 'project_quota_exceeded')
  // Two keys of the capped project share its cap: three through one, three through the other.
  const second = await stack.mint('ingest')
  const answers = [...(await send(stack, stack.ingestKey, 3)), ...(await send(stack, second, 3))]
  t.same(answers.map((a) => a.status), [202, 202, 202, 202, 202, 429])
  const refused = answers[5]!
  t.equal(refused.body.code, 'project_quota_exceeded')
  t.ok(Number(refused.body.retry_after) >= 1 && Number(refused.body.retry_after) <= 65, 'retry_after is within the window')
  t.equal(refused.headers.get('retry-after'), String(refused.body.retry_after), 'Retry-After header matches')
  t.same((await send(stack, other.key, 7)).map((a) => a.status), Array(7).fill(202), 'the other project takes all seven')
  t.equal(await queuedEvents(stack), 12, 'five of the capped project and seven of the other are on the stream')
  t.same(await intakeLastDay(stack.redis, stack.keys, stack.projectId), { refused: 1, sampled: 0 }, 'the refusal is tallied for the hour')
  t.same(await intakeLastDay(stack.redis, stack.keys, other.projectId), { refused: 0, sampled: 0 })
  t.equal((await refusedCount(stack, 'project_quota_exceeded')) - metricBefore, 1, 'counted in /metrics by its code')
})

t.test('events arriving together are capped per project within their batch: exactly the cap is queued, the rest tallied', async (t) => {
  const stack = await startTestStack(t)
  await stack.db.query('UPDATE projects SET events_per_minute = 5 WHERE id = $1', [stack.projectId])
  const headers = { ...JSON_TYPE, 'X-API-Key': stack.ingestKey }
  await postEvent(stack.baseUrl, sampleEvent(), headers) // the key's lookup is cached before the burst
  const answers = await Promise.all(Array.from({ length: 12 }, () => postEvent(stack.baseUrl, sampleEvent(), headers)))
  t.same(answers.map((a) => a.status).sort(), [...Array(4).fill(202), ...Array(8).fill(429)])
  t.ok(answers.filter((a) => a.status === 429).every((a) => a.body.code === 'project_quota_exceeded'), 'each refusal names the project cap')
  t.equal(await queuedEvents(stack), 5)
  t.same(await intakeLastDay(stack.redis, stack.keys, stack.projectId), { refused: 8, sampled: 0 })
})

t.test('the per-key limit still holds under a looser project cap, and its refusals are tallied too', async (t) => {
  const stack = await startTestStack(t, { env: { SVC_EVENTS_PER_KEY_PER_MINUTE: '3', SVC_PROJECT_EVENTS_PER_MINUTE: '100' } })
  const metricBefore = await refusedCount(stack, 'rate_limited')
  const answers = await send(stack, stack.ingestKey, 5)
  t.same(answers.map((a) => a.status), [202, 202, 202, 429, 429])
  t.equal(answers[4]!.body.code, 'rate_limited', 'the key limit keeps its own code')
  t.equal(await queuedEvents(stack), 3)
  t.same(await intakeLastDay(stack.redis, stack.keys, stack.projectId), { refused: 2, sampled: 0 })
  t.equal((await refusedCount(stack, 'rate_limited')) - metricBefore, 2)
})

t.test('the service default caps a project whose settings name none; a project setting overrides it', async (t) => {
  const stack = await startTestStack(t, { env: { SVC_PROJECT_EVENTS_PER_MINUTE: '2' } })
  const other = await otherProject(stack)
  await stack.db.query('UPDATE projects SET events_per_minute = 4 WHERE id = $1', [other.projectId])
  t.same((await send(stack, stack.ingestKey, 3)).map((a) => a.status), [202, 202, 429], 'the default of two')
  t.same((await send(stack, other.key, 5)).map((a) => a.status), [202, 202, 202, 202, 429], 'its own four')
})

t.test('a changed cap takes effect once the key lookup cache period is over', async (t) => {
  const stack = await startTestStack(t, { keyCacheMs: 200 })
  t.same((await send(stack, stack.ingestKey, 3)).map((a) => a.status), [202, 202, 202], 'no cap yet')
  await stack.db.query('UPDATE projects SET events_per_minute = 4 WHERE id = $1', [stack.projectId])
  await new Promise((resolve) => setTimeout(resolve, 300)) // past the cache period
  // The project's counter counted the minute's three before there was a cap, so one more fits in
  // four; should a minute end among the sends, four more fit in the next one. Either way six sends
  // meet the cap.
  const answers = await send(stack, stack.ingestKey, 6)
  const refused = answers.filter((a) => a.status === 429)
  t.ok(refused.length >= 1, 'the new cap refuses')
  t.ok(refused.every((a) => a.body.code === 'project_quota_exceeded'), 'with the project cap code')
  t.ok(answers.filter((a) => a.status === 202).length <= 5)
})
