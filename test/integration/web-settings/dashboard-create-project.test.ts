import t from 'tap'
import { createLogger } from '../../../shared/log.js'
import { parseKey } from '../../../shared/keys.js'
import { DashboardClient, INSTALL_ONLY_CODEHOST } from '../../helpers/dashboard.js'
import { postEvent, sampleEvent, startTestStack, waitFor } from '../../helpers/stack.js'

const KEY = /svc_[psa]k_[a-z0-9]{12}_[A-Za-z0-9]{32}/g

t.test('a project created on the dashboard answers its three working keys once, with the snippets filled in, and never again', async (t) => {
  const lines: string[] = []
  const stack = await startTestStack(t, { worker: true, log: createLogger('debug', {}, (line) => lines.push(line)) })
  const client = new DashboardClient(stack.baseUrl)
  await client.signUp('maker@example.test')
  const home = await client.get('/')
  t.match(home.text, 'href="/projects/new"', 'the projects page links to New project')
  const form = await client.get('/projects/new')
  t.equal(form.status, 200)
  t.match(form.text, 'name="csrf"', 'the form carries the form token')

  const created = await client.post('/projects/new', { name: '  Shop  ', repo: 'acme/shop' })
  t.equal(created.status, 200)
  t.equal(created.headers.get('cache-control'), 'no-store', 'no cache keeps the page with the keys')
  const shown = [...new Set(created.text.match(KEY))]
  const byKind = Object.fromEntries(shown.map((token) => [parseKey(token)!.kind, token]))
  t.same(Object.keys(byKind).sort(), ['api', 'ingest', 'sourcemap'], 'one key of each kind is shown')
  t.match(created.text, `apiKey: &#39;${byKind.ingest}&#39;`, 'the SDK snippet carries the ingest key')
  t.match(created.text, `SVC_SOURCEMAP_KEY=${byKind.sourcemap} SVC_ENDPOINT=${stack.config.baseUrl}`, 'the source-map command carries the source-map key')
  t.match(created.text, `export SVC_API_KEY=${byKind.api}`, 'the tool server snippet carries the api key')
  const dsnAt = new URL(stack.config.baseUrl)
  t.match(created.text, new RegExp(`Sentry\\.init\\(\\{ dsn: &#39;${dsnAt.protocol}//${byKind.ingest}@${dsnAt.host}/\\d+&#39; \\}\\)`), 'the Sentry snippet carries the DSN')
  t.match(created.text, `${stack.config.baseUrl}/mcp`)
  t.match(created.text, 'Repository acme/shop is attached')

  const { rows } = await stack.db.query<{ id: string; name: string; owner_email: string; codehost_repo: string; keys: number }>(
    `SELECT p.id, p.name, u.email AS owner_email, p.codehost_repo, (SELECT count(*)::int FROM api_keys k WHERE k.project_id = p.id) AS keys
       FROM projects p JOIN users u ON u.id = p.owner_id WHERE p.name = 'Shop'`,
  )
  t.same(rows.map(({ id: _id, ...row }) => row), [{ name: 'Shop', owner_email: 'maker@example.test', codehost_repo: 'acme/shop', keys: 3 }], 'the project is stored trimmed, owned by the person, with its repository and three keys')
  const projectId = rows[0]!.id
  t.match(created.text, `href="/projects/${projectId}"`, 'the page links to the project')

  const event = await postEvent(stack.baseUrl, sampleEvent(), { 'Content-Type': 'application/json', 'X-API-Key': byKind.ingest! })
  t.equal(event.status, 202, 'the ingress accepts the ingest key')
  const map = JSON.stringify({ version: 3, sources: ['src/a.ts'], names: [], mappings: 'AAAA' })
  const upload = await fetch(`${stack.baseUrl}/api/v1/sourcemaps?release=r1&path=/assets/a.js`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-API-Key': byKind.sourcemap! }, body: map })
  t.equal(upload.status, 201, 'the source-map key uploads')
  const issues = await waitFor(async () => {
    const answer = await fetch(`${stack.baseUrl}/api/v1/projects/${projectId}/issues`, { headers: { authorization: `Bearer ${byKind.api}` } })
    const body = (await answer.json()) as { issues?: unknown[] }
    return answer.status === 200 && (body.issues?.length ?? 0) > 0 ? body.issues : undefined
  }, 2_000)
  t.equal(issues.length, 1, "the api key reads the project's issues, the event's among them")

  const listed = await client.get(`/projects/${projectId}/issues`)
  t.match(listed.text, "Cannot read properties of undefined", "the event's issue is on the project's list")
  for (const page of ['/', `/projects/${projectId}`, `/projects/${projectId}/settings/api-keys`, '/projects/new']) {
    const text = (await client.get(page)).text
    for (const token of shown) t.notMatch(text, parseKey(token)!.secret, `${page} does not show a secret again`)
  }
  for (const token of shown) t.notOk(lines.some((line) => line.includes(parseKey(token)!.secret)), 'no log line carries a secret')
  t.ok(lines.some((line) => line.includes('"project created"')), 'the creation is logged, by id')
})

t.test('a bad name or repository is refused with the form again and nothing written', async (t) => {
  const stack = await startTestStack(t)
  const client = new DashboardClient(stack.baseUrl)
  await client.signUp('careful@example.test')
  await client.get('/projects/new')
  const count = async (): Promise<number> => (await stack.db.query<{ n: number }>('SELECT (SELECT count(*) FROM projects)::int + (SELECT count(*) FROM api_keys)::int AS n')).rows[0]!.n
  const before = await count()
  const cases: Array<[Record<string, string>, string, string]> = [
    [{ name: '   ', repo: '' }, 'Give the project a name of 1 to 200 characters', 'an empty name'],
    [{ name: 'x'.repeat(201), repo: '' }, 'Give the project a name of 1 to 200 characters', 'a name over 200 characters'],
    [{ name: 'Shop', repo: 'not a repo' }, 'The repository must be owner/name', 'a repository that is not owner/name'],
    [{ name: 'Shop', repo: 'acme/shop/extra' }, 'The repository must be owner/name', 'a repository with a path'],
  ]
  for (const [form, message, what] of cases) {
    const answer = await client.post('/projects/new', form)
    t.equal(answer.status, 400, `${what} is refused`)
    t.match(answer.text, message, `${what}: the message says what to type`)
    t.match(answer.text, 'role="alert"')
  }
  const hostile = await client.post('/projects/new', { name: '<script>alert(1)</script>', repo: '<b>' })
  t.equal(hostile.status, 400)
  t.notMatch(hostile.text, '<script>alert(1)</script>', 'typed text comes back escaped')
  t.match(hostile.text, '&lt;script&gt;alert(1)&lt;/script&gt;')
  t.equal(await count(), before, 'no project and no key was written')
})

t.test('New project is refused cross-site, with a wrong form token, and signed out', async (t) => {
  const stack = await startTestStack(t)
  const client = new DashboardClient(stack.baseUrl)
  await client.signUp('guarded@example.test')
  await client.get('/projects/new')
  const crossSite = await client.post('/projects/new', { name: 'Evil' }, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' })
  t.equal(crossSite.status, 403, 'a cross-site post is refused')
  const wrongToken = await client.request('/projects/new', { form: { csrf: 'x'.repeat(43), name: 'Evil' } })
  t.equal(wrongToken.status, 403, 'a wrong form token is refused')
  const stranger = new DashboardClient(stack.baseUrl)
  const signedOut = await stranger.get('/projects/new')
  t.equal(signedOut.status, 302, 'signed out, the form sends the browser to sign in')
  t.match(signedOut.location, '/signin?next=%2Fprojects%2Fnew')
  const { rows } = await stack.db.query("SELECT 1 FROM projects WHERE name = 'Evil'")
  t.equal(rows.length, 0, 'nothing was created')
})

t.test('with a code host app the repository is asked about first: one it does not confirm is left unattached, and the project and keys are still made', async (t) => {
  const stack = await startTestStack(t, { plugins: { codehost: INSTALL_ONLY_CODEHOST, chat: undefined } })
  const client = new DashboardClient(stack.baseUrl)
  await client.signUp('hosted@example.test')
  await client.get('/projects/new')
  const created = await client.post('/projects/new', { name: 'Hosted', repo: 'acme/private' })
  t.equal(created.status, 200)
  t.match(created.text, 'Repository acme/private is not attached: the code host did not confirm it', 'the answer says the repository is not attached')
  t.equal(new Set(created.text.match(KEY)).size, 3, 'the keys are shown all the same')
  const { rows } = await stack.db.query<{ codehost_repo: string; keys: number }>("SELECT p.codehost_repo, (SELECT count(*)::int FROM api_keys k WHERE k.project_id = p.id) AS keys FROM projects p WHERE p.name = 'Hosted'")
  t.same(rows, [{ codehost_repo: '', keys: 3 }], 'no repository was stored unchecked')
})
