/**
 * The digest's outside faces, tried as a user would with a chat webhook that later answers 404:
 * the setup session's state endpoint and poll answer, the tool server's get_setup_state, the
 * overview and the Digests tab read the same setup facts (field by field, in several states of the
 * project), the connect test message names the time zone, and the broken-since time reads in it.
 */
import { randomBytes } from 'node:crypto'
import { DateTime } from 'luxon'
import t from 'tap'
import { mintKey } from '../../../shared/keys.js'
import { DashboardClient } from '../../helpers/dashboard.js'
import { startDigestHarness } from '../../helpers/digest-harness.js'
import { callTool, connectAgent, storeEvents } from '../../helpers/mcp.js'

const MINUTE = 60_000
/** Facts of one session, not of the project: the tool server has no session to link. */
const SESSION_ONLY = new Set(['steps', 'codehost_install_url'])

t.test('with a chat that answers 404, the state endpoint, the poll answer, the tool server and the pages say the same', async (t) => {
  // 05:00 UTC is 07:00 in Berlin: the digest is due two hours later.
  const h = await startDigestHarness(t, { start: '2026-06-10T05:00:00Z', ingress: true })
  const registered = (await (await fetch(`${h.stack.baseUrl}/api/v1/agent/setup`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ project_name: 'Shop', agent_name: 'agent', git_remote: '' }) })).json()) as { poll_id: string; poll_token: string }
  const client = new DashboardClient(h.stack.baseUrl)
  await client.signUp(`owner-${randomBytes(4).toString('hex')}@example.test`)
  await client.get(`/setup/${registered.poll_id}`)
  t.equal((await client.post(`/setup/${registered.poll_id}/approve`, { project: 'new' })).status, 200, 'approved by its owner')
  const { rows: [session] } = await h.stack.db.query<{ project_id: string }>('SELECT project_id FROM setup_sessions WHERE id = $1', [registered.poll_id])
  const projectId = session!.project_id

  const headers = { 'Content-Type': 'application/json', 'X-Svc-Poll-Token': registered.poll_token }
  const base = `${h.stack.baseUrl}/api/v1/agent/poll/${registered.poll_id}`
  const read = async (path: string): Promise<Record<string, unknown>> => (await (await fetch(`${base}${path}`, { headers })).json()) as Record<string, unknown>
  const agent = await connectAgent(t, h.stack.baseUrl, (await mintKey(h.stack.db, projectId, 'api', 'agent')).token)

  /** Every fact the state endpoint answers, as the poll answer and the tool server answer it. */
  const agree = async (label: string): Promise<Record<string, unknown>> => {
    const state = await read('/state')
    const poll = (await read('')).facts as Record<string, unknown>
    const tool = await callTool(agent, 'get_setup_state')
    const toolFacts = tool.body.facts as Record<string, unknown>
    t.same(poll, state, `${label}: the poll answer's facts are the state endpoint's`)
    for (const [field, value] of Object.entries(state)) {
      if (!SESSION_ONLY.has(field)) t.same(toolFacts[field], value, `${label}: the tool server's ${field} is the state endpoint's`)
    }
    const steps = state.steps as Record<string, { status: string }>
    for (const [step, { status }] of Object.entries(tool.body.steps as Record<string, { status: string }>)) t.equal(status, steps[step]?.status, `${label}: step ${step} agrees`)
    return state
  }

  t.match(await agree('approved'), { has_events: false, chat_connected: false, chat_error: '' })

  // The owner picks the zone before the agent connects chat: the test message names it.
  await client.get(`/projects/${projectId}/settings/codehost`)
  t.equal((await client.post(`/projects/${projectId}/settings/timezone`, { timezone: 'Europe/Berlin' })).status, 303)
  const webhook = h.chatReceiver.webhook('ok')
  t.same(await (await fetch(`${base}/chat`, { method: 'POST', headers, body: JSON.stringify({ webhook_url: webhook }) })).json(), { ok: true })
  t.match(h.posts(new URL(webhook).pathname), [/around 09:00 Europe\/Berlin\b/], 'the test message says when, in which zone')

  await storeEvents(h.stack, projectId, [{ error: { type: 'TypeError', message: 'cart is undefined', stack: 'TypeError: cart is undefined\n    at cart (http://localhost:5173/assets/cart.js:1:1)' } }])
  t.match(await agree('chat connected, an event arrived'), { has_events: true, chat_connected: true, chat_error: '', latest_error_group_url: /\/issues\/[0-9a-f-]{36}$/ })

  // Slack forgets the webhook; the next digest is refused with 404 and marks the chat broken.
  h.chatReceiver.setAnswer(webhook, 'no_service')
  await h.completed(projectId, { title: 'TypeError: cart is undefined', users: 4, at: new Date('2026-06-10T04:00:00Z') })
  const digester = await h.digester({ model: false })
  await h.settle(digester)
  h.clock.set('2026-06-10T07:00:10Z')
  await h.settle(digester)
  h.clock.advance(10 * MINUTE)
  await h.settle(digester)
  t.match(await h.digests(projectId), [{ state: 'undelivered', error_code: 'chat_rejected' }], 'the chat refused the digest')
  const broken = await agree('chat broken')
  t.match(broken, { chat_connected: false, chat_error: /^Slack refused the webhook \(404 no_service\)/, steps: { chat: { status: 'pending' } } })

  const { rows: [row] } = await h.stack.db.query<{ chat_broken_at: Date }>('SELECT chat_broken_at FROM projects WHERE id = $1', [projectId])
  const local = DateTime.fromJSDate(row!.chat_broken_at, { zone: 'Europe/Berlin' }).toFormat('yyyy-MM-dd HH:mm')
  const since = new RegExp(`since <time datetime="${row!.chat_broken_at.toISOString()}">${local} Europe/Berlin</time>: Slack refused the webhook \\(404 no_service\\)`)
  t.match((await client.get(`/projects/${projectId}`)).text, since, 'the overview says since when, on the project\'s clock with its zone named')
  t.match((await client.get(`/projects/${projectId}/digests`)).text, since, 'so does the Digests tab')
})
