/**
 * Recording end to end, on a real stack (ingress, worker with grouper and recorder, PostgreSQL,
 * Redis, the filesystem object store): a fixture shop app with the SDK recording every session,
 * several users clicking through it in their own browser contexts, one of them hitting a bug. The
 * sessions are stored, the failing one is linked to its issue, what was typed is nowhere in the
 * stored chunks, and the replay page draws the app. Then the same app in Firefox ESR.
 */
import { execFile } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { gunzipSync } from 'node:zlib'
import t from 'tap'
import { cookieName } from '../../../services/web/http/cookies.js'
import { mintKey } from '../../../shared/keys.js'
import { createObjectStore } from '../../../shared/object-store.js'
import { ensureSdkBuilt, launchChromium, servePages, shellEnv } from '../../helpers/browser/browser.js'
import { approveNewProject, DashboardClient } from '../../helpers/dashboard.js'
import { startTestStack, waitFor, type TestStack } from '../../helpers/stack.js'
import type { Step } from './sdk-recording-steps.js'
import { patience } from '../../helpers/patience.js'

ensureSdkBuilt()

const SHOTS = fileURLToPath(new URL('../../../tmp/screenshots/', import.meta.url))
const FIREFOX_DRIVER = fileURLToPath(new URL('./sdk-recording-firefox-drive.ts', import.meta.url))

/** The shop: a cart page with a name field, a card field and a link on; a payment page whose Pay button breaks for user carol. */
function shopPage(config: Record<string, unknown>, body: string): string {
  return `<!doctype html><html><head><title>Shop</title></head><body>
${body}
<script type="module">
  import { init, setUser } from '/sdk/index.js'
  init(${JSON.stringify(config)})
  const user = sessionStorage.getItem('shop.user') || new URLSearchParams(location.search).get('user')
  sessionStorage.setItem('shop.user', user)
  setUser({ id: user })
  const pay = document.getElementById('pay')
  if (pay) pay.addEventListener('click', function onPayClick() {
    document.getElementById('status').textContent = 'Paying…'
    if (user === 'carol') { const provider = undefined; return provider.charge(42) }
    document.getElementById('status').textContent = 'Paid, thank you'
  })
  await import('/sdk/recording.js')
  await new Promise((resolve) => setTimeout(resolve, 50))
  window.svcReady = true
</script></body></html>`
}

function shop(config: Record<string, unknown>): Record<string, string> {
  return {
    '/': shopPage(config, `<h1>Your cart</h1><p class="total">Total: 42.00 EUR</p>
<label>Name <input id="name" type="text"></label><label>Card <input id="card" type="password"></label>
<a id="next" href="/pay">Go to payment</a>`),
    '/pay': shopPage(config, `<h1>Payment</h1><button id="pay">Pay now</button><p id="status"></p>`),
  }
}

interface RecordingRow {
  id: string
  user_label: string | null
  pages: string[]
  clicks: number
  errors: number
  chunks: number
  max_seq: number
}

async function recordingOf(stack: TestStack, projectId: string, user: string): Promise<RecordingRow | undefined> {
  const { rows } = await stack.db.query<RecordingRow>('SELECT id, user_label, pages, clicks, errors, chunks, max_seq FROM recordings WHERE project_id = $1 AND user_label = $2', [projectId, user])
  return rows[0]
}

/** Every stored chunk of the project, decompressed, from the object store the ingress wrote. */
async function storedChunkTexts(stack: TestStack, projectId: string): Promise<string[]> {
  const objects = await createObjectStore(stack.config.objectStore)
  const { rows } = await stack.db.query<{ object_key: string }>('SELECT object_key FROM recording_chunks WHERE project_id = $1', [projectId])
  return Promise.all(rows.map(async ({ object_key }) => gunzipSync((await objects.get(object_key))!).toString('utf8')))
}

t.test('in Chromium, several users record their sessions; the failing one is linked to its issue, masked, and replays', async (t) => {
  const stack = await startTestStack(t, { worker: true })
  const client = new DashboardClient(stack.baseUrl)
  await client.signUp('dev@example.test')
  const projectId = await approveNewProject(stack, client, 'Shop')
  const { token } = await mintKey(stack.db, projectId, 'ingest', 'e2e')
  const origin = await servePages(t, shop({ apiKey: token, endpoint: stack.baseUrl, release: 'shop@2.0.0', environment: 'production', recording: { mode: 'all', flushIntervalMs: 1000 } }))

  const browser = await launchChromium(t)
  const users = ['alice', 'bob', 'carol']
  await Promise.all(users.map(async (user) => {
    const context = await browser.newContext()
    const tab = await context.newPage()
    await tab.goto(`${origin}/?user=${user}`)
    await tab.waitForFunction(() => (globalThis as unknown as { svcReady?: boolean }).svcReady === true)
    await tab.type('#name', `typed-name-of-${user}`)
    await tab.type('#card', `4242-typed-card-${user}`)
    await tab.click('#next')
    await tab.waitForURL(`${origin}/pay`)
    await tab.waitForFunction(() => (globalThis as unknown as { svcReady?: boolean }).svcReady === true)
    await tab.click('#pay')
    await tab.waitForTimeout(1500) // a flush interval and a little, so the last clicks go out
    await context.close() // the page hides: what is left goes with keepalive
  }))

  const rows = await waitFor(async () => {
    const found = await Promise.all(users.map((user) => recordingOf(stack, projectId, user)))
    return found.every((row) => row && row.pages.length >= 2 && row.clicks >= 2) ? (found as RecordingRow[]) : undefined
  }, 30_000, 100)
  for (const [i, row] of rows.entries()) {
    t.match(row.pages, ['/?user=' + users[i], '/pay'], `${users[i]}'s one recording spans both pages (a page load continues it)`)
    t.equal(row.chunks, row.max_seq + 1, `${users[i]}'s chunks arrived without a gap`)
  }
  const carol = rows[2]!
  t.equal(carol.errors, 1, "carol's recording marks her error")
  t.equal(rows[0]!.errors + rows[1]!.errors, 0, 'the others had none')
  t.equal(new Set(rows.map((row) => row.id)).size, 3, 'one recording per user')

  const event = await waitFor(async () => (await stack.db.query<{ issue_id: string; recording_id: string | null }>('SELECT issue_id, recording_id FROM events WHERE project_id = $1', [projectId])).rows[0], 20_000, 100)
  t.equal(event.recording_id, carol.id, "the error event names carol's recording")

  const texts = await storedChunkTexts(stack, projectId)
  t.ok(texts.length >= 6, `chunks stored (${texts.length})`)
  t.ok(texts.some((text) => text.includes('Your cart')), 'the chunks hold the recorded page')
  for (const user of users) {
    t.notOk(texts.some((text) => text.includes(`typed-name-of-${user}`)), `what ${user} typed in the name field is in no stored chunk`)
    t.notOk(texts.some((text) => text.includes(`typed-card-${user}`)), `${user}'s card number is in no stored chunk`)
  }

  const issuePage = await client.get(`/projects/${projectId}/issues/${event.issue_id}`)
  t.equal(issuePage.status, 200)
  t.match(issuePage.text, `/projects/${projectId}/recordings/${carol.id}`, "the issue page links carol's session")
  t.notMatch(issuePage.text, rows[0]!.id, "and not alice's, in which it did not happen")
  const list = await client.get(`/projects/${projectId}/recordings?errors=1`)
  t.match(list.text, carol.id, 'the has-error filter finds it')
  t.notMatch(list.text, rows[1]!.id, "and leaves bob's out")

  // The replay, as the issue page links it, in a signed-in tab.
  const replayPath = /href="([^"]*\/recordings\/[^"]+)"/.exec(issuePage.text)![1]!.replace(/&amp;/g, '&')
  const context = await browser.newContext({ viewport: { width: 1280, height: 1200 } })
  await context.addCookies([{ name: cookieName('session', false), value: client.cookies.get(cookieName('session', false))!, url: stack.baseUrl }])
  const tab = await context.newPage()
  const problems: string[] = []
  tab.on('console', (message) => {
    if (message.type() === 'error' || /Content Security Policy|Refused to/i.test(message.text())) problems.push(message.text())
  })
  tab.on('pageerror', (error) => problems.push(error.message))
  t.equal((await tab.goto(`${stack.baseUrl}${replayPath}`))?.status(), 200)
  await tab.locator('#replay[data-ready="true"]').waitFor({ timeout: patience(20_000) })
  const frame = tab.frameLocator('#replay iframe')
  await frame.locator('h1').waitFor({ timeout: patience(10_000) })
  t.match(await frame.locator('h1').textContent(), /^(Your cart|Payment)$/, 'the replay opens on the app, 5 s before the error')
  // The error's step in the list seeks the player to it: the payment page.
  await tab.locator('ol.timeline li.step.error a.at').click()
  await frame.locator('h1', { hasText: 'Payment' }).waitFor({ timeout: patience(10_000) })
  t.equal(await frame.locator('#pay').textContent(), 'Pay now', 'the error step shows the payment page as carol saw it')
  await tab.locator('#replay .rr-progress div[title="svc.error"]').first().waitFor({ timeout: patience(5000) })
  t.equal(await tab.locator('#replay .rr-progress div[title="svc.error"]').count(), 1, 'the error is marked on the timeline')
  mkdirSync(SHOTS, { recursive: true })
  await tab.screenshot({ path: join(SHOTS, 'recording-e2e-replay.png'), fullPage: true })
  t.same(problems, [], 'no script error, blocked script or CSP violation on the replay page')
})

t.test('in Firefox ESR, a recorded session reaches the service and is linked to its error', async (t) => {
  const stack = await startTestStack(t, { worker: true })
  const { token } = await mintKey(stack.db, stack.projectId, 'ingest', 'e2e-firefox')
  const origin = await servePages(t, shop({ apiKey: token, endpoint: stack.baseUrl, recording: { mode: 'all', flushIntervalMs: 1000 } }))
  const steps: Step[] = [
    { goto: `${origin}/?user=carol` },
    { ready: true },
    { type: ['#name', 'typed-in-firefox'] },
    { click: '#next' },
    { idle: 500 },
    { ready: true },
    { click: '#pay' },
    { idle: 2500 },
  ]
  const env = shellEnv()
  delete env.NODE_OPTIONS
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', FIREFOX_DRIVER, 'http://127.0.0.1:9', JSON.stringify(steps)], { env, encoding: 'utf8', timeout: 120_000 })
  t.match(stdout, /Firefox/, 'driven in Firefox')

  const row = await waitFor(async () => {
    const found = await recordingOf(stack, stack.projectId, 'carol')
    return found && found.errors >= 1 && found.pages.length >= 2 ? found : undefined
  }, 30_000, 100)
  t.match(row.pages, ['/?user=carol', '/pay'])
  const event = await waitFor(async () => (await stack.db.query<{ recording_id: string | null }>('SELECT recording_id FROM events WHERE project_id = $1', [stack.projectId])).rows[0], 20_000, 100)
  t.equal(event.recording_id, row.id, 'the error event names the recording')
  const texts = await storedChunkTexts(stack, stack.projectId)
  t.ok(texts.some((text) => text.includes('Payment')), 'the chunks hold the recorded page')
  t.notOk(texts.some((text) => text.includes('typed-in-firefox')), 'what was typed is in no stored chunk')
})
