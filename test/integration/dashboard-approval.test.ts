import t from 'tap'
import uWS from 'uWebSockets.js'
import { registerDashboardRoutes, type DashboardDeps } from '../../services/ingress/dashboard/routes.js'
import { registerSession, type SetupDeps } from '../../services/ingress/setup/sessions.js'
import { createLogger } from '../../shared/log.js'
import type { CodehostPlugin } from '../../shared/plugins/types.js'
import { startTestStack, type TestStack } from '../helpers/stack.js'

interface Teardown {
  teardown(fn: () => unknown): void
}

/** A dashboard on its own uWS app (port 0) over a real stack's database and Redis. */
async function startDashboard(t: Teardown, options: { codehost?: CodehostPlugin; secureCookies?: boolean } = {}): Promise<{ stack: TestStack; baseUrl: string; deps: DashboardDeps }> {
  const stack = await startTestStack(t, { ingress: false })
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

async function register(deps: DashboardDeps, input: { projectName?: string; agentName?: string; gitRemote?: string } = {}): Promise<string> {
  const answer = await registerSession(deps.setup, { projectName: 'Shop', agentName: 'claude-code on build-01', gitRemote: 'acme/shop', ...input }, '127.0.0.1')
  return answer.poll_id as string
}

async function sessionRow(stack: TestStack, pollId: string) {
  const { rows } = await stack.db.query<{ status: string; message: string; project_id: string | null; approved_by: string | null }>('SELECT status, message, project_id, approved_by FROM setup_sessions WHERE id = $1', [pollId])
  return rows[0]!
}

t.test('a signed-out visitor of auth_url is offered sign-in and sign-up that come back to the request', async (t) => {
  const { deps, baseUrl } = await startDashboard(t)
  const pollId = await register(deps)
  const client = new Client(baseUrl)
  const page = await client.get(`/setup/${pollId}`)
  t.equal(page.status, 200)
  const next = encodeURIComponent(`/setup/${pollId}`)
  t.match(page.text, `href="/signin?next=${next}"`)
  t.match(page.text, `href="/signup?next=${next}"`)
  t.notMatch(page.text, 'id="approve"', 'no buttons before sign-in')
  const signup = await client.signUp('ada@example.test', 'correct horse battery', `/setup/${pollId}`)
  t.equal(signup.location, `/setup/${pollId}`, 'after sign-up the person is back on the request')
  t.equal((await client.get('/setup/unknown-poll-id')).status, 404, 'an unknown request is a 404 page')
})

t.test('a hostile agent name, project name and git remote are shown as text, never as markup', async (t) => {
  const { deps, baseUrl } = await startDashboard(t)
  const pollId = await register(deps, { agentName: '<script>alert("agent")</script>', projectName: '"><img src=x onerror=alert(1)>', gitRemote: "acme/shop' onmouseover='x" })
  const client = new Client(baseUrl)
  await client.signUp('mallory-target@example.test')
  const page = await client.get(`/setup/${pollId}`)
  t.equal(page.status, 200)
  t.notMatch(page.text, '<script>', 'no script element reaches the page')
  t.notMatch(page.text, '<img src=x', 'no injected element')
  t.notMatch(page.text, "' onmouseover='", 'no attribute breaks out')
  t.match(page.text, '<dd class="agent-name">&lt;script&gt;alert(&quot;agent&quot;)&lt;/script&gt;</dd>')
  t.match(page.text, '&quot;&gt;&lt;img src=x onerror=alert(1)&gt;')
  t.match(page.text, 'acme/shop&#39; onmouseover=&#39;x')
})

t.test('approving a pending request provisions the session into a new project the approver owns', async (t) => {
  const { stack, deps, baseUrl } = await startDashboard(t)
  const pollId = await register(deps, { projectName: 'Shop' })
  const client = new Client(baseUrl)
  await client.signUp('owner@example.test')
  const page = await client.get(`/setup/${pollId}`)
  t.match(page.text, 'claude-code on build-01')
  t.match(page.text, 'acme/shop')
  t.match(page.text, /<input type="radio" id="project-new" name="project" value="new" checked>/, 'a new project is the default')
  t.match(page.text, 'id="approve"')
  t.match(page.text, 'id="decline"')
  const done = await client.post(`/setup/${pollId}/approve`, { project: 'new' })
  t.equal(done.status, 200)
  t.match(done.text, 'will continue on its own')
  const row = await sessionRow(stack, pollId)
  t.equal(row.status, 'provisioned')
  const { rows } = await stack.db.query<{ name: string; email: string }>('SELECT p.name, u.email FROM projects p JOIN users u ON u.id = p.owner_id WHERE p.id = $1', [row.project_id])
  t.same(rows, [{ name: 'Shop', email: 'owner@example.test' }])
  const again = await client.get(`/setup/${pollId}`)
  t.match(again.text, 'already approved')
  t.notMatch(again.text, 'id="approve"', 'a closed request has no buttons')
  const twice = await client.post(`/setup/${pollId}/approve`, { project: 'new' })
  t.equal(twice.status, 409, 'approving twice changes nothing')
})

t.test('a request can go into one of the approver’s own projects, never into another person’s', async (t) => {
  const { stack, deps, baseUrl } = await startDashboard(t)
  const owner = new Client(baseUrl)
  await owner.signUp('owner@example.test')
  const first = await register(deps, { projectName: 'Mine' })
  await owner.get(`/setup/${first}`)
  await owner.post(`/setup/${first}/approve`, { project: 'new' })
  const mine = (await sessionRow(stack, first)).project_id!

  const other = new Client(baseUrl)
  await other.signUp('other@example.test')
  const second = await register(deps)
  const page = await other.get(`/setup/${second}`)
  t.notMatch(page.text, mine, 'another person’s projects are not offered')
  const refused = await other.post(`/setup/${second}/approve`, { project: mine })
  t.equal(refused.status, 403)
  t.match(refused.text, 'only connect a project you own')
  t.equal((await sessionRow(stack, second)).status, 'pending')

  const third = await register(deps)
  const offered = await owner.get(`/setup/${third}`)
  t.match(offered.text, `value="${mine}"`, 'the owner is offered their project')
  const into = await owner.post(`/setup/${third}/approve`, { project: mine })
  t.equal(into.status, 200)
  t.equal((await sessionRow(stack, third)).project_id, mine)
})

t.test('declining fails the session with a message for the agent', async (t) => {
  const { stack, deps, baseUrl } = await startDashboard(t)
  const pollId = await register(deps)
  const client = new Client(baseUrl)
  await client.signUp('decider@example.test')
  await client.get(`/setup/${pollId}`)
  const declined = await client.post(`/setup/${pollId}/decline`, {})
  t.equal(declined.status, 200)
  t.match(declined.text, 'was declined')
  const row = await sessionRow(stack, pollId)
  t.equal(row.status, 'failed')
  t.match(row.message, 'declined')
  t.equal(row.project_id, null)
  const after = await client.get(`/setup/${pollId}`)
  t.match(after.text, 'declined this setup request')
  t.notMatch(after.text, 'id="approve"')
})

t.test('an expired request says so and shows no buttons, and cannot be approved', async (t) => {
  const { stack, deps, baseUrl } = await startDashboard(t)
  const pollId = await register(deps)
  await stack.db.query(`UPDATE setup_sessions SET expires_at = now() - interval '1 minute' WHERE id = $1`, [pollId])
  const client = new Client(baseUrl)
  await client.signUp('late@example.test')
  const page = await client.get(`/setup/${pollId}`)
  t.equal(page.status, 200)
  t.match(page.text, 'This request expired')
  t.notMatch(page.text, 'id="approve"')
  t.notMatch(page.text, 'id="decline"')
  const approve = await client.post(`/setup/${pollId}/approve`, { project: 'new' })
  t.equal(approve.status, 410)
  t.not((await sessionRow(stack, pollId)).status, 'provisioned')
})

t.test('a signed-out approve post, even with a valid form token, sends the browser to sign in and approves nothing', async (t) => {
  const { stack, deps, baseUrl } = await startDashboard(t)
  const pollId = await register(deps)
  const client = new Client(baseUrl)
  await client.get('/signin') // the signed-out approval page has no form; the sign-in page's token is valid for this browser
  const answer = await client.post(`/setup/${pollId}/approve`, { project: 'new' })
  t.equal(answer.status, 303)
  t.equal(answer.location, `/signin?next=${encodeURIComponent(`/setup/${pollId}`)}`)
  t.equal((await sessionRow(stack, pollId)).status, 'pending')
})

t.test('the code-host install link asks for sign-in, then leads to the app; without an app it is a 404 page', async (t) => {
  const codehost: CodehostPlugin = { installUrl: () => 'https://codehost.example/apps/svc/installations/new', checkRepository: async () => ({ status: 'invalid', message: 'unused' }), oauth: undefined }
  const withApp = await startDashboard(t, { codehost })
  const pollId = await register(withApp.deps)
  const client = new Client(withApp.baseUrl)
  const signedOut = await client.get(`/setup/${pollId}/codehost-install`)
  t.equal(signedOut.status, 302)
  t.equal(signedOut.location, `/signin?next=${encodeURIComponent(`/setup/${pollId}/codehost-install`)}`)
  const signup = await client.signUp('installer@example.test', 'correct horse battery', `/setup/${pollId}/codehost-install`)
  t.equal(signup.location, `/setup/${pollId}/codehost-install`)
  const install = await client.get(signup.location)
  t.equal(install.status, 302)
  t.equal(install.location, 'https://codehost.example/apps/svc/installations/new')

  const without = await startDashboard(t)
  const other = await register(without.deps)
  const person = new Client(without.baseUrl)
  await person.signUp('nobody-installs@example.test')
  const missing = await person.get(`/setup/${other}/codehost-install`)
  t.equal(missing.status, 404)
  t.match(missing.text, 'no code host app')
})
