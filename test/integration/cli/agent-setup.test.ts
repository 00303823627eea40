import t from 'tap'
import { approveSetupSession } from '../../../services/web/setup/approval.js'
import type { SetupDeps } from '../../../services/web/setup/sessions.js'
import { createLogger } from '../../../shared/log.js'
import { sampleEvent, startTestStack, waitFor, type TestStack } from '../../helpers/stack.js'

interface Answer {
  status: number
  body: Record<string, unknown>
  text: string
  ms: number
}

async function call(stack: TestStack, path: string, init: { method?: string; token?: string; body?: unknown; headers?: Record<string, string>; signal?: AbortSignal } = {}): Promise<Answer> {
  const started = Date.now()
  const headers: Record<string, string> = { ...init.headers }
  if (init.token !== undefined) headers['X-Svc-Poll-Token'] = init.token
  if (init.body !== undefined) headers['Content-Type'] = 'application/json'
  const response = await fetch(`${stack.baseUrl}${path}`, { method: init.method ?? (init.body === undefined ? 'GET' : 'POST'), headers, body: init.body === undefined ? undefined : JSON.stringify(init.body), signal: init.signal })
  const text = await response.text()
  return { status: response.status, text, body: text ? (JSON.parse(text) as Record<string, unknown>) : {}, ms: Date.now() - started }
}

async function register(stack: TestStack, overrides: Record<string, unknown> = {}): Promise<{ pollId: string; token: string; body: Record<string, unknown> }> {
  const answer = await call(stack, '/api/v1/agent/setup', { body: { project_name: 'Shop', agent_name: 'claude-code on build-01', git_remote: 'acme/shop', ...overrides } })
  if (answer.status !== 200) throw new Error(`registration answered ${answer.status}: ${answer.text}`)
  return { pollId: answer.body.poll_id as string, token: answer.body.poll_token as string, body: answer.body }
}

function setupDeps(stack: TestStack): SetupDeps {
  return { db: stack.db, redis: stack.redis, keys: stack.keys, log: createLogger('silent'), baseUrl: stack.config.baseUrl, limits: stack.config.setup, codehost: undefined, chat: undefined }
}

async function approve(stack: TestStack, pollId: string): Promise<string> {
  const { rows } = await stack.db.query<{ id: string }>(`INSERT INTO users (email) VALUES ($1) RETURNING id`, [`owner-${pollId}@example.test`])
  const result = await approveSetupSession(setupDeps(stack), pollId, rows[0]!.id, { kind: 'new', name: 'Shop' })
  if (!result.ok) throw new Error(result.message)
  return result.projectId
}

t.test('a registered session answers pending polls, then wakes a held poll at approval and hands over working keys', async (t) => {
  const stack = await startTestStack(t, { worker: true })
  const { pollId, token, body } = await register(stack)
  t.match(body, { status: 'pending', auth_url: `${stack.config.baseUrl}/setup/${pollId}` })
  t.match(body.poll_token, /^svc_pt_/)
  t.ok(new Date(body.expires_at as string).getTime() > Date.now() + 60 * 60 * 1000, 'lives about two hours')

  const early = await call(stack, `/api/v1/agent/poll/${pollId}`, { token })
  t.same(early.body, { status: 'pending', approved: false, next: early.body.next }, 'pending: approved false')

  const held = call(stack, `/api/v1/agent/poll/${pollId}?wait=20`, { token })
  await new Promise((resolve) => setTimeout(resolve, 300))
  await approve(stack, pollId)
  const answer = await held
  t.equal(answer.status, 200)
  t.ok(answer.ms < 5000, `the held poll returned at approval, after ${answer.ms} ms`)
  t.match(answer.body, { status: 'key_ok', approved: true, project_name: 'Shop', ingest_key: /^svc_pk_/, sourcemap_key: /^svc_sk_/, api_key: /^svc_ak_/, project_id: /^[0-9a-f-]{36}$/ })
  t.match(answer.body.sentry_dsn, new RegExp(`^http://${answer.body.ingest_key as string}@[^/]+/\\d+$`), 'the Sentry DSN comes with the keys')
  t.match(answer.body.facts, { has_events: false, codehost_connected: false, chat_connected: false, sourcemaps_uploaded: false })
  t.match(answer.body.dashboard_url, `${stack.config.baseUrl}/projects/${answer.body.project_id as string}`)

  const { rows } = await stack.db.query<{ sealed: Buffer; hash: Buffer }>('SELECT sealed_keys AS sealed, token_hash AS hash FROM setup_sessions WHERE id = $1', [pollId])
  t.notOk(rows[0]!.sealed.toString('latin1').includes(answer.body.ingest_key as string), 'the stored copy of the keys is sealed, not plain')
  t.notOk(rows[0]!.hash.toString('latin1').includes(token), 'only a hash of the poll token is stored')

  const ping = await fetch(`${stack.baseUrl}/api/v1/ingest/ping`, { method: 'POST', headers: { 'X-API-Key': answer.body.ingest_key as string } })
  t.equal(ping.status, 204, 'the delivered ingest key works')
  const again = await call(stack, `/api/v1/agent/poll/${pollId}`, { token })
  t.equal(again.body.ingest_key, answer.body.ingest_key, 'keys can be collected again within the window')
})

t.test('the state long poll with until=event returns as soon as the first event is stored', async (t) => {
  const stack = await startTestStack(t, { worker: true })
  const { pollId, token } = await register(stack)
  await approve(stack, pollId)
  const keys = await call(stack, `/api/v1/agent/poll/${pollId}`, { token })
  const before = await call(stack, `/api/v1/agent/poll/${pollId}/state`, { token })
  t.equal(before.body.has_events, false)
  t.equal(before.body.latest_error_group_url, '')

  const held = call(stack, `/api/v1/agent/poll/${pollId}/state?wait=25&until=event`, { token })
  await new Promise((resolve) => setTimeout(resolve, 300))
  const sent = await fetch(`${stack.baseUrl}/api/v1/events`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-API-Key': keys.body.ingest_key as string }, body: JSON.stringify(sampleEvent()) })
  t.equal(sent.status, 202)
  const state = await held
  t.equal(state.status, 200)
  t.equal(state.body.has_events, true, 'has_events turned true')
  t.ok(state.ms < 10_000, `within the long poll (${state.ms} ms)`)
  t.match(state.body.latest_error_group_url, new RegExp(`/projects/${keys.body.project_id as string}/issues/[0-9a-f-]{36}$`))
  t.match(state.body.steps, { first_event: { status: 'done' } }, 'first_event is done from the fact')
  const poll = await call(stack, `/api/v1/agent/poll/${pollId}`, { token })
  t.equal(poll.body.status, 'app_reporting', 'an event also proves the SDK reports')
})

t.test('a ping from a browser page moves a delivered session to app_reporting; a ping without Origin does not', async (t) => {
  const stack = await startTestStack(t)
  const { pollId, token } = await register(stack)
  await approve(stack, pollId)
  const keys = await call(stack, `/api/v1/agent/poll/${pollId}`, { token })
  t.equal(keys.body.status, 'key_ok')
  await fetch(`${stack.baseUrl}/api/v1/ingest/ping`, { method: 'POST', headers: { 'X-API-Key': keys.body.ingest_key as string } })
  t.equal((await call(stack, `/api/v1/agent/poll/${pollId}`, { token })).body.status, 'key_ok', 'curl-style ping: still key_ok')
  const held = call(stack, `/api/v1/agent/poll/${pollId}?wait=20`, { token })
  await new Promise((resolve) => setTimeout(resolve, 300))
  await fetch(`${stack.baseUrl}/api/v1/ingest/ping`, { method: 'POST', headers: { 'X-API-Key': keys.body.ingest_key as string, Origin: 'http://localhost:5173' } })
  const answer = await held
  t.equal(answer.body.status, 'app_reporting')
  t.ok(answer.ms < 5000, `woken by the ping (${answer.ms} ms)`)
})

t.test('progress accepts any status for agent steps, only failed or skipped for service steps, and reports facts as done', async (t) => {
  const stack = await startTestStack(t)
  const { pollId, token } = await register(stack)
  const note = 'installed with "npm i @svc/sdk"\nline two, \'quoted\''
  const ok = await call(stack, `/api/v1/agent/poll/${pollId}/progress`, { token, body: { step: 'install_sdk', status: 'running', note } })
  t.equal(ok.status, 204)
  t.equal(ok.text, '', '204 has an empty body')
  for (const step of ['mcp', 'pull_request']) t.equal((await call(stack, `/api/v1/agent/poll/${pollId}/progress`, { token, body: { step, status: 'done', note: '' } })).status, 204, `${step} accepts done`)
  for (const step of ['codehost', 'chat', 'sourcemaps', 'first_event']) {
    const refused = await call(stack, `/api/v1/agent/poll/${pollId}/progress`, { token, body: { step, status: 'done', note: '' } })
    t.equal(refused.status, 400, `${step} done is refused`)
    t.equal(refused.body.code, 'step_set_by_service')
    t.match(refused.body.message, /sets .* itself/)
    t.equal((await call(stack, `/api/v1/agent/poll/${pollId}/progress`, { token, body: { step, status: 'skipped', note: 'no access' } })).status, 204, `${step} skipped is accepted`)
  }
  const unknown = await call(stack, `/api/v1/agent/poll/${pollId}/progress`, { token, body: { step: 'deploy', status: 'done' } })
  t.match(unknown, { status: 400, body: { code: 'invalid_request', field: 'step' } })
  const badStatus = await call(stack, `/api/v1/agent/poll/${pollId}/progress`, { token, body: { step: 'mcp', status: 'finished' } })
  t.match(badStatus, { status: 400, body: { code: 'invalid_request', field: 'status' } })
  const state = await call(stack, `/api/v1/agent/poll/${pollId}/state`, { token })
  t.same(state.body.steps, {
    install_sdk: { status: 'running', note },
    first_event: { status: 'skipped', note: 'no access' },
    codehost: { status: 'skipped', note: 'no access' },
    chat: { status: 'skipped', note: 'no access' },
    sourcemaps: { status: 'skipped', note: 'no access' },
    mcp: { status: 'done', note: '' },
    pull_request: { status: 'done', note: '' },
  })
})

t.test('complete answers 422 until an event arrived since the session began, then 200', async (t) => {
  const stack = await startTestStack(t, { worker: true })
  const { pollId, token } = await register(stack)
  t.equal((await call(stack, `/api/v1/agent/poll/${pollId}/complete`, { token, body: {} })).status, 422, 'before approval')
  await approve(stack, pollId)
  const keys = await call(stack, `/api/v1/agent/poll/${pollId}`, { token })
  const early = await call(stack, `/api/v1/agent/poll/${pollId}/complete`, { token, body: {} })
  t.match(early, { status: 422, body: { code: 'first_event_missing' } })
  await fetch(`${stack.baseUrl}/api/v1/events`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-API-Key': keys.body.ingest_key as string }, body: JSON.stringify(sampleEvent()) })
  await waitFor(async () => (await call(stack, `/api/v1/agent/poll/${pollId}/state`, { token })).body.has_events)
  const done = await call(stack, `/api/v1/agent/poll/${pollId}/complete`, { token, body: {} })
  t.equal(done.status, 200)
  t.equal(done.body.completed, true)
})

t.test('a wrong token or unknown session is 404 with a message on every endpoint', async (t) => {
  const stack = await startTestStack(t)
  const { pollId, token } = await register(stack)
  const wrong = `${token.slice(0, -2)}xx`
  for (const [path, body] of ENDPOINTS) {
    for (const [id, presented] of [[pollId, wrong], [pollId, undefined], ['no-such-session', token]] as const) {
      const answer = await call(stack, `/api/v1/agent/poll/${id}${path}`, { token: presented, body })
      t.equal(answer.status, 404, `${path || '/'} with ${presented === undefined ? 'no' : 'a bad'} token on ${id === pollId ? 'a real' : 'an unknown'} session`)
      t.match(answer.body, { code: 'session_not_found', message: /Do not retry/ })
    }
  }
})

const ENDPOINTS: ReadonlyArray<readonly [string, unknown]> = [
  ['', undefined],
  ['/state', undefined],
  ['/progress', { step: 'mcp', status: 'running', note: '' }],
  ['/codehost', { repo: 'acme/shop' }],
  ['/chat', { webhook_url: 'https://hooks.example.test/services/T0/B0/secret' }],
  ['/complete', {}],
]

t.test('an expired session answers 410 with a message on every endpoint', async (t) => {
  const stack = await startTestStack(t, { env: { SVC_SETUP_SESSION_TTL_SECONDS: '1' } })
  const { pollId, token } = await register(stack)
  const held = call(stack, `/api/v1/agent/poll/${pollId}?wait=10`, { token })
  const ended = await held
  t.equal(ended.status, 410, 'a poll held across the expiry ends with 410')
  t.ok(ended.ms < 3000, `at the expiry, not at the wait (${ended.ms} ms)`)
  for (const [path, body] of ENDPOINTS) {
    const answer = await call(stack, `/api/v1/agent/poll/${pollId}${path}`, { token, body })
    t.equal(answer.status, 410, `${path || '/'} answers 410`)
    t.match(answer.body, { code: 'session_expired', message: /expired/ })
  }
})

t.test('a burst of registrations from one address is refused with 429 and retry_after', async (t) => {
  const stack = await startTestStack(t, { env: { SVC_SETUP_REGISTRATIONS_PER_MINUTE: '3' } })
  for (let i = 0; i < 3; i++) await register(stack)
  const refused = await call(stack, '/api/v1/agent/setup', { body: { project_name: 'Shop', agent_name: 'a', git_remote: '' } })
  t.equal(refused.status, 429)
  t.match(refused.body, { code: 'rate_limited' })
  t.ok((refused.body.retry_after as number) >= 1 && (refused.body.retry_after as number) <= 60, 'retry_after in seconds')
})

t.test('a session holds at most two long polls; a client that disconnects frees its place', async (t) => {
  const stack = await startTestStack(t)
  const { pollId, token } = await register(stack)
  const first = new AbortController()
  const held = [call(stack, `/api/v1/agent/poll/${pollId}?wait=20`, { token, signal: first.signal }).catch(() => undefined), call(stack, `/api/v1/agent/poll/${pollId}/state?wait=20`, { token })]
  await new Promise((resolve) => setTimeout(resolve, 400))
  const third = await call(stack, `/api/v1/agent/poll/${pollId}?wait=20`, { token })
  t.match(third, { status: 429, body: { code: 'too_many_waiters', retry_after: 1 } })
  first.abort()
  await waitFor(async () => Number(await stack.redis.get(stack.keys.agentWaiters(pollId))) === 1, 5000)
  const replacement = call(stack, `/api/v1/agent/poll/${pollId}?wait=1`, { token })
  t.equal((await replacement).status, 200, 'the freed place is taken by a new poll')
  await approve(stack, pollId)
  const state = await held[1]
  t.equal(state?.status, 200, 'the held state poll ends when approval changes the facts')
})

t.test('bad registration bodies name the field; none creates a session', async (t) => {
  const stack = await startTestStack(t)
  const cases: Array<[unknown, string]> = [
    [{ agent_name: 'a', git_remote: '' }, 'project_name'],
    [{ project_name: 'x', agent_name: 'a', git_remote: 'not a repo' }, 'git_remote'],
    [{ project_name: '', agent_name: 'a', git_remote: '' }, 'project_name'],
    [{ project_name: 'x', agent_name: 7, git_remote: '' }, 'agent_name'],
  ]
  for (const [body, field] of cases) {
    const answer = await call(stack, '/api/v1/agent/setup', { body })
    t.match(answer, { status: 400, body: { code: 'invalid_request', field } }, `names ${field}`)
  }
  const notJson = await fetch(`${stack.baseUrl}/api/v1/agent/setup`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"project_name":' })
  t.equal(notJson.status, 400)
  const wrongType = await fetch(`${stack.baseUrl}/api/v1/agent/setup`, { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: '{}' })
  t.equal(wrongType.status, 415)
  const { rows } = await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM setup_sessions')
  t.equal(rows[0]!.n, 0)
})

t.test('behind a trusted proxy the registration limit counts each client; otherwise X-Forwarded-For is ignored', async (t) => {
  const register = (stack: TestStack, forwardedFor: string) => call(stack, '/api/v1/agent/setup', { body: { project_name: 'Shop', agent_name: 'a', git_remote: '' }, headers: { 'X-Forwarded-For': forwardedFor } })
  const direct = await startTestStack(t, { env: { SVC_SETUP_REGISTRATIONS_PER_MINUTE: '2' } })
  const spoofed = [await register(direct, '10.0.0.1'), await register(direct, '10.0.0.2'), await register(direct, '10.0.0.3')]
  t.same(spoofed.map((a) => a.status), [200, 200, 429], 'a header anyone can send does not buy more registrations')
  const proxied = await startTestStack(t, { env: { SVC_SETUP_REGISTRATIONS_PER_MINUTE: '2', SVC_TRUSTED_PROXY_HOPS: '1' } })
  const a = [await register(proxied, '203.0.113.7'), await register(proxied, '203.0.113.7'), await register(proxied, '203.0.113.7')]
  t.same(a.map((x) => x.status), [200, 200, 429], 'one client behind the proxy is limited')
  t.equal((await register(proxied, '198.51.100.9')).status, 200, 'another client behind the same proxy is not')
  t.equal((await register(proxied, '6.6.6.6, 203.0.113.7')).status, 429, 'only the entry the trusted proxy appended counts, not what the client claimed before it')
})

t.test('a source-map upload wakes a held state poll at once: sourcemaps_uploaded shows without waiting out the poll', async (t) => {
  const stack = await startTestStack(t)
  const { pollId, token } = await register(stack)
  await approve(stack, pollId)
  const keys = await call(stack, `/api/v1/agent/poll/${pollId}`, { token })
  const held = call(stack, `/api/v1/agent/poll/${pollId}/state?wait=25`, { token })
  await new Promise((resolve) => setTimeout(resolve, 300))
  const map = JSON.stringify({ version: 3, sources: ['src/a.ts'], names: [], mappings: 'AAAA' })
  const upload = await fetch(`${stack.baseUrl}/api/v1/sourcemaps?release=r1&path=/assets/a.js`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-API-Key': keys.body.sourcemap_key as string }, body: map })
  t.equal(upload.status, 201)
  const state = await held
  t.equal(state.body.sourcemaps_uploaded, true)
  t.ok(state.ms < 10_000, `within the long poll, not at its end (${state.ms} ms)`)
})
