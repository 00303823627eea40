import t from 'tap'
import { createObjectStore } from '../../../shared/object-store.js'
import { approveNewProject, DashboardClient, registerSetupSession } from '../../helpers/dashboard.js'
import { callTool, connectAgent, storeEvents } from '../../helpers/mcp.js'
import { pageLoad, seedRecording } from '../../helpers/browser/recording-fixture.js'
import { startTestStack, type TestStack } from '../../helpers/stack.js'

// Odd input as an attacker sends it, to every route that takes a filter, a field or an id: text
// PostgreSQL cannot hold (NUL, a lone surrogate), invalid and overlong UTF-8, broken escapes. No
// answer may be a 500: a filter reads such text as stored text reads (U+FFFD), a field refuses it.

/** Percent-encoded, as they travel in an address or a form body. */
const ODD_ENCODED = ['%00', 'a%00b', '%00%00%00', '%FF', '%ED%A0%80', '%C0%80', '%E2%80%AE', '%', '%2', 'a%0Ab']
/** As JSON carries them (JSON.stringify writes a lone surrogate as its \u escape). */
const ODD_TEXT = ['\0', 'a\0b', '\ud800', 'x\udc00y', '\uFFFD', '\u202e']
const UNSTORABLE_TEXT = ODD_TEXT.filter((text) => text.includes('\0') || !text.isWellFormed())

/** A stack whose rate limits let the fuzz reach every handler (a 429 would hide what it does). */
async function oddStack(t: Parameters<typeof startTestStack>[0]) {
  const stack = await startTestStack(t, { env: { SVC_MCP_CALLS_PER_MINUTE: '100000', SVC_SETUP_REGISTRATIONS_PER_MINUTE: '100000', SVC_SETUP_CALLS_PER_MINUTE: '100000' } })
  const client = new DashboardClient(stack.baseUrl)
  await client.signUp('owner@example.test')
  const projectId = await approveNewProject(stack, client, 'Shop')
  const [issueId] = await storeEvents(stack, projectId, [{}])
  return { stack, client, projectId, issueId: issueId! }
}

/** Every odd value in every parameter of path: the statuses seen, as "status path" for the ones at or over 500. */
async function fuzzQuery(client: DashboardClient, path: string, names: string[]): Promise<string[]> {
  const failed: string[] = []
  for (const name of names) {
    for (const odd of ODD_ENCODED) {
      const url = `${path}${path.includes('?') ? '&' : '?'}${name}=${odd}`
      const answer = await client.get(url)
      if (answer.status >= 500) failed.push(`${answer.status} GET ${url}`)
    }
  }
  return failed
}

/** Every odd value in every field of a form (with the page's CSRF token); answers the failures and the statuses. */
async function fuzzForm(client: DashboardClient, page: string, path: string, fields: string[]): Promise<{ failed: string[]; statuses: Map<string, number> }> {
  const failed: string[] = []
  const statuses = new Map<string, number>()
  for (const field of fields) {
    for (const odd of ODD_ENCODED) {
      await client.get(page)
      const response = await fetch(`${client.baseUrl}${path}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: [...client.cookies].map(([n, v]) => `${n}=${v}`).join('; ') },
        body: `csrf=${client.csrf}&${field}=${odd}`,
      })
      await response.text()
      statuses.set(`${field}=${odd}`, response.status)
      if (response.status >= 500) failed.push(`${response.status} POST ${path} ${field}=${odd}`)
    }
  }
  return { failed, statuses }
}

/** A setup-session call with a JSON body (or none), as an agent makes it. */
async function agentCall(stack: TestStack, path: string, body?: unknown, token?: string): Promise<{ status: number; json: Record<string, unknown> }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (token) headers['x-svc-poll-token'] = token
  const response = await fetch(`${stack.baseUrl}${path}`, { method: body === undefined ? 'GET' : 'POST', headers, body: body === undefined ? undefined : JSON.stringify(body) })
  const text = await response.text()
  return { status: response.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} }
}

t.test('dashboard pages answer odd filters and ids without a 500, and a filter reads a NUL as stored text reads it', async (t) => {
  const { stack, client, projectId, issueId } = await oddStack(t)
  const objects = await createObjectStore(stack.config.objectStore)
  // Ingestion stores a NUL the SDK sent as U+FFFD (shared/domain/recording-chunk.ts); the filter must find it from the same text.
  await seedRecording(stack.db, objects, { projectId, userLabel: 'a\uFFFDb', chunks: new Map([[0, pageLoad(Date.parse('2026-11-21T10:00:00Z'), 'https://shop.example.com/odd', { heading: 'h', paragraph: 'p', button: 'b' }).events]]) })
  const base = `/projects/${projectId}`
  const failed = [
    ...(await fuzzQuery(client, `${base}/recordings`, ['user', 'page', 'errors', 'p'])),
    ...(await fuzzQuery(client, `${base}/issues`, ['noise'])),
    ...(await fuzzQuery(client, `${base}/issues/${issueId}`, ['investigation', 'fix'])),
    ...(await fuzzQuery(client, `${base}/known-problems`, ['kind', 'archived', 'published', 'p'])),
    ...(await fuzzQuery(client, `${base}/settings/codehost`, ['saved'])),
    ...(await fuzzQuery(client, `${base}/settings/api-keys`, ['revoked'])),
    ...(await fuzzQuery(client, `${base}/digests`, ['x'])),
    ...(await fuzzQuery(client, base, ['x'])),
    ...(await fuzzQuery(client, '/signin', ['next'])),
    ...(await fuzzQuery(new DashboardClient(stack.baseUrl), '/signin', ['next'])),
    ...(await fuzzQuery(new DashboardClient(stack.baseUrl), '/signup', ['next'])),
    ...(await fuzzQuery(new DashboardClient(stack.baseUrl), `${base}/recordings`, ['user'])),
  ]
  for (const odd of ODD_ENCODED) {
    for (const path of [`/projects/${odd}`, `${base}/issues/${odd}`, `${base}/recordings/${odd}?at=${odd}`, `${base}/known-problems/${odd}`, `/setup/${odd}`, `/setup/${odd}/codehost-install`]) {
      const answer = await client.get(path)
      if (answer.status >= 500) failed.push(`${answer.status} GET ${path}`)
    }
  }
  t.same(failed, [], 'no odd filter, parameter or id is a 500')

  const nul = await client.get(`${base}/recordings?user=a%00b`)
  t.equal(nul.status, 200, 'the filter is answered as a filter')
  t.match(nul.text, '<span class="user-label">a\uFFFDb</span>', 'and finds what ingestion stored from the same text')
  const none = await client.get(`${base}/recordings?page=%00`)
  t.equal(none.status, 200)
  t.match(none.text, 'No recording matches these filters.')
})

t.test('dashboard forms refuse a NUL in any field with a 400 page, and answer other odd text without a 500', async (t) => {
  const { stack, client, projectId, issueId } = await oddStack(t)
  const base = `/projects/${projectId}`
  const { pollId } = await registerSetupSession(stack, { projectName: 'Other', agentName: 'agent', gitRemote: '' })
  const forms: Array<[page: string, path: string, fields: string[]]> = [
    [`${base}/settings/api-keys`, `${base}/settings/api-keys`, ['kind', 'label']],
    [`${base}/settings/codehost`, `${base}/settings/codehost`, ['codehost_repo']],
    [`${base}/settings/codehost`, `${base}/settings/fixes`, ['limited_drafts']],
    [`${base}/settings/codehost`, `${base}/settings/timezone`, ['timezone']],
    [`${base}/known-problems`, `${base}/known-problems/auto-investigate`, ['on']],
    [`${base}/issues/${issueId}`, `${base}/issues/${issueId}/investigate`, ['x']],
    [`/setup/${pollId}`, `/setup/${pollId}/approve`, ['project']],
  ]
  const failed: string[] = []
  for (const [page, path, fields] of forms) {
    const outcome = await fuzzForm(client, page, path, fields)
    failed.push(...outcome.failed)
    for (const field of fields) t.equal(outcome.statuses.get(`${field}=a%00b`), 400, `${path} refuses a NUL in ${field}`)
  }
  const signedOut = new DashboardClient(stack.baseUrl)
  for (const [page, path, fields] of [['/signin', '/signin', ['email', 'password', 'next']], ['/signup', '/signup', ['email', 'password', 'display_name', 'next']]] as const) {
    const outcome = await fuzzForm(signedOut, page, path, [...fields])
    failed.push(...outcome.failed)
    for (const field of fields) t.equal(outcome.statuses.get(`${field}=%00`), 400, `${path} refuses a NUL in ${field}`)
  }
  t.same(failed, [], 'no odd form field is a 500')

  await client.get(`${base}/settings/api-keys`)
  const refused = await client.post(`${base}/settings/api-keys`, { kind: 'api', label: 'ci\0bot' })
  t.equal(refused.status, 400)
  t.match(refused.text, 'Form not accepted')
  t.match(refused.text, 'The field &quot;label&quot; holds a character that cannot be saved')
  const { rows } = await stack.db.query<{ n: number }>("SELECT count(*)::int AS n FROM api_keys WHERE label LIKE 'ci%bot'")
  t.equal(rows[0]!.n, 0, 'nothing was saved')
  const named = await client.request(`${base}/settings/api-keys`, { form: { csrf: client.csrf, 'x\0y': '1' } })
  t.equal(named.status, 400, 'a field name is refused as its value is')
})

t.test('the setup-session API refuses unstorable text in any body field as invalid_request naming it', async (t) => {
  const { stack } = await oddStack(t)
  const registered = await agentCall(stack, '/api/v1/agent/setup', { project_name: 'Shop', agent_name: 'agent', git_remote: '' })
  t.equal(registered.status, 200)
  const pollId = registered.json.poll_id as string
  const token = registered.json.poll_token as string
  const failed: string[] = []
  const bodies: Array<[path: string, body: Record<string, unknown>, field: string]> = [
    ['/api/v1/agent/setup', { project_name: 'Shop', agent_name: 'agent', git_remote: '' }, 'project_name'],
    ['/api/v1/agent/setup', { project_name: 'Shop', agent_name: 'agent', git_remote: '' }, 'agent_name'],
    ['/api/v1/agent/setup', { project_name: 'Shop', agent_name: 'agent', git_remote: '' }, 'git_remote'],
    [`/api/v1/agent/poll/${pollId}/progress`, { step: 'sdk_installed', status: 'done', note: '' }, 'note'],
    [`/api/v1/agent/poll/${pollId}/progress`, { step: 'sdk_installed', status: 'done' }, 'step'],
    [`/api/v1/agent/poll/${pollId}/codehost`, { repo: 'acme/shop' }, 'repo'],
    [`/api/v1/agent/poll/${pollId}/chat`, { webhook_url: 'https://chat.example/hook' }, 'webhook_url'],
    [`/api/v1/agent/poll/${pollId}/complete`, {}, 'extra'],
  ]
  for (const [path, body, field] of bodies) {
    for (const odd of ODD_TEXT) {
      const answer = await agentCall(stack, path, { ...body, [field]: odd }, token)
      if (answer.status >= 500) failed.push(`${answer.status} POST ${path} ${field}=${JSON.stringify(odd)}`)
      if (UNSTORABLE_TEXT.includes(odd)) {
        t.same({ status: answer.status, code: answer.json.code, field: answer.json.field }, { status: 400, code: 'invalid_request', field }, `${path} refuses ${JSON.stringify(odd)} in ${field}`)
      }
    }
  }
  const nested = await agentCall(stack, `/api/v1/agent/poll/${pollId}/progress`, { step: 'sdk_installed', status: 'done', [`a\0b`]: { c: ['x', '\ud800'] } }, token)
  t.match(nested.json, { code: 'invalid_request', field: 'a\uFFFDb' }, 'a key is checked before what it holds, and named as it can be shown')
  for (const odd of ODD_ENCODED) {
    for (const path of [`/api/v1/agent/poll/${odd}`, `/api/v1/agent/poll/${pollId}?wait=${odd}`, `/api/v1/agent/poll/${pollId}/state?until=${odd}`]) {
      const answer = await agentCall(stack, path, undefined, token)
      if (answer.status >= 500) failed.push(`${answer.status} GET ${path}`)
    }
  }
  t.same(failed, [], 'no odd body or parameter is a 500')
})

t.test('the project API, the tool server and the source-map upload answer odd text without a 500', async (t) => {
  const { stack, client, projectId } = await oddStack(t)
  const failed: string[] = []
  const cookie = [...client.cookies].map(([n, v]) => `${n}=${v}`).join('; ')
  for (const odd of ODD_ENCODED) {
    for (const [method, path] of [
      ['GET', `/api/v1/projects/${projectId}/issues/${odd}`],
      ['GET', `/api/v1/projects/${odd}/issues/${odd}`],
      ['GET', `/api/v1/projects/${projectId}/digests?limit=${odd}`],
      ['GET', `/api/v1/projects/${projectId}/recordings/${odd}/events`],
      ['POST', `/api/v1/projects/${projectId}/issues/${odd}/fix`],
    ] as const) {
      const response = await fetch(`${stack.baseUrl}${path}`, { method, headers: { cookie } })
      await response.text()
      if (response.status >= 500) failed.push(`${response.status} ${method} ${path}`)
    }
  }

  const key = await stack.mint('api')
  await storeEvents(stack, stack.projectId, [{}])
  const agent = await connectAgent(t, stack.baseUrl, key)
  const issueId = (await stack.db.query<{ id: string }>('SELECT id FROM issues WHERE project_id = $1 LIMIT 1', [stack.projectId])).rows[0]!.id
  const calls: Array<[tool: string, args: Record<string, unknown>, field: string]> = [
    ['list_issues', {}, 'status'],
    ['list_issues', {}, 'environment'],
    ['list_issues', {}, 'since'],
    ['list_issues', {}, 'cursor'],
    ['get_issue', {}, 'issue_id'],
    ['list_issue_events', { issue_id: issueId }, 'cursor'],
    ['list_known_problems', {}, 'cursor'],
    ['link_pull_request', { issue_id: issueId, url: 'https://codehost.example/acme/shop/pull/1' }, 'title'],
    ['start_fix', {}, 'issue_id'],
    ['get_setup_state', {}, 'extra'],
  ]
  for (const [tool, args, field] of calls) {
    for (const odd of ODD_TEXT) {
      const answer = await callTool(agent, tool, { ...args, [field]: odd })
      if (answer.body.code === 'internal_error') failed.push(`internal_error ${tool} ${field}=${JSON.stringify(odd)}`)
      if (UNSTORABLE_TEXT.includes(odd)) t.match({ isError: answer.isError, body: answer.body }, { isError: true, body: { code: 'invalid_arguments', message: new RegExp(`^${field} holds text that cannot be stored`) } }, `${tool} refuses ${JSON.stringify(odd)} in ${field}`)
    }
  }

  const mapKey = await stack.mint('sourcemap')
  const map = JSON.stringify({ version: 3, sources: ['src/a.ts'], names: [], mappings: 'AAAA' })
  for (const odd of ODD_ENCODED) {
    const path = `/api/v1/sourcemaps?release=shop%40${odd}&path=/assets/${odd}.js`
    const response = await fetch(`${stack.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': mapKey }, body: map })
    await response.text()
    if (response.status >= 500) failed.push(`${response.status} POST ${path}`)
  }
  t.same(failed, [], 'no odd id, parameter or argument is a 500')
})

t.test('signed out, a page with a 20 KB query sends the browser to sign in with a short Location, and sign-in returns to the page', async (t) => {
  const { stack, projectId } = await oddStack(t)
  const page = `/projects/${projectId}/recordings`
  const visitor = new DashboardClient(stack.baseUrl)
  const long = await visitor.get(`${page}?user=${'u'.repeat(20 * 1024)}&errors=1`)
  t.equal(long.status, 302)
  t.equal(long.location, `/signin?next=${encodeURIComponent(page)}`, 'the query is dropped, the path kept')
  t.ok(long.location.length < 1024, `Location is ${long.location.length} characters`)
  const short = await visitor.get(`${page}?user=bob&errors=1`)
  t.equal(short.location, `/signin?next=${encodeURIComponent(`${page}?user=bob&errors=1`)}`, 'a query of a sane length is kept whole')

  const signin = await visitor.get(long.location)
  t.equal(signin.status, 200)
  t.match(signin.text, `name="next" value="${page}"`, 'the sign-in form carries the page')
  const signed = await visitor.post('/signin', { email: 'owner@example.test', password: 'correct horse battery', next: page })
  t.equal(signed.status, 303)
  t.equal(signed.location, page, 'and sign-in returns to it')
  t.equal((await visitor.get(signed.location)).status, 200)
})
