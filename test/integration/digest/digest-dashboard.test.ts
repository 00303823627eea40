/**
 * Where people read digests and set when they come: the time zone on the settings page, the
 * Digests tab, the overview's chat line, and the project API's JSON read (session cookie).
 */
import { randomBytes } from 'node:crypto'
import t from 'tap'
import { approveNewProject, DashboardClient } from '../../helpers/dashboard.js'
import { startDigestHarness } from '../../helpers/digest-harness.js'

const MINUTE = 60_000

async function owner(baseUrl: string): Promise<DashboardClient> {
  const client = new DashboardClient(baseUrl)
  await client.signUp(`owner-${randomBytes(4).toString('hex')}@example.test`)
  return client
}

t.test('the owner sets an IANA time zone on the settings page; an unknown one is refused saying what to enter', async (t) => {
  const h = await startDigestHarness(t, { start: '2026-06-10T05:00:00Z', ingress: true })
  const client = await owner(h.stack.baseUrl)
  const projectId = await approveNewProject(h.stack, client, 'Shop')
  const page = await client.get(`/projects/${projectId}/settings/codehost`)
  t.match(page.text, /<input id="timezone" name="timezone" type="text" value="UTC"/, 'UTC by default')

  const refused = await client.post(`/projects/${projectId}/settings/timezone`, { timezone: 'Europe/Atlantis' })
  t.equal(refused.status, 400)
  t.match(refused.text, /“Europe\/Atlantis” is not a time zone this service knows\. Enter an IANA time zone name such as Europe\/Berlin/)
  const { rows: [kept] } = await h.stack.db.query<{ timezone: string }>('SELECT timezone FROM projects WHERE id = $1', [projectId])
  t.equal(kept!.timezone, 'UTC', 'nothing was saved')

  await h.settle(await h.digester())
  const saved = await client.post(`/projects/${projectId}/settings/timezone`, { timezone: ' Europe/Berlin ' })
  t.equal(saved.status, 303, 'saved, back to the page')
  t.match((await client.get(saved.location)).text, /The daily digest comes around 09:00 Europe\/Berlin\./)
  const { rows: [project] } = await h.stack.db.query<{ timezone: string; digest_next_at: Date | null }>('SELECT timezone, digest_next_at FROM projects WHERE id = $1', [projectId])
  t.same(project, { timezone: 'Europe/Berlin', digest_next_at: null }, 'stored, and left for the digester to schedule again')
  await h.settle(await h.digester())
  const { rows: [next] } = await h.stack.db.query<{ at: Date }>('SELECT digest_next_at AS at FROM projects WHERE id = $1', [projectId])
  t.equal(next!.at.toISOString(), '2026-06-10T07:00:00.000Z', '09:00 Berlin')
})

t.test('the Digests tab and the project API show each digest as sent, its items with their facts and check', async (t) => {
  const h = await startDigestHarness(t, { start: '2026-06-10T08:00:00Z', ingress: true })
  const client = await owner(h.stack.baseUrl)
  const projectId = await approveNewProject(h.stack, client, 'Shop')
  const hook = h.chatReceiver.webhook('ok')
  await h.stack.db.query('UPDATE projects SET chat_webhook_url = $2, chat_connected_at = now() WHERE id = $1', [projectId, hook])
  await h.completed(projectId, { title: '<script>alert(1)</script> in cart', users: 6, at: new Date('2026-06-10T05:00:00Z'), fix: { number: 7 } })
  const digester = await h.digester()
  await h.settle(digester)
  h.clock.set('2026-06-10T09:00:10Z')
  await h.settle(digester)
  h.clock.advance(10 * MINUTE)
  await h.settle(digester)

  const page = await client.get(`/projects/${projectId}/digests`)
  t.equal(page.status, 200)
  t.match(page.text, /<h2>2026-06-10 <span class="muted">UTC<\/span><\/h2>\s*<p>delivered to chat/)
  t.match(page.text, /&lt;script&gt;alert\(1\)&lt;\/script&gt; in cart/, 'a hostile title is text')
  t.notMatch(page.text, /<script>alert/)
  t.match(page.text, /<td>6<\/td><td><a href="https:\/\/github.com\/acme\/shop\/pull\/7">/)

  const api = await client.get(`/api/v1/projects/${projectId}/digests?limit=3`)
  t.equal(api.status, 200)
  const body = JSON.parse(api.text) as { timezone: string; digests: Array<Record<string, unknown>> }
  t.equal(body.timezone, 'UTC')
  t.match(body.digests, [{ local_date: '2026-06-10', timezone: 'UTC', state: 'delivered', written_by: 'mechanical', delivered_at: '2026-06-10T09:10:10.000Z', text: h.posts(new URL(hook).pathname)[0], items: [{ position: 1, kind: 'issue', users: 6, outcome: 'fix_draft', pull_request_url: 'https://github.com/acme/shop/pull/7', check_result: 'written' }] }])

  t.match(JSON.parse((await client.get(`/api/v1/projects/${projectId}/digests?limit=0`)).text), { code: 'invalid_limit' })
  const stranger = await owner(h.stack.baseUrl)
  t.equal((await stranger.get(`/api/v1/projects/${projectId}/digests`)).status, 404, "another person's project is not found")
  t.equal((await fetch(`${h.stack.baseUrl}/api/v1/projects/${projectId}/digests`)).status, 401, 'no session, no digests')

  await h.stack.db.query(`UPDATE projects SET chat_broken_at = now(), chat_error = 'Slack refused the webhook (403 invalid_token): it was removed.' WHERE id = $1`, [projectId])
  const overview = await client.get(`/projects/${projectId}`)
  t.match(overview.text, /<dt>Chat<\/dt><dd><span class="bad">broken<\/span> <span class="muted">since <time[^>]*>[^<]*<\/time>: Slack refused the webhook \(403 invalid_token\): it was removed\.<\/span>/, 'the overview says the chat is broken and why')
  t.match(overview.text, /<dt>Daily digest<\/dt><dd>09:00 UTC/)
})
