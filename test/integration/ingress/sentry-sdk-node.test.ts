/**
 * The real @sentry/browser (the version in package.json) sending to this service: its DSN parsing,
 * event building, envelope serialization and fetch transport, run in Node (its client needs no
 * DOM to capture). What only runs in a page (global handlers, breadcrumbs, sessions, debug ids)
 * is tested in real Chromium and Firefox ESR in test/browser/sentry-sdk-browsers.test.ts.
 */
import { BrowserClient, defaultStackParser, makeFetchTransport, Scope } from '@sentry/browser'
import t from 'tap'
import { scrape } from '../../helpers/metrics.js'
import { stackDsn } from '../../helpers/browser/sentry.js'
import { postEvent, queuedEvents, sampleEvent, startTestStack, waitFor, type TestStack } from '../../helpers/stack.js'

/** A client as Sentry.init makes one, without the integrations that hook a page. */
function sentryClient(dsn: string): { client: BrowserClient; scope: Scope } {
  const client = new BrowserClient({ dsn, transport: makeFetchTransport, stackParser: defaultStackParser, integrations: [], release: 'shop@1.2.3', environment: 'production' })
  const scope = new Scope()
  scope.setClient(client)
  client.init()
  return { client, scope }
}

/** sampleEvent()'s bug as Chrome throws it: the same type, message and stack. */
function chromeError(): Error {
  const sample = sampleEvent().error as { message: string; stack: string }
  const error = new TypeError(sample.message)
  error.stack = sample.stack
  return error
}

const eventCount = async (stack: TestStack): Promise<number> => Number((await stack.db.query<{ n: string }>('SELECT count(*) AS n FROM events')).rows[0]!.n)

t.test('@sentry/browser sends to a DSN of our ingest key, and its error joins our SDK\'s issue for the same bug', async (t) => {
  const stack = await startTestStack(t, { worker: true })
  t.equal((await postEvent(stack.baseUrl, sampleEvent(), { 'Content-Type': 'application/json', 'X-API-Key': stack.ingestKey })).status, 202)
  // The DSN the dashboard shows: the ingest key at our address, the project's DSN number last.
  const { client, scope } = sentryClient(await stackDsn(stack))
  scope.setUser({ id: 'u7' })
  scope.setTag('team', 'checkout')
  const id = client.captureException(chromeError(), undefined, scope)
  t.ok(await client.flush(5000), 'the transport delivered')
  await waitFor(async () => (await eventCount(stack)) === 2, 5000)
  const { rows } = await stack.db.query<{ issue_id: string; release: string; payload: { user?: { id: string }; tags?: Record<string, string>; event_id?: string; sdk_version: string; session_id?: string } }>('SELECT issue_id, release, payload FROM events ORDER BY received_at')
  t.equal(rows[0]!.issue_id, rows[1]!.issue_id, 'one issue')
  const sent = rows[1]!
  t.equal(sent.payload.event_id, id)
  t.equal(sent.release, 'shop@1.2.3')
  t.same(sent.payload.user, { id: 'u7' })
  t.same(sent.payload.tags, { team: 'checkout' })
  t.match(sent.payload.sdk_version, /^sentry\.javascript\.browser@11\./)
  t.match(sent.payload.session_id, /^sentry-trace-[0-9a-f]{32}$/, "the SDK's trace stands for the session")
})

t.test('@sentry/browser with a DSN naming another project (its number, or our uuid cut to its leading digits) is refused and stores nothing', async (t) => {
  const stack = await startTestStack(t)
  const { rows } = await stack.db.query<{ dsn_number: string }>("INSERT INTO projects (name) VALUES ('other') RETURNING dsn_number")
  const refused = async (): Promise<number> => (await scrape(`${stack.baseUrl}/metrics`)).value('svc_ingress_events_refused_total', { code: 'project_mismatch' })
  const before = await refused()
  const keyed = stack.baseUrl.replace('://', `://${stack.ingestKey}@`)
  for (const dsn of [`${keyed}/${rows[0]!.dsn_number}`, `${keyed}/9${stack.projectId}`]) {
    const { client, scope } = sentryClient(dsn)
    client.captureMessage('checkout slow', 'warning', undefined, scope)
    await client.flush(5000)
  }
  t.equal((await refused()) - before, 2, 'both answered 403 project_mismatch')
  t.equal(await queuedEvents(stack), 0, 'nothing is queued')
})

t.test('after our 429 (with Retry-After and X-Sentry-Rate-Limits), @sentry/browser holds its next events instead of sending them', async (t) => {
  const stack = await startTestStack(t, { env: { SVC_EVENTS_PER_KEY_PER_MINUTE: '1', SVC_PROJECT_EVENTS_PER_MINUTE: '100' } })
  const refused = async (): Promise<number> => (await scrape(`${stack.baseUrl}/metrics`)).value('svc_ingress_events_refused_total', { code: 'rate_limited' })
  const before = await refused()
  const { client, scope } = sentryClient(await stackDsn(stack))
  for (let i = 0; i < 2; i++) {
    client.captureException(new Error(`first ${i}`), undefined, scope)
    await client.flush(5000)
  }
  t.equal((await refused()) - before, 1, 'the second event was refused with 429')
  for (let i = 0; i < 3; i++) {
    client.captureException(new Error(`later ${i}`), undefined, scope)
    await client.flush(5000)
  }
  t.equal((await refused()) - before, 1, 'the SDK sent nothing more while limited')
  t.equal(await queuedEvents(stack), 1)
})
