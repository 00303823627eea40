import t from 'tap'
import uWS from 'uWebSockets.js'
import { registerDashboardRoutes, type DashboardDeps } from '../../services/ingress/dashboard/routes.js'
import { registerSession, type SetupDeps } from '../../services/ingress/setup/sessions.js'
import { mintKey } from '../../shared/keys.js'
import { createLogger } from '../../shared/log.js'
import type { CodehostPlugin } from '../../shared/plugins/types.js'
import { postEvent, sampleEvent, startTestStack, waitFor, type TestStack } from '../helpers/stack.js'

interface Teardown {
  teardown(fn: () => unknown): void
}

/** A dashboard on its own uWS app (port 0) over a real stack's database and Redis. */
async function startDashboard(t: Teardown, options: { codehost?: CodehostPlugin; secureCookies?: boolean; events?: boolean } = {}): Promise<{ stack: TestStack; baseUrl: string; deps: DashboardDeps }> {
  // With events, the stack's own ingress and a grouper turn posted events into issues.
  const stack = await startTestStack(t, options.events ? { worker: true } : { ingress: false })
  const app = uWS.App()
  const socket = await new Promise<uWS.us_listen_socket>((resolve, reject) => app.listen('127.0.0.1', 0, (s) => (s ? resolve(s) : reject(new Error('no port')))))
  t.teardown(() => {
    uWS.us_listen_socket_close(socket)
    ;(app as unknown as { close(): void }).close()
  })
  const baseUrl = `http://127.0.0.1:${uWS.us_socket_local_port(socket)}`
  const log = createLogger('silent')
  const setup: SetupDeps = { db: stack.db, redis: stack.redis, keys: stack.keys, log, baseUrl, limits: stack.config.setup, codehost: options.codehost, chat: undefined }
  const deps: DashboardDeps = { setup, log, baseUrl, dashboardOrigin: undefined, codehost: options.codehost, secureCookies: options.secureCookies ?? false, redisKeyPrefix: stack.prefix }
  registerDashboardRoutes(app, deps)
  return { stack, baseUrl, deps }
}

/** A browser without a browser: a cookie jar, manual redirects, and the CSRF field of the last page. */
class Client {
  readonly cookies = new Map<string, string>()
  csrf = ''
  constructor(readonly baseUrl: string) {}

  async request(path: string, init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {}) {
    const headers: Record<string, string> = { ...init.headers }
    if (this.cookies.size > 0) headers.cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ')
    if (init.form) headers['content-type'] = 'application/x-www-form-urlencoded'
    const response = await fetch(`${this.baseUrl}${path}`, { method: init.method ?? (init.form ? 'POST' : 'GET'), headers, body: init.form ? new URLSearchParams(init.form).toString() : undefined, redirect: 'manual' })
    const setCookies = response.headers.getSetCookie()
    for (const line of setCookies) {
      const [pair] = line.split(';')
      const at = pair!.indexOf('=')
      const name = pair!.slice(0, at)
      const value = pair!.slice(at + 1)
      if (/Max-Age=0/.test(line)) this.cookies.delete(name)
      else this.cookies.set(name, value)
    }
    const text = await response.text()
    const field = /name="csrf" value="([^"]+)"/.exec(text)
    if (field) this.csrf = field[1]!
    return { status: response.status, text, headers: response.headers, setCookies, location: response.headers.get('location') ?? '' }
  }

  get(path: string) {
    return this.request(path)
  }

  post(path: string, form: Record<string, string>, headers: Record<string, string> = {}) {
    return this.request(path, { form: { csrf: this.csrf, ...form }, headers })
  }

  async signUp(email: string, password = 'correct horse battery', next = '/') {
    await this.get(`/signup?next=${encodeURIComponent(next)}`)
    return this.post('/signup', { email, password, display_name: '', next })
  }
}

/** Signs client up and approves a new setup request into a project named name; answers its id. */
async function ownedProject(stack: TestStack, deps: DashboardDeps, client: Client, name: string): Promise<string> {
  const answer = await registerSession(deps.setup, { projectName: name, agentName: 'agent', gitRemote: '' }, '127.0.0.1')
  const pollId = answer.poll_id as string
  await client.get(`/setup/${pollId}`)
  const approved = await client.post(`/setup/${pollId}/approve`, { project: 'new' })
  if (approved.status !== 200) throw new Error(`approve answered ${approved.status}`)
  const { rows } = await stack.db.query<{ project_id: string }>('SELECT project_id FROM setup_sessions WHERE id = $1', [pollId])
  return rows[0]!.project_id
}

t.test('a signed-out visit to the project list goes to sign-in, and a project page comes back to itself', async (t) => {
  const { baseUrl } = await startDashboard(t)
  const client = new Client(baseUrl)
  const home = await client.get('/')
  t.equal(home.status, 302)
  t.equal(home.location, '/signin')
  const project = await client.get('/projects/00000000-0000-4000-8000-000000000000/issues')
  t.equal(project.status, 302)
  t.equal(project.location, `/signin?next=${encodeURIComponent('/projects/00000000-0000-4000-8000-000000000000/issues')}`)
})

t.test('the project list and pages show only the signed-in person’s projects; another person gets 404', async (t) => {
  const { stack, deps, baseUrl } = await startDashboard(t)
  const owner = new Client(baseUrl)
  await owner.signUp('owner@example.test')
  const projectId = await ownedProject(stack, deps, owner, 'Storefront')
  const list = await owner.get('/')
  t.match(list.text, `<a href="/projects/${projectId}"><strong>Storefront</strong></a>`)
  t.notMatch(list.text, stack.projectId, 'the seeded project, owned by nobody, is not listed')
  const overview = await owner.get(`/projects/${projectId}`)
  t.equal(overview.status, 200)
  const { rows: keys } = await stack.db.query<{ id: string; kind: string }>('SELECT id, kind FROM api_keys WHERE project_id = $1', [projectId])
  t.equal(keys.length, 3)
  for (const key of keys) t.match(overview.text, `<code>${key.id}</code>`, `key id of the ${key.kind} key is shown`)
  t.notMatch(overview.text, /svc_[psa]k_[a-z0-9]{12}_/, 'no key token is shown')
  t.match(overview.text, 'none uploaded')

  const stranger = new Client(baseUrl)
  await stranger.signUp('stranger@example.test')
  t.notMatch((await stranger.get('/')).text, 'Storefront')
  for (const path of [`/projects/${projectId}`, `/projects/${projectId}/issues`, `/projects/${projectId}/settings/codehost`, `/projects/${projectId}/issues/00000000-0000-4000-8000-000000000000`]) {
    const answer = await stranger.get(path)
    t.equal(answer.status, 404, `${path} is not found for another person`)
    t.notMatch(answer.text, 'Storefront')
  }
  t.equal((await owner.get('/projects/not-a-uuid')).status, 404)
})

t.test('the issue list and issue page show what the grouper stored, with hostile error text escaped', async (t) => {
  const { stack, deps, baseUrl } = await startDashboard(t, { events: true })
  const client = new Client(baseUrl)
  await client.signUp('dev@example.test')
  const projectId = await ownedProject(stack, deps, client, 'Shop')
  const { token } = await mintKey(stack.db, projectId, 'ingest', 'test')
  const hostile = '<img src=x onerror=alert(1)>'
  const event = sampleEvent({ error: { type: 'TypeError', message: hostile, stack: `TypeError: ${hostile}\n    at renderCart (http://localhost:5173/assets/index-4f3a9c2b.js:12:34)` } })
  const posted = await postEvent(stack.baseUrl, event, { 'content-type': 'application/json', 'x-api-key': token })
  t.equal(posted.status, 202)
  const issueId = await waitFor(async () => (await stack.db.query<{ id: string }>('SELECT id FROM issues WHERE project_id = $1', [projectId])).rows[0]?.id)

  const list = await client.get(`/projects/${projectId}/issues`)
  t.equal(list.status, 200)
  t.match(list.text, `href="/projects/${projectId}/issues/${issueId}"`)
  t.match(list.text, '&lt;img src=x onerror=alert(1)&gt;')
  t.notMatch(list.text, hostile)
  t.match(list.text, /<td class="num">1<\/td>/, 'event count')

  const page = await client.get(`/projects/${projectId}/issues/${issueId}`)
  t.equal(page.status, 200)
  t.match(page.text, '<span class="status">new</span>')
  t.match(page.text, 'at renderCart (http://localhost:5173/assets/index-4f3a9c2b.js:12:34)', 'the latest event’s stack')
  t.notMatch(page.text, hostile)
  t.equal((await client.get(`/projects/${projectId}/issues/00000000-0000-4000-8000-000000000000`)).status, 404)
})

t.test('code-host settings show the attached repository and the install link only when an app exists', async (t) => {
  const codehost: CodehostPlugin = { installUrl: () => 'https://codehost.example/apps/svc/installations/new', checkRepository: async () => ({ status: 'invalid', message: 'unused' }), oauth: undefined }
  const withApp = await startDashboard(t, { codehost })
  const client = new Client(withApp.baseUrl)
  await client.signUp('settings@example.test')
  const projectId = await ownedProject(withApp.stack, withApp.deps, client, 'Repo app')
  await withApp.stack.db.query(`UPDATE projects SET codehost_repo = 'acme/shop', codehost_connected_at = now() WHERE id = $1`, [projectId])
  const page = await client.get(`/projects/${projectId}/settings/codehost`)
  t.equal(page.status, 200)
  t.match(page.text, '<code>acme/shop</code>')
  t.match(page.text, 'href="https://codehost.example/apps/svc/installations/new"')

  const without = await startDashboard(t)
  const person = new Client(without.baseUrl)
  await person.signUp('plain@example.test')
  const plain = await ownedProject(without.stack, without.deps, person, 'No app')
  const bare = await person.get(`/projects/${plain}/settings/codehost`)
  t.match(bare.text, 'no code host app configured')
  t.notMatch(bare.text, 'Install the code host app')
})
