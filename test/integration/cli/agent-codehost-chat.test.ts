// POST …/codehost and …/chat through the real plugins (GitHub's and Slack's official clients) to
// loopback servers that speak their wire protocols: every row of the spec's attach table and the
// chat answers, as an agent sees them.
import { randomBytes } from 'node:crypto'
import t from 'tap'
import { approveSetupSession } from '../../../services/web/setup/approval.js'
import { createLogger } from '../../../shared/log.js'
import { loadPlugin } from '../../../shared/plugins/loader.js'
import { closedOrigin } from '../../helpers/loopback/github-loopback.js'
import { startLoopbackPlugins } from '../../helpers/loopback/loopback-plugins.js'
import { startTestStack, type TestStack } from '../../helpers/stack.js'

const log = createLogger('silent')
const { github, chatReceiver, githubSettings, codehost, chat } = await startLoopbackPlugins(t, log)

async function session(stack: TestStack, approved = true): Promise<{ post: (path: string, body: unknown) => Promise<{ status: number; body: Record<string, unknown>; text: string }>; state: () => Promise<Record<string, unknown>> }> {
  const registered = (await (await fetch(`${stack.baseUrl}/api/v1/agent/setup`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ project_name: 'Shop', agent_name: 'agent', git_remote: '' }) })).json()) as { poll_id: string; poll_token: string }
  if (approved) {
    const { rows } = await stack.db.query<{ id: string }>('INSERT INTO users (email) VALUES ($1) RETURNING id', [`${registered.poll_id}@example.test`])
    const deps = { db: stack.db, redis: stack.redis, keys: stack.keys, log, baseUrl: stack.config.baseUrl, limits: stack.config.setup, codehost, chat }
    await approveSetupSession(deps, registered.poll_id, rows[0]!.id, { kind: 'new', name: 'Shop' })
  }
  const headers = { 'Content-Type': 'application/json', 'X-Svc-Poll-Token': registered.poll_token }
  const base = `${stack.baseUrl}/api/v1/agent/poll/${registered.poll_id}`
  return {
    async post(path, body) {
      const response = await fetch(`${base}${path}`, { method: 'POST', headers, body: JSON.stringify(body) })
      const text = await response.text()
      return { status: response.status, text, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} }
    },
    state: async () => (await (await fetch(`${base}/state`, { headers })).json()) as Record<string, unknown>,
  }
}

const owner = (): string => `acme-${randomBytes(4).toString('hex')}`

t.test('attach answers every row of the spec table', async (t) => {
  const stack = await startTestStack(t, { plugins: { codehost, chat } })
  const agent = await session(stack)

  const missing = owner()
  github.addRepository(`${missing}/shop`)
  t.match(await agent.post('/codehost', { repo: `${missing}/shop` }), { status: 400, body: { code: 'codehost_not_installed', codehost_install_url: /\/setup\/.+\/codehost-install$/ } }, 'app not installed: 400 codehost_not_installed')

  const partial = owner()
  github.addRepository(`${partial}/shop`)
  github.addRepository(`${partial}/other`)
  github.install(partial, { repositories: ['other'] })
  const notIn = await agent.post('/codehost', { repo: `${partial}/shop` })
  t.match(notIn, { status: 400, body: { code: 'repo_not_in_installation' } }, 'repository outside the installation: 400 repo_not_in_installation')
  t.type(notIn.body.add_repo_url, 'string', 'with add_repo_url')
  t.match(notIn.body.add_repo_url, /^http/)
  t.equal((await agent.state()).codehost_installed, true, 'the installation is known now')

  const good = owner()
  github.addRepository(`${good}/shop`, { private: true })
  const installation = github.install(good)
  const attached = await agent.post('/codehost', { repo: `${good}/shop` })
  t.match(attached, { status: 200, body: { codehost_connected: true, codehost_repo: `${good}/shop` } }, 'visible repository: 200, attached')
  const state = await agent.state()
  t.match(state, { codehost_connected: true, codehost_repo: `${good}/shop`, codehost_repo_access: 'visible_private', steps: { codehost: { status: 'done' } } })

  github.uninstall(installation)
  t.match(await agent.post('/codehost', { repo: `${good}/shop` }), { status: 409, body: { code: 'codehost_installation_gone', error: /installation/ } }, 'installation removed: 409 codehost_installation_gone')

  const paused = owner()
  github.addRepository(`${paused}/shop`)
  github.suspend(github.install(paused))
  t.match(await agent.post('/codehost', { repo: `${paused}/shop` }), { status: 409, body: { code: 'codehost_installation_suspended' } }, 'suspended: 409 codehost_installation_suspended')

  t.match(await agent.post('/codehost', { repo: 'not a repo' }), { status: 400, body: { error: /owner\/repo/ } }, 'other 400 carries error')

  github.failWith(500)
  t.teardown(() => github.failWith(undefined))
  t.match(await agent.post('/codehost', { repo: `${good}/shop` }), { status: 503, body: { code: 'codehost_unreachable' } }, 'code host answering 500: 503')
  github.failWith(undefined)
})

t.test('attach answers 503 when the code host cannot be reached at all', async (t) => {
  const unreachable = await loadPlugin('codehost', 'codehost-github', { ...githubSettings, apiUrl: `${await closedOrigin()}/api/v3` }, { log })
  const stack = await startTestStack(t, { plugins: { codehost: unreachable, chat } })
  const agent = await session(stack)
  t.match(await agent.post('/codehost', { repo: 'acme/shop' }), { status: 503, body: { code: 'codehost_unreachable', message: /Retry up to 6 times/ } })
})

t.test('attach and chat before approval answer 409 not_approved; without a code host app attach says so', async (t) => {
  const stack = await startTestStack(t, { plugins: { codehost: undefined, chat } })
  const pending = await session(stack, false)
  t.match(await pending.post('/codehost', { repo: 'acme/shop' }), { status: 409, body: { code: 'not_approved', error: 'not_approved', message: /Keep polling/ } })
  t.match(await pending.post('/chat', { webhook_url: chatReceiver.webhook() }), { status: 409, body: { code: 'not_approved' } })
  const approved = await session(stack)
  t.match(await approved.post('/codehost', { repo: 'acme/shop' }), { status: 409, body: { code: 'codehost_not_configured', error: 'codehost_not_configured' } })
})

t.test('chat posts a test message and connects; a refused or private webhook answers ok false with a redacted error', async (t) => {
  const lines: string[] = []
  const stack = await startTestStack(t, { plugins: { codehost, chat }, log: createLogger('debug', {}, (line) => lines.push(line)) })
  const agent = await session(stack)

  const refused = chatReceiver.webhook('invalid_token')
  const bad = await agent.post('/chat', { webhook_url: refused })
  t.equal(bad.status, 200)
  t.equal(bad.body.ok, false)
  t.type(bad.body.error, 'string')
  t.notOk(bad.text.includes(new URL(refused).pathname), 'the answer does not echo the webhook path')
  t.equal((await agent.state()).chat_connected, false)

  const strict = await loadPlugin('chat', 'chat-slack', { allowPrivateAddresses: false }, { log })
  const strictStack = await startTestStack(t, { plugins: { codehost, chat: strict } })
  const strictAgent = await session(strictStack)
  // https, so the refusal below is for the address, not the scheme.
  const privateHook = chatReceiver.webhook().replace(/^http:/, 'https:')
  const before = chatReceiver.received.length
  const blocked = await strictAgent.post('/chat', { webhook_url: privateHook })
  t.match(blocked, { status: 200, body: { ok: false, error: /private|local|loopback|address/i } }, 'a loopback webhook is refused without the development setting')
  t.equal(chatReceiver.received.length, before, 'nothing was posted to it')
  t.notOk(blocked.text.includes(new URL(privateHook).pathname))

  const hook = chatReceiver.webhook('ok')
  const ok = await agent.post('/chat', { webhook_url: hook })
  t.same(ok.body, { ok: true })
  t.match(chatReceiver.received.at(-1), { path: new URL(hook).pathname, body: { text: /digest/ } }, 'a test message landed')
  t.match(await agent.state(), { chat_connected: true, steps: { chat: { status: 'done' } } })

  const logged = lines.join('')
  for (const url of [refused, privateHook, hook]) t.notOk(logged.includes(new URL(url).pathname), 'no webhook path in the service log')
})
