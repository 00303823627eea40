// Settings > API keys as a browser uses it: a key of each kind created (its value shown once, on
// the answer to the form only), revoked (401 at once on the tool server), and the owner alone may
// do either. The issue page shows pull requests an agent linked.
import { randomBytes } from 'node:crypto'
import t from 'tap'
import { parseKey } from '../../../shared/keys.js'
import { approveNewProject, DashboardClient } from '../../helpers/dashboard.js'
import { callTool, connectAgent, postMcp, storeEvents } from '../../helpers/mcp.js'
import { startTestStack, type TestStack } from '../../helpers/stack.js'

const INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })

async function owner(stack: TestStack): Promise<{ client: DashboardClient; projectId: string; page: string }> {
  const client = new DashboardClient(stack.baseUrl)
  await client.signUp(`owner-${randomBytes(4).toString('hex')}@example.test`)
  const projectId = await approveNewProject(stack, client, 'Shop')
  return { client, projectId, page: `/projects/${projectId}/settings/api-keys` }
}

/** The key value a page shows, if any. */
function shownKey(text: string): string | undefined {
  return /<pre class="key-value" id="new-key">(svc_[psa]k_[a-z0-9]{12}_[A-Za-z0-9]{32})<\/pre>/.exec(text)?.[1]
}

t.test('the owner creates a key of each kind, sees its value once, and it works at once', async (t) => {
  const stack = await startTestStack(t)
  const { client, projectId, page } = await owner(stack)
  const settings = await client.get(`/projects/${projectId}/settings/codehost`)
  t.match(settings.text, `href="${page}"`, 'the settings page links to API keys')
  const opened = await client.get(page)
  t.equal(opened.status, 200)
  t.equal((opened.text.match(/<tr><td><code>/g) ?? []).length, 3, 'the three keys the approval minted')
  t.match(opened.text, /id="dsn-shape">Coming from Sentry\? [^<]*<code>http:\/\/INGEST_KEY@[^/]+\/\d+<\/code>/, "the project's DSN is shown with the ingest key as a placeholder")

  for (const [kind, prefix] of [['api', 'svc_ak_'], ['sourcemap', 'svc_sk_'], ['ingest', 'svc_pk_']] as const) {
    await client.get(page)
    const created = await client.post(page, { kind, label: `${kind} for ci` })
    t.equal(created.status, 200)
    const token = shownKey(created.text)
    t.ok(token?.startsWith(prefix), `a ${kind} key is shown`)
    t.match(created.headers.get('cache-control') ?? '', /no-store/, 'no cache keeps the page that shows it')
    const { rows } = await stack.db.query<{ project_id: string; kind: string; label: string }>('SELECT project_id, kind, label FROM api_keys WHERE id = $1', [parseKey(token!)!.id])
    t.same(rows, [{ project_id: projectId, kind, label: `${kind} for ci` }])
    const dsn = /<pre class="key-value" id="new-dsn">([^<]+)<\/pre>/.exec(created.text)?.[1]
    if (kind === 'ingest') t.match(dsn, new RegExp(`^http://${token}@[^/]+/\\d+$`), 'an ingest key is shown with its Sentry DSN')
    else t.equal(dsn, undefined, `a ${kind} key has no DSN`)
    const again = await client.get(page)
    t.equal(shownKey(again.text), undefined, 'shown once: the list has ids only')
    t.notOk(again.text.includes(token!.slice(-32)), 'the secret is nowhere on the page')
  }
  await client.get(page)
  const apiKey = shownKey((await client.post(page, { kind: 'api', label: '' })).text)!
  const agent = await connectAgent(t, stack.baseUrl, apiKey)
  const state = await callTool(agent, 'get_setup_state')
  t.equal((state.body.project as { id: string }).id, projectId, "the new key answers for the owner's project")

  await client.get(page)
  const bad = await client.post(page, { kind: 'root', label: '' })
  t.equal(bad.status, 400)
  t.equal(shownKey(bad.text), undefined)
})

t.test('revoking a key stops it at once with 401, and only the owner may revoke', async (t) => {
  const stack = await startTestStack(t)
  const { client, page } = await owner(stack)
  await client.get(page)
  const token = shownKey((await client.post(page, { kind: 'api', label: 'agent' })).text)!
  const id = parseKey(token)!.id
  t.equal((await postMcp(stack.baseUrl, INITIALIZE, { authorization: `Bearer ${token}` })).status, 200, 'works, and is cached')

  const stranger = new DashboardClient(stack.baseUrl)
  await stranger.signUp('stranger@example.test')
  await stranger.get('/')
  const refused = await stranger.post(`${page}/${id}/revoke`, {})
  t.equal(refused.status, 403, "another person cannot revoke the owner's key")
  t.equal((await postMcp(stack.baseUrl, INITIALIZE, { authorization: `Bearer ${token}` })).status, 200, 'still works')

  await client.get(page)
  const revoked = await client.post(`${page}/${id}/revoke`, {})
  t.equal(revoked.status, 303)
  const after = await client.get(revoked.location)
  t.match(after.text, `Key ${id} is revoked`)
  t.match(after.text, /revoked <time/)
  const answer = await postMcp(stack.baseUrl, INITIALIZE, { authorization: `Bearer ${token}` })
  t.equal(answer.status, 401, 'refused at once')
  t.equal(answer.json.code, 'key_unknown')
  await client.get(page)
  t.equal((await client.post(`${page}/${id}/revoke`, {})).status, 404, 'a revoked key cannot be revoked again')
})

t.test('the issue page shows the pull requests an agent linked, as links only when http(s)', async (t) => {
  const stack = await startTestStack(t)
  const { client, projectId, page } = await owner(stack)
  const [issueId] = await storeEvents(stack, projectId, [{}])
  await client.get(page)
  const token = shownKey((await client.post(page, { kind: 'api', label: 'agent' })).text)!
  const agent = await connectAgent(t, stack.baseUrl, token)
  await callTool(agent, 'link_pull_request', { issue_id: issueId, url: 'https://github.com/acme/shop/pull/12', title: '<script>alert(1)</script> Guard the cart' })
  const issuePage = await client.get(`/projects/${projectId}/issues/${issueId}`)
  t.match(issuePage.text, 'Pull requests linked by agents')
  t.match(issuePage.text, '<a href="https://github.com/acme/shop/pull/12" rel="noreferrer">&lt;script&gt;alert(1)&lt;/script&gt; Guard the cart</a>')
  t.match(issuePage.text, `<code>${parseKey(token)!.id}</code>`, 'with the key that linked it')
})
