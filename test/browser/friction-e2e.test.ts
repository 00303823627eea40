/**
 * Friction end to end, on a real stack (ingress, a worker with the recorder and the matcher,
 * PostgreSQL, Redis, the filesystem object store) and real Chromium: a fixture shop whose "Pay now"
 * button is dead. Seven users rage-click it, each in a browser context of their own; two more
 * reach the payment page and never touch it. Their recordings are stored, closed by the
 * recorder's idle sweep, scanned and matched into one known problem, checked against the
 * recordings its matches had not reached yet, and published by the gate. The dashboard lists it
 * as published, its page links each recording's replay at the moment of friction, and that replay
 * draws the app's Pay button in Chromium. Published, it awaits a person's approval; Investigate on
 * its page sends it to the investigator, which (no model configured) stops saying so.
 */
import t from 'tap'
import type { Recorder } from '../../services/recorder/index.js'
import { cookieName } from '../../services/web/http/cookies.js'
import { mintKey } from '../../shared/keys.js'
import { ensureSdkBuilt, launchChromium, servePages } from '../helpers/browser/browser.js'
import { approveNewProject, DashboardClient } from '../helpers/dashboard.js'
import { startTestStack, waitFor, type TestStack } from '../helpers/stack.js'
import { deadPayShop, inTurns, shop } from './friction-e2e-shop.js'
import { patience } from '../helpers/patience.js'

ensureSdkBuilt()
// A minute of idle time before the recorder may close a recording is the shortest setting there is.
t.setTimeout(5 * 60_000)

const RAGING = ['ann', 'ben', 'cid', 'dee', 'eve', 'fay', 'gus']
const CALM = ['calm-1', 'calm-2']

/**
 * - SVC_RECORDING_IDLE_MINUTES=1: the shortest idle time a recording closes after.
 * - SVC_STREAM_LEASE_MS=1000: the matcher sweeps (scans closed recordings) every half lease.
 * The caps and consumer loops are the defaults.
 */
const SETTINGS = {
  SVC_SERVICES: 'recorder,matcher,investigator',
  SVC_RECORDING_IDLE_MINUTES: '1',
  SVC_STREAM_LEASE_MS: '1000',
}

interface RecordingRow {
  id: string
  user_label: string
  pages: string[]
  clicks: number
  chunks: number
  max_seq: number
  received_at: Date
  closed_at: Date | null
}

async function rows<R>(stack: TestStack, sql: string, values: unknown[] = []): Promise<R[]> {
  return (await stack.db.query(sql, values)).rows as R[]
}

function recorderOf(stack: TestStack): Recorder {
  return stack.worker!.services.find((service) => service.name === 'recorder') as Recorder
}

t.test('in Chromium, users rage-clicking a dead Pay button become one published known problem whose replays show the button', async (t) => {
  const stack = await startTestStack(t, { worker: true, env: SETTINGS })
  const client = new DashboardClient(stack.baseUrl)
  await client.signUp('dev@example.test')
  const projectId = await approveNewProject(stack, client, 'Shop')
  const { token } = await mintKey(stack.db, projectId, 'ingest', 'friction-e2e')
  const origin = await servePages(t, deadPayShop({ apiKey: token, endpoint: stack.baseUrl, release: 'shop@3.1.0', environment: 'production', recording: { mode: 'all', flushIntervalMs: 1000 } }))
  // Only this test's sweepNow closes recordings: the fleet's minute sweep, were it to close some of
  // them a few seconds before the rest, would let those be matched before the others were closed.
  await stack.redis.set(`${stack.keys.recordingPuts}:sweep`, 'friction-e2e', 'PX', 5 * 60_000)

  const browser = await launchChromium(t)
  const shoppers = [...RAGING.map((user) => ({ user, rage: true })), ...CALM.map((user) => ({ user, rage: false }))]
  const payClicks = await inTurns(shoppers, 3, ({ user, rage }) => shop(browser, origin, user, rage))
  t.same(payClicks, shoppers.map(({ rage }) => (rage ? 5 : 0)), 'each raging user clicked Pay five times, the calm ones never')

  const stored = await waitFor(async () => {
    const found = await rows<RecordingRow>(stack, 'SELECT id, user_label, pages, clicks, chunks, max_seq, received_at, closed_at FROM recordings WHERE project_id = $1', [projectId])
    const whole = found.length === shoppers.length && found.every((row) => row.pages.includes('/pay') && row.chunks === row.max_seq + 1)
    return whole && found.every((row) => row.clicks >= (RAGING.includes(row.user_label) ? 6 : 1)) ? found : undefined
  }, 30_000, 200)
  t.same(stored.map((row) => row.user_label).sort(), shoppers.map(({ user }) => user).sort(), 'one recording per user, each through the payment page')
  t.ok(stored.every((row) => row.closed_at === null), 'all still open')
  const byUser = new Map(stored.map((row) => [row.user_label, row.id]))
  const raging = new Set(RAGING.map((user) => byUser.get(user)!))
  const calm = CALM.map((user) => byUser.get(user)!)

  // Closed by the recorder's own sweep once the last chunk is a minute old.
  const lastChunk = Math.max(...stored.map((row) => row.received_at.getTime()))
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, lastChunk + 60_000 + 500 - Date.now())))
  await recorderOf(stack).sweepNow()
  const closed = await rows<{ n: number }>(stack, 'SELECT count(*)::int AS n FROM recordings WHERE project_id = $1 AND closed_at IS NOT NULL', [projectId])
  t.equal(closed[0]!.n, shoppers.length, 'the idle sweep closed every recording')

  const [ticket] = await waitFor(async () => {
    const found = await rows<{ id: string; issue_id: string; kind: string; target: string; page: string; users: number; checks_confirmed: number; published_at: Date | null; state: string }>(
      stack,
      'SELECT id, issue_id, kind, target, page, users, checks_confirmed, published_at, state FROM tickets WHERE project_id = $1 AND published_at IS NOT NULL',
      [projectId],
    )
    return found.length > 0 ? found : undefined
  }, 60_000, 200)
  t.match(ticket, { kind: 'rage_click', target: /^button#pay\.primary "Pay now"$/, page: '/pay', state: 'awaiting_approval' }, 'a rage click on the Pay button, published and awaiting approval')
  t.ok(ticket!.checks_confirmed >= 3, `confirmed by its checks (${ticket!.checks_confirmed})`)
  t.ok(ticket!.users >= 2, `seen by ${ticket!.users} users`)

  const checks = await rows<{ recording_id: string; verdict: string }>(stack, 'SELECT recording_id, verdict FROM ticket_checks WHERE ticket_id = $1', [ticket!.id])
  const confirmed = checks.filter((check) => check.verdict === 'confirmed').map((check) => check.recording_id)
  t.ok(confirmed.length >= 3 && confirmed.every((id) => raging.has(id)), 'the confirmed checks are recordings of users who raged at the button')
  t.same(checks.filter((check) => calm.includes(check.recording_id)).map((check) => check.verdict), ['inconclusive', 'inconclusive'], 'the calm visits to the page were checked and said nothing either way')

  // Every rage click ends on the one known problem: the checked recordings' match jobs run after the checks.
  const matches = await waitFor(async () => {
    const found = await rows<{ recording_id: string; at: Date }>(stack, 'SELECT recording_id, at FROM ticket_matches WHERE ticket_id = $1', [ticket!.id])
    return found.length === RAGING.length ? found : undefined
  }, 30_000, 200)
  t.same(new Set(matches.map((match) => match.recording_id)), raging, "every raging user's recording is matched to it, no calm one")
  await waitFor(async () => (await rows(stack, `SELECT 1 FROM friction_jobs WHERE project_id = $1 AND state NOT IN ('completed', 'failed')`, [projectId])).length === 0 || undefined, 30_000, 200)
  t.same(await rows(stack, `SELECT kind, state, error FROM friction_jobs WHERE project_id = $1 AND state <> 'completed'`, [projectId]), [], 'every friction job completed')
  t.same(await rows(stack, 'SELECT id FROM tickets WHERE project_id = $1', [projectId]), [{ id: ticket!.id }], 'one known problem, no second ticket for the same button')
  t.same(await rows(stack, `SELECT id, kind FROM issues WHERE project_id = $1 AND kind = 'friction'`, [projectId]), [{ id: ticket!.issue_id, kind: 'friction' }], 'on one friction-kind issue')
  const decisions = await rows<{ decision: string; n: number }>(stack, 'SELECT decision, count(*)::int AS n FROM matching_decisions d JOIN friction_findings f ON f.id = d.finding_id WHERE f.project_id = $1 GROUP BY decision ORDER BY decision', [projectId])
  t.same(decisions, [{ decision: 'created', n: 1 }, { decision: 'joined', n: RAGING.length - 1 }], 'the first rage click created it, the other six joined it')

  // The dashboard: the list shows it published, its page links each recording's replay at the friction.
  const list = await client.get(`/projects/${projectId}/known-problems?published=1`)
  t.equal(list.status, 200)
  const row = new RegExp(`<tr data-ticket="${ticket!.id}">[\\s\\S]*?</tr>`).exec(list.text)?.[0] ?? ''
  t.match(row, /<span class="ok">published<\/span>/, 'the Known problems list shows it as published')
  t.match(row, /button#pay/, 'naming the Pay button')
  const page = await client.get(`/projects/${projectId}/known-problems/${ticket!.id}`)
  t.equal(page.status, 200)
  const links = [...page.text.matchAll(/href="(\/projects\/[^"]+\/recordings\/([0-9a-f-]+)\?at=(\d+)#replay)"/g)].map((found) => ({ path: found[1]!, recording: found[2]!, at: Number(found[3]) }))
  t.same(new Set(links.map((link) => link.recording)), raging, 'its page lists each of its recordings with a replay link')
  const atOf = new Map(matches.map((match) => [match.recording_id, match.at.getTime()]))
  t.ok(links.every((link) => link.at === atOf.get(link.recording)), 'each replay link opens at the moment of friction')

  // The replay, as the known problem's page links it, in a signed-in tab.
  const context = await browser.newContext({ viewport: { width: 1280, height: 1200 } })
  await context.addCookies([{ name: cookieName('session', false), value: client.cookies.get(cookieName('session', false))!, url: stack.baseUrl }])
  const tab = await context.newPage()
  t.equal((await tab.goto(`${stack.baseUrl}${links[0]!.path}`))?.status(), 200)
  await tab.locator('#replay[data-ready="true"]').waitFor({ timeout: patience(20_000) })
  const frame = tab.frameLocator('#replay iframe')
  await frame.locator('#pay').waitFor({ timeout: patience(10_000) })
  t.equal(await frame.locator('#pay').textContent(), 'Pay now', "the replay opens on the payment page with the app's Pay button")
  t.equal(await frame.locator('h1').textContent(), 'Payment')

  // Investigate, pressed on the known problem's page: the investigator takes it; with no model on
  // the worker it stops at once, saying so, and the issue and its ticket move on together.
  t.same(await rows(stack, 'SELECT status FROM issues WHERE id = $1', [ticket!.issue_id]), [{ status: 'awaiting_approval' }], 'its issue awaits approval before anyone presses Investigate')
  await tab.goto(`${stack.baseUrl}/projects/${projectId}/known-problems/${ticket!.id}`)
  t.match(await tab.locator('section.investigation p.empty').textContent(), /waits for a person to approve it/, 'the page says it waits for approval')
  await tab.locator('form.investigate button', { hasText: 'Investigate' }).click()
  await tab.waitForURL(/[?&]investigation=started/)
  const issue = await waitFor(async () => {
    const found = await rows<{ status: string; reason_code: string }>(stack, 'SELECT status, reason_code FROM issues WHERE id = $1', [ticket!.issue_id])
    return found[0] && found[0].status !== 'awaiting_approval' && found[0].status !== 'queued' && found[0].status !== 'analyzing' ? found[0] : undefined
  }, 30_000, 200)
  t.same(issue, { status: 'needs_human', reason_code: 'missing_model_key' }, 'the issue left awaiting_approval: the investigator stopped for want of a model')
  t.same(await rows(stack, 'SELECT state FROM tickets WHERE id = $1', [ticket!.id]), [{ state: 'needs_human' }], 'and its known problem with it')
  await tab.reload()
  t.match(await tab.locator('section.investigation').textContent(), /missing_model_key/, 'its page tells why the investigation stopped')
})
