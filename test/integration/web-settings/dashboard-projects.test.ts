import t from 'tap'
import { mintKey } from '../../../shared/keys.js'
import { approveNewProject, DashboardClient, INSTALL_ONLY_CODEHOST } from '../../helpers/dashboard.js'
import { postEvent, sampleEvent, startTestStack, waitFor } from '../../helpers/stack.js'

t.test('a signed-out visit to the project list goes to sign-in, and a project page comes back to itself', async (t) => {
  const stack = await startTestStack(t)
  const client = new DashboardClient(stack.baseUrl)
  const home = await client.get('/')
  t.equal(home.status, 302)
  t.equal(home.location, '/signin')
  const project = await client.get('/projects/00000000-0000-4000-8000-000000000000/issues')
  t.equal(project.status, 302)
  t.equal(project.location, `/signin?next=${encodeURIComponent('/projects/00000000-0000-4000-8000-000000000000/issues')}`)
})

t.test('the project list and pages show only the signed-in person’s projects; another person gets 404', async (t) => {
  const stack = await startTestStack(t)
  const owner = new DashboardClient(stack.baseUrl)
  await owner.signUp('owner@example.test')
  const projectId = await approveNewProject(stack, owner, 'Storefront')
  const list = await owner.get('/')
  t.match(list.text, `<a href="/projects/${projectId}"><strong>Storefront</strong></a>`)
  t.notMatch(list.text, stack.projectId, 'the seeded project, owned by nobody, is not listed')
  const overview = await owner.get(`/projects/${projectId}`)
  t.equal(overview.status, 200)
  const { rows: keys } = await stack.db.query<{ id: string; kind: string }>('SELECT id, kind FROM api_keys WHERE project_id = $1', [projectId])
  t.equal(keys.length, 3)
  for (const key of keys) t.match(overview.text, `<code>${key.id}</code>`, `key id of the ${key.kind} key is shown`)
  t.notMatch(overview.text, /svc_[psa]k_[a-z0-9]{12}_/, 'no key token is shown')
  t.match(overview.text, 'none uploaded')

  const stranger = new DashboardClient(stack.baseUrl)
  await stranger.signUp('stranger@example.test')
  t.notMatch((await stranger.get('/')).text, 'Storefront')
  for (const path of [`/projects/${projectId}`, `/projects/${projectId}/issues`, `/projects/${projectId}/settings/codehost`, `/projects/${projectId}/issues/00000000-0000-4000-8000-000000000000`]) {
    const answer = await stranger.get(path)
    t.equal(answer.status, 404, `${path} is not found for another person`)
    t.notMatch(answer.text, 'Storefront')
  }
  t.equal((await owner.get('/projects/not-a-uuid')).status, 404)
})

t.test('the issue list and issue page show what the grouper stored, with hostile error text escaped', async (t) => {
  // The ingress takes the event and a worker's grouper turns it into an issue.
  const stack = await startTestStack(t, { worker: true })
  const client = new DashboardClient(stack.baseUrl)
  await client.signUp('dev@example.test')
  const projectId = await approveNewProject(stack, client, 'Shop')
  const { token } = await mintKey(stack.db, projectId, 'ingest', 'test')
  const hostile = '<img src=x onerror=alert(1)>'
  const event = sampleEvent({ error: { type: 'TypeError', message: hostile, stack: `TypeError: ${hostile}\n    at renderCart (http://localhost:5173/assets/index-4f3a9c2b.js:12:34)` } })
  const posted = await postEvent(stack.baseUrl, event, { 'content-type': 'application/json', 'x-api-key': token })
  t.equal(posted.status, 202)
  const issueId = await waitFor(async () => (await stack.db.query<{ id: string }>('SELECT id FROM issues WHERE project_id = $1', [projectId])).rows[0]?.id)

  const list = await client.get(`/projects/${projectId}/issues`)
  t.equal(list.status, 200)
  t.match(list.text, `href="/projects/${projectId}/issues/${issueId}"`)
  t.match(list.text, 'TypeError: &lt;img src=x onerror=alert(', 'the title, normalised by the grouper, escaped')
  t.notMatch(list.text, '<img')
  t.match(list.text, /<td class="num">1<\/td>/, 'event count')

  const page = await client.get(`/projects/${projectId}/issues/${issueId}`)
  t.equal(page.status, 200)
  t.match(page.text, '<span class="status">new</span>')
  t.match(page.text, 'at renderCart (http://localhost:5173/assets/index-4f3a9c2b.js:12:34)', 'the latest event’s stack as reported')
  t.match(page.text, '&lt;img src=x onerror=alert(1)&gt;', 'the raw message, escaped')
  t.notMatch(page.text, '<img')
  t.equal((await client.get(`/projects/${projectId}/issues/00000000-0000-4000-8000-000000000000`)).status, 404)
})

t.test('code-host settings show the attached repository and the install link only when an app exists', async (t) => {
  const withApp = await startTestStack(t, { plugins: { codehost: INSTALL_ONLY_CODEHOST, chat: undefined } })
  const client = new DashboardClient(withApp.baseUrl)
  await client.signUp('settings@example.test')
  const projectId = await approveNewProject(withApp, client, 'Repo app')
  await withApp.db.query(`UPDATE projects SET codehost_repo = 'acme/shop', codehost_connected_at = now() WHERE id = $1`, [projectId])
  const page = await client.get(`/projects/${projectId}/settings/codehost`)
  t.equal(page.status, 200)
  t.match(page.text, '<code>acme/shop</code>')
  t.match(page.text, 'href="https://codehost.example/apps/svc/installations/new"')

  const without = await startTestStack(t)
  const person = new DashboardClient(without.baseUrl)
  await person.signUp('plain@example.test')
  const plain = await approveNewProject(without, person, 'No app')
  const bare = await person.get(`/projects/${plain}/settings/codehost`)
  t.match(bare.text, 'no code host app configured')
  t.notMatch(bare.text, 'Install the code host app')
})
