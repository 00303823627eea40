// The whole setup flow as a person and an agent live it: the reference client (a real process)
// registers and long-polls; a person in Chromium creates an account on the approval page and
// approves; the client receives the keys, sends an event, waits for has_events, attaches the
// repository (GitHub's REST API on loopback), connects chat (a Slack-style receiver), and
// completes. A second run completes before any event and gets 422. Every log line and every HTTP
// answer of the run is then searched for the poll tokens, the keys and the webhook URL.
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Page } from 'playwright-core'
import t from 'tap'
import { createLogger } from '../../shared/log.js'
import { launchChromium } from '../helpers/browser/browser.js'
import { childEnv } from '../helpers/env.js'
import { startLoopbackPlugins } from '../helpers/loopback/loopback-plugins.js'
import { startRecordingProxy } from '../helpers/loopback/recording-proxy.js'
import { startTestStack } from '../helpers/stack.js'
import { patience } from '../helpers/patience.js'

const CLIENT = fileURLToPath(new URL('../agent-client/run.ts', import.meta.url))

interface Run {
  dir: string
  output: () => string
  authUrl: Promise<string>
  exit: Promise<number | null>
}

/** Starts the reference client as its own process; no secret is among its arguments. */
function runClient(baseUrl: string, args: string[]): Run {
  const dir = mkdtempSync(join(tmpdir(), 'svc-agent-'))
  const child = spawn(process.execPath, ['--import', 'tsx', CLIENT, '--base', baseUrl, '--dir', dir, '--delay-scale', '0.01', ...args], { env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  let resolveUrl: (url: string) => void
  const authUrl = new Promise<string>((resolve) => (resolveUrl = resolve))
  const read = (chunk: Buffer): void => {
    output += chunk.toString()
    const match = /approve here: (\S+)/.exec(output)
    if (match) resolveUrl(match[1]!)
  }
  child.stdout.on('data', read)
  child.stderr.on('data', read)
  const exit = new Promise<number | null>((resolve) => child.on('exit', resolve))
  return { dir, output: () => output, authUrl, exit }
}

async function approveInBrowser(tab: Page, authUrl: string, signUp: boolean): Promise<void> {
  await tab.goto(authUrl)
  if (signUp) {
    await tab.getByRole('link', { name: 'Create an account' }).click()
    await tab.getByLabel('Email').fill('owner@example.test')
    await tab.getByLabel('Password').fill('a long enough passphrase')
    await tab.getByRole('button', { name: 'Create account' }).click()
    await tab.waitForURL(authUrl, { timeout: patience(10_000) })
  }
  await tab.getByRole('button', { name: 'Approve' }).click()
  await tab.getByRole('heading', { name: 'Approved' }).waitFor()
}

t.test('an agent sets a project up end to end while a person approves in Chromium; no secret leaks', async (t) => {
  const lines: string[] = []
  const log = createLogger('debug', {}, (line) => lines.push(line))
  const { github, chatReceiver, codehost, chat } = await startLoopbackPlugins(t, log)
  const proxy = await startRecordingProxy()
  t.teardown(() => proxy.close())
  github.addRepository('acme/shop')
  github.install('acme')
  const stack = await startTestStack(t, { worker: true, plugins: { codehost, chat }, log, env: { SVC_BASE_URL: proxy.url, LOG_LEVEL: 'debug' } })
  proxy.target = stack.baseUrl

  const webhookUrl = chatReceiver.webhook('ok')
  const secretsDir = mkdtempSync(join(tmpdir(), 'svc-agent-secrets-'))
  t.teardown(() => rmSync(secretsDir, { recursive: true, force: true }))
  const webhookFile = join(secretsDir, 'webhook-url')
  writeFileSync(webhookFile, `${webhookUrl}\n`, { mode: 0o600 })

  const browser = await launchChromium(t)
  const tab = await browser.newPage()

  const first = runClient(proxy.url, ['--project', 'Shop', '--agent', 'reference-agent on ci', '--repo', 'acme/shop', '--webhook-file', webhookFile])
  t.teardown(() => rmSync(first.dir, { recursive: true, force: true }))
  const firstUrl = await first.authUrl
  t.match(firstUrl, new RegExp(`^${proxy.url}/setup/`), 'the client printed auth_url')
  await approveInBrowser(tab, firstUrl, true)
  t.equal(await first.exit, 0, `the first run completed:\n${first.output()}`)
  for (const line of ['approved: project Shop', 'sent a test error', 'has_events: true', 'attached acme/shop', 'chat connected', 'setup complete']) t.match(first.output(), line)

  const { rows } = await stack.db.query<{ completed: boolean; status: string; repo: string; chat: boolean }>(
    `SELECT s.completed_at IS NOT NULL AS completed, s.status, p.codehost_repo AS repo, p.chat_connected_at IS NOT NULL AS chat
       FROM setup_sessions s JOIN projects p ON p.id = s.project_id`,
  )
  t.same(rows, [{ completed: true, status: 'app_reporting', repo: 'acme/shop', chat: true }], 'the service recorded the whole flow')
  t.match(chatReceiver.received.at(-1), { body: { text: /digest/ } }, 'the test message reached chat')

  const second = runClient(proxy.url, ['--project', 'Shop 2', '--agent', 'reference-agent on ci', '--skip-event'])
  t.teardown(() => rmSync(second.dir, { recursive: true, force: true }))
  await approveInBrowser(tab, await second.authUrl, false)
  t.equal(await second.exit, 3, `the second run got 422 from complete:\n${second.output()}`)
  t.match(second.output(), 'complete answered 422')

  const secrets: Array<[string, string]> = []
  for (const run of [first, second]) {
    secrets.push(['poll token', readFileSync(join(run.dir, 'poll-token.header'), 'utf8').split(': ')[1]!.trim()])
    for (const line of readFileSync(join(run.dir, 'keys.env'), 'utf8').trim().split('\n')) secrets.push([line.split('=')[0]!, line.slice(line.indexOf('=') + 1)])
  }
  secrets.push(['webhook URL', webhookUrl], ['webhook path', new URL(webhookUrl).pathname])
  t.equal(secrets.length, 10, 'two tokens, six keys and the webhook were issued')

  const outputs = [first.output(), second.output(), lines.join('')]
  for (const [name, value] of secrets) {
    t.notOk(outputs.some((text) => text.includes(value)), `${name} is in no client output and no service log line`)
    const where = proxy.answers.filter((answer) => answer.body.includes(value) || JSON.stringify(answer.headers).includes(value))
    const allowed = name === 'poll token' ? /^POST \/api\/v1\/agent\/setup$/ : /^GET \/api\/v1\/agent\/poll\/[^/?]+(\?.*)?$/
    t.ok(where.every((answer) => allowed.test(`${answer.method} ${answer.path}`) && answer.status === 200), `${name} appears only in the answer meant to carry it (${where.map((a) => `${a.method} ${a.path.split('?')[0]}`).join(', ') || 'none'})`)
    if (name !== 'webhook URL' && name !== 'webhook path') t.ok(where.length > 0, `${name} was delivered where it belongs`)
  }
  t.ok(proxy.answers.some((answer) => answer.path.startsWith('/setup/') && answer.body.includes('reference-agent on ci')), 'the approval pages went through the recording proxy too')
})
