// The README's curl walk-through for coding agents, run as written (only the base address is
// pointed at a test stack): the person approves while step 2 holds its long poll, and the app's
// first error arrives while step 3 holds; every step must then answer as the README says, and
// the script's output must carry no token, key or webhook URL.
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { approveSetupSession } from '../../../services/web/setup/approval.js'
import { createLogger } from '../../../shared/log.js'
import { childEnv } from '../../helpers/env.js'
import { startLoopbackPlugins } from '../../helpers/loopback/loopback-plugins.js'
import { sampleEvent, startTestStack, waitFor } from '../../helpers/stack.js'

const README = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8')

/** The shell block of the "For coding agents" section. */
function walkthrough(): string {
  const section = README.slice(README.indexOf('## For coding agents'))
  const match = /```sh\n([\s\S]*?)```/.exec(section)
  if (!match) throw new Error('the README has no shell block under "For coding agents"')
  return match[1]!
}

t.test("the README's curl walk-through for coding agents works as written", async (t) => {
  const log = createLogger('silent')
  const { github, chatReceiver, codehost, chat } = await startLoopbackPlugins(t, log)
  github.addRepository('acme/shop')
  github.install('acme')
  const stack = await startTestStack(t, { worker: true, plugins: { codehost, chat } })

  const script = walkthrough()
  t.match(script, /^base=http:\/\/localhost:8082$/m, 'the walk-through starts from the default address')
  const dir = mkdtempSync(join(tmpdir(), 'svc-readme-agent-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const webhookUrl = chatReceiver.webhook('ok')
  const run = script.replace(/^base=.*$/m, `base=${stack.baseUrl}`).replace('umask 077 && mkdir -p .svc', `umask 077 && mkdir -p .svc && printf '%s\\n' '${webhookUrl}' > .svc/webhook-url`)
  const child = spawn('bash', ['-euo', 'pipefail', '-c', run], { cwd: dir, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve))

  // The person approves while step 2's long poll is held.
  const session = join(dir, '.svc', 'session.json')
  await waitFor(async () => existsSync(session) && readFileSync(session, 'utf8').includes('poll_id'), 15_000)
  const pollId = (JSON.parse(readFileSync(session, 'utf8')) as { poll_id: string }).poll_id
  const { rows } = await stack.db.query<{ id: string }>("INSERT INTO users (email) VALUES ('readme@example.test') RETURNING id")
  await new Promise((resolve) => setTimeout(resolve, 300))
  const deps = { db: stack.db, redis: stack.redis, keys: stack.keys, log, baseUrl: stack.config.baseUrl, limits: stack.config.setup, codehost, chat }
  t.ok((await approveSetupSession(deps, pollId, rows[0]!.id, { kind: 'new', name: 'Shop' })).ok, 'approved')

  // The app throws once while step 3 waits for it.
  const keysFile = join(dir, '.svc', 'keys.json')
  await waitFor(async () => existsSync(keysFile) && readFileSync(keysFile, 'utf8').includes('ingest_key'), 15_000)
  const keys = JSON.parse(readFileSync(keysFile, 'utf8')) as Record<string, string>
  await new Promise((resolve) => setTimeout(resolve, 300))
  const sent = await fetch(`${stack.baseUrl}/api/v1/events`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-API-Key': keys.ingest_key! }, body: JSON.stringify(sampleEvent()) })
  t.equal(sent.status, 202)

  t.equal(await exited, 0, `the walk-through ran to the end:\n${output}`)
  t.match(output, /Ask your person to open http:\/\/\S+\/setup\/\S+/, 'step 1 printed the link')
  t.match(output, /"approved": true/, 'step 2 saw the approval')
  t.match(output, /^true$/m, 'step 3 saw has_events')
  t.match(output, /"codehost_connected":true/, 'step 4 attached the repository')
  t.match(output, /"ok":true/, 'step 4 connected chat')
  t.match(output, /^204$/m, 'step 5 progress answered 204')
  t.match(output, /"completed":true[\s\S]*\n200\n?$/, 'step 5 complete answered 200')
  const token = (JSON.parse(readFileSync(session, 'utf8')) as { poll_token: string }).poll_token
  for (const [name, secret] of [['poll token', token], ['ingest key', keys.ingest_key], ['api key', keys.api_key], ['source-map key', keys.sourcemap_key], ['webhook URL', webhookUrl]] as const) {
    t.notOk(output.includes(secret!), `the walk-through prints no ${name}`)
  }
  t.equal(chatReceiver.received.length, 1, 'the test message reached chat')
})
