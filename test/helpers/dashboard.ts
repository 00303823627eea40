/**
 * Driving the dashboard that the test stack's ingress serves: a client that keeps cookies and form
 * tokens the way a browser does, and setup requests registered straight into the stack.
 */
import { registerSession, type Registration } from '../../services/web/setup/sessions.js'
import { createLogger } from '../../shared/log.js'
import type { CodehostPlugin } from '../../shared/plugins/types.js'
import type { TestStack } from './stack.js'

/** One answer as the client saw it: redirects are not followed, so location is the raw header. */
export interface PageAnswer {
  status: number
  text: string
  headers: Headers
  setCookies: string[]
  location: string
}

/** A browser without a browser: a cookie jar, manual redirects, and the CSRF field of the last page. */
export class DashboardClient {
  readonly cookies = new Map<string, string>()
  csrf = ''
  constructor(readonly baseUrl: string) {}

  /** Sends a request with the jar's cookies (a form makes it a urlencoded POST), then keeps what the answer set. */
  async request(path: string, init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {}): Promise<PageAnswer> {
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

  /** Opens a page. */
  get(path: string): Promise<PageAnswer> {
    return this.request(path)
  }

  /** Submits a form with the CSRF token of the last page, as the page's own form would. */
  post(path: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<PageAnswer> {
    return this.request(path, { form: { csrf: this.csrf, ...form }, headers })
  }

  /** Creates an account through the sign-up page, which then sends the browser to next. */
  async signUp(email: string, password = 'correct horse battery', next = '/'): Promise<PageAnswer> {
    await this.get(`/signup?next=${encodeURIComponent(next)}`)
    return this.post('/signup', { email, password, display_name: '', next })
  }
}

/**
 * Registers a setup request as an agent would, but through the domain function rather than the
 * API, so a test can store names the API's schema refuses (hostile text must still render as text).
 */
export async function registerSetupSession(stack: TestStack, input: Partial<Registration> = {}): Promise<{ pollId: string; authUrl: string }> {
  const setup = { db: stack.db, redis: stack.redis, keys: stack.keys, log: createLogger('silent'), baseUrl: stack.config.baseUrl, limits: stack.config.setup, codehost: undefined, chat: undefined }
  const answer = await registerSession(setup, { projectName: 'Shop', agentName: 'claude-code on build-01', gitRemote: 'acme/shop', ...input }, '127.0.0.1')
  return { pollId: answer.poll_id as string, authUrl: answer.auth_url as string }
}

/** Approves, as the signed-in client, a new setup request into a project named name; answers its id. */
export async function approveNewProject(stack: TestStack, client: DashboardClient, name: string): Promise<string> {
  const { pollId } = await registerSetupSession(stack, { projectName: name, agentName: 'agent', gitRemote: '' })
  await client.get(`/setup/${pollId}`)
  const approved = await client.post(`/setup/${pollId}/approve`, { project: 'new' })
  if (approved.status !== 200) throw new Error(`approve answered ${approved.status}`)
  const { rows } = await stack.db.query<{ project_id: string }>('SELECT project_id FROM setup_sessions WHERE id = $1', [pollId])
  return rows[0]!.project_id
}

/** A code host with an app to install and nothing else: no repository checks, no sign-in. */
export const INSTALL_ONLY_CODEHOST: CodehostPlugin = {
  installUrl: () => 'https://codehost.example/apps/svc/installations/new',
  checkRepository: async () => ({ status: 'invalid', message: 'unused' }),
  oauth: undefined,
  repositories: undefined,
}
