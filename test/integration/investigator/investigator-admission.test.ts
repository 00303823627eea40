import t from 'tap'
import type { EntityManager } from '@mikro-orm/postgresql'
import { Investigation } from '../../../services/investigator/store/entities.js'
import { DashboardClient } from '../../helpers/dashboard.js'
import { startHarness, type Harness } from '../../helpers/investigation/investigation-harness.js'
import { postEvent, waitFor } from '../../helpers/stack.js'

const HEADLESS = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/126.0.0.0 Safari/537.36'
const MONITOR = 'Mozilla/5.0 (compatible; UptimeRobot/2.0; http://www.uptimerobot.com/)'
const DAY = 86_400_000

async function investigations(h: Harness, issueId: string): Promise<number> {
  return (h.orm.em.fork() as EntityManager).count(Investigation, { issueId })
}

/** Sends the app bug's event with stack in place of its own, once per user; answers the issue. */
async function sendStack(h: Harness, stack: string, users: number, message = 'Cannot read properties of undefined'): Promise<string> {
  let eventId = ''
  for (let i = 0; i < users; i++) {
    const event = h.fixture.bugs.app.event({ message })
    const error = event.error as Record<string, unknown>
    const answer = await postEvent(h.stack.baseUrl, { ...event, error: { ...error, stack: `TypeError: ${message}\n${stack}` } }, { 'Content-Type': 'application/json', 'X-API-Key': h.stack.ingestKey })
    if (answer.status !== 202) throw new Error(`event answered ${answer.status}`)
    eventId = String(answer.body.id)
  }
  return waitFor(async () => (await h.stack.db.query<{ issue_id: string }>('SELECT issue_id FROM events WHERE id = $1', [eventId])).rows[0]?.issue_id, 20_000, 50)
}

/** A signed-in owner of the harness's project. */
async function owner(h: Harness): Promise<DashboardClient> {
  const client = new DashboardClient(h.stack.baseUrl)
  await client.signUp('owner@shop.example')
  await h.stack.db.query(`UPDATE projects SET owner_id = (SELECT id FROM users WHERE email = 'owner@shop.example') WHERE id = $1`, [h.stack.projectId])
  return client
}

/** The owner's issue page and JSON read of the issue. */
async function views(h: Harness, client: DashboardClient, issueId: string): Promise<{ page: string; json: Record<string, unknown> }> {
  const page = (await client.get(`/projects/${h.stack.projectId}/issues/${issueId}`)).text
  const json = JSON.parse((await client.get(`/api/v1/projects/${h.stack.projectId}/issues/${issueId}`)).text) as Record<string, unknown>
  return { page, json }
}

t.test('an extension-only error seen by 4 users in 4 sessions is noise: not investigated, saying so, and no Fix this', async (t) => {
  const h = await startHarness(t)
  const issue = await sendStack(h, '    at inject (chrome-extension://abcdefghijklmnopabcdefghijklmnop/content.js:12:7)\n    at chrome-extension://abcdefghijklmnopabcdefghijklmnop/content.js:40:3', 4)
  const client = await owner(h)
  const { page, json } = await views(h, client, issue)
  t.match(json.issue, { status: 'new', noise: 'browser-extension', user_count: 4, session_count: 4 })
  t.match(page, 'Not investigated: marked as noise (the stack is made only of browser-extension frames): noise is never investigated.', 'the page says why, not "once enough users"')
  t.notMatch(page, /once enough distinct/, 'and not the threshold text')
  t.notMatch(page, />Fix this</, 'Fix this is not offered')
  t.notMatch(page, />Investigate now</, 'nor Investigate now')
  t.match(json.not_investigated, { code: 'noise', message: /^marked as noise/, decided_at: null }, 'the JSON read says why')
  const refused = await client.post(`/projects/${h.stack.projectId}/issues/${issue}/fix`, {})
  t.equal(refused.status, 409, 'pressing Fix this anyway is refused')
  t.equal(await investigations(h, issue), 0, 'no run was spent on it')
})

t.test('one user so far: new, and the page says exactly that', async (t) => {
  const h = await startHarness(t)
  const issue = await h.send('app', 1)
  const client = await owner(h)
  const note = await h.notInvestigated(issue)
  t.same(note, { code: 'too_few_users', message: 'only one user so far; an issue is investigated once 2 distinct users or sessions run into it within 7 days' })
  const { page, json } = await views(h, client, issue)
  t.match(page, 'Not investigated: only one user so far; an issue is investigated once 2 distinct users or sessions run into it within 7 days.')
  t.match(page, />Fix this</, 'a person may still start a fix')
  t.match(json.not_investigated, { code: 'too_few_users' })
  t.match(json.issue, { status: 'new', noise: '' })
  await h.send('app', 1)
  t.equal((await h.settle(issue)).outcome, 'investigated', 'a second real user makes it qualify')
  const after = await views(h, client, issue)
  t.equal(after.json.not_investigated, null, 'and the note is gone once it is investigated')
})

t.test('headless browsers and monitoring agents do not count as users', async (t) => {
  const h = await startHarness(t)
  const issue = await h.send('app', 2, { userAgent: HEADLESS })
  await h.send('app', 2, { userAgent: MONITOR })
  await h.send('app', 1)
  const note = await waitFor(async () => {
    const seen = await h.notInvestigated(issue)
    return seen.message.startsWith('only one real user') ? seen : undefined
  }, 20_000, 100)
  t.equal(note.code, 'not_real_users')
  t.match(note.message, 'the others were headless browsers, crawlers or monitoring agents')
  t.equal(await investigations(h, issue), 0, 'five actors, one real: not investigated')
})

t.test('events too old or dated ahead of the clock do not count', async (t) => {
  const h = await startHarness(t)
  const old = await h.send('app', 2, { timestamp: new Date(Date.now() - 8 * DAY).toISOString() })
  const oldNote = await h.notInvestigated(old)
  t.equal(oldNote.code, 'events_too_old')
  t.match(oldNote.message, /^events too old: by their own timestamps, none of the 2 real users or sessions that ran into it did so within the last 7 days/)
  // Another bug, so another issue: the app's events all group into one.
  const ahead = await h.send('third_party', 2, { timestamp: new Date(Date.now() + DAY).toISOString() })
  const aheadNote = await h.notInvestigated(ahead)
  t.equal(aheadNote.code, 'not_real_users')
  t.match(aheadNote.message, /^no real user or session so far: the 2 that ran into it were clients whose clocks are ahead/)
  t.equal((await investigations(h, old)) + (await investigations(h, ahead)), 0, 'neither was investigated')
})

t.test('a client clock a little ahead is within the tolerance', async (t) => {
  const h = await startHarness(t)
  const skewed = await h.send('app', 2, { timestamp: new Date(Date.now() + 2 * 60_000).toISOString() })
  t.equal((await h.settle(skewed)).outcome, 'investigated', 'two minutes ahead counts')
})

t.test('a stack only in another site\'s script, without a source map, is not the app\'s code', async (t) => {
  const h = await startHarness(t)
  const issue = await sendStack(h, '    at track (https://cdn.other-analytics.example/v2/tag.js:1:4410)\n    at https://cdn.other-analytics.example/v2/tag.js:1:9120', 2)
  const client = await owner(h)
  const note = await h.notInvestigated(issue)
  t.equal(note.code, 'no_app_frames')
  t.match(note.message, 'no frame in your code: the stack runs only in scripts from other sites (https://cdn.other-analytics.example)')
  t.equal(await investigations(h, issue), 0)
  const { page } = await views(h, client, issue)
  t.notMatch(page, />Fix this</, 'Fix this is not offered')
  t.match(page, /Fix this is not offered: no frame in your code/)
})
