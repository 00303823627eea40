// The project settings page's forms, posted as a browser posts them: the repository (checked with
// the real codehost-github plugin against the loopback GitHub, or stored unchecked without a code
// host) and the limited-draft opt-in.
import { randomBytes } from 'node:crypto'
import t from 'tap'
import { createLogger } from '../../../shared/log.js'
import { loadPlugin } from '../../../shared/plugins/loader.js'
import { approveNewProject, DashboardClient } from '../../helpers/dashboard.js'
import { closedOrigin } from '../../helpers/loopback/github-loopback.js'
import { startLoopbackPlugins } from '../../helpers/loopback/loopback-plugins.js'
import { startTestStack, type TestStack } from '../../helpers/stack.js'

const { github, githubSettings, codehost, chat } = await startLoopbackPlugins(t)

interface RepoColumns {
  codehost_repo: string
  codehost_installation_id: string
  codehost_repo_access: string
  codehost_connected_at: Date | null
  fix_limited_drafts: boolean
}

async function columns(stack: TestStack, projectId: string): Promise<RepoColumns> {
  const { rows } = await stack.db.query<RepoColumns>(
    'SELECT codehost_repo, codehost_installation_id, codehost_repo_access, codehost_connected_at, fix_limited_drafts FROM projects WHERE id = $1',
    [projectId],
  )
  return rows[0]!
}

/** A signed-in owner with a new project, on the settings page (so the client holds its CSRF token). */
async function ownerWithProject(stack: TestStack, name = 'Shop'): Promise<{ client: DashboardClient; projectId: string; page: string }> {
  const client = new DashboardClient(stack.baseUrl)
  await client.signUp(`owner-${randomBytes(4).toString('hex')}@example.test`)
  const projectId = await approveNewProject(stack, client, name)
  const page = `/projects/${projectId}/settings/codehost`
  const opened = await client.get(page)
  if (opened.status !== 200) throw new Error(`the settings page answered ${opened.status}`)
  return { client, projectId, page }
}

const account = (): string => `acme-${randomBytes(4).toString('hex')}`

t.test('the owner attaches a repository the code host app can see; the page shows it and what the app can see', async (t) => {
  const stack = await startTestStack(t, { plugins: { codehost, chat } })
  const { client, projectId, page } = await ownerWithProject(stack)
  const owner = account()
  github.addRepository(`${owner}/shop`, { private: true })
  const installation = github.install(owner)

  const saved = await client.post(page, { codehost_repo: ` ${owner}/shop ` })
  t.equal(saved.status, 303)
  t.equal(saved.location, `${page}?saved=attached`)
  t.match(await columns(stack, projectId), { codehost_repo: `${owner}/shop`, codehost_installation_id: installation, codehost_repo_access: 'visible_private', codehost_connected_at: Date })
  const shown = await client.get(saved.location)
  t.match(shown.text, `<code>${owner}/shop</code>`)
  t.match(shown.text, `Attached ${owner}/shop: the code host app can see it.`)
  t.match(shown.text, 'the app can see it (private repository)')
  t.match(shown.text, `name="codehost_repo" type="text" value="${owner}/shop"`, 'the form holds the stored repository')

  const again = await client.post(page, { codehost_repo: `${owner}/shop` })
  t.equal(again.location, `${page}?saved=unchanged`, 'the same repository again is not checked again')
})

t.test('an invalid repository is refused with what a valid one looks like, and nothing is written', async (t) => {
  const stack = await startTestStack(t, { plugins: { codehost, chat } })
  const { client, projectId, page } = await ownerWithProject(stack)
  await stack.db.query(`UPDATE projects SET codehost_repo = 'acme/shop', codehost_repo_access = 'visible_public', codehost_connected_at = now() WHERE id = $1`, [projectId])
  const before = await columns(stack, projectId)
  const requestsBefore = github.requests.length
  const bad = ['not a repo', 'acme', 'acme/shop/extra', '-acme/shop', 'acme-/shop', 'ac--me/shop', `${'a'.repeat(40)}/shop`, 'acme/..', 'acme/.', `acme/${'r'.repeat(101)}`, 'acme/sh op', 'acme/<b>x</b>']
  for (const text of bad) {
    const answer = await client.post(page, { codehost_repo: text })
    t.equal(answer.status, 400, `${text} answers 400`)
    t.match(answer.text, 'Enter owner/repo as the code host shows it, for example octocat/hello-world', `${text}: the message says what a valid value looks like`)
    t.match(answer.text, 'Nothing was saved.')
  }
  const hostile = await client.post(page, { codehost_repo: 'acme/<b>x</b>' })
  t.notMatch(hostile.text, '<b>x</b>', 'the value is shown escaped')
  t.match(hostile.text, 'value="acme/&lt;b&gt;x&lt;/b&gt;"', 'the form keeps what was typed')
  t.same(await columns(stack, projectId), before, 'nothing changed')
  t.equal(github.requests.length, requestsBefore, 'the code host was not asked')
  const longest = `${'a'.repeat(39)}/${'r'.repeat(100)}`
  github.addRepository(longest)
  github.install('a'.repeat(39))
  t.equal((await client.post(page, { codehost_repo: longest })).location, `${page}?saved=attached`, 'the longest names GitHub allows pass')
})

t.test('a repository the app cannot see is refused with the code host’s answer and the old value kept', async (t) => {
  const stack = await startTestStack(t, { plugins: { codehost, chat } })
  const { client, projectId, page } = await ownerWithProject(stack)
  const home = account()
  github.addRepository(`${home}/shop`)
  github.install(home)
  t.equal((await client.post(page, { codehost_repo: `${home}/shop` })).status, 303)

  const missing = account()
  github.addRepository(`${missing}/shop`)
  const notInstalled = await client.post(page, { codehost_repo: `${missing}/shop` })
  t.equal(notInstalled.status, 400)
  t.match(notInstalled.text, `The code host app is not installed on ${missing}.`)
  t.match(notInstalled.text, `href="${github.webUrl}/apps/${github.appSlug}/installations/new"`, 'with the install link')
  t.match(notInstalled.text, 'The repository was not changed.')
  t.match(await columns(stack, projectId), { codehost_repo: `${home}/shop`, codehost_repo_access: 'visible_public' })

  const partial = account()
  github.addRepository(`${partial}/shop`)
  github.addRepository(`${partial}/other`)
  const partialInstallation = github.install(partial, { repositories: ['other'] })
  const notIn = await client.post(page, { codehost_repo: `${partial}/shop` })
  t.equal(notIn.status, 400)
  t.match(notIn.text, `installed on ${partial}, but not on ${partial}/shop`)
  t.match(notIn.text, /<a href="http:\/\/127\.0\.0\.1:\d+\/settings\/installations\/\d+" rel="noreferrer">Add the repository<\/a>/)
  t.match(await columns(stack, projectId), { codehost_repo: `${home}/shop`, codehost_installation_id: partialInstallation, codehost_repo_access: 'not_in_installation' }, 'what the code host said is recorded as an agent’s attach records it; the repository stays')

  const paused = account()
  github.addRepository(`${paused}/shop`)
  const pausedInstallation = github.install(paused)
  github.suspend(pausedInstallation)
  github.uninstall(partialInstallation)
  const gone = await client.post(page, { codehost_repo: `${paused}/shop` })
  t.equal(gone.status, 409, 'the installation the project used was removed')
  t.match(gone.text, 'The code host app installation this project used was removed.')
  t.match(await columns(stack, projectId), { codehost_repo: `${home}/shop`, codehost_installation_id: '', codehost_repo_access: 'installation_gone' })
  const suspended = await client.post(page, { codehost_repo: `${paused}/shop` })
  t.equal(suspended.status, 409)
  t.match(suspended.text, `The code host app installation on ${paused} is suspended.`)
  t.equal((await columns(stack, projectId)).codehost_repo, `${home}/shop`)
})

t.test('when the code host cannot be reached the page says so and nothing is written', async (t) => {
  const stack = await startTestStack(t, { plugins: { codehost, chat } })
  const { client, projectId, page } = await ownerWithProject(stack)
  const owner = account()
  github.addRepository(`${owner}/shop`)
  github.install(owner)
  const before = await columns(stack, projectId)
  github.failWith(500)
  t.teardown(() => github.failWith(undefined))
  const failing = await client.post(page, { codehost_repo: `${owner}/shop` })
  github.failWith(undefined)
  t.equal(failing.status, 503)
  t.match(failing.text, `The code host could not be reached, so ${owner}/shop could not be checked and nothing was saved.`)
  t.same(await columns(stack, projectId), before)

  const unreachable = await loadPlugin('codehost', 'codehost-github', { ...githubSettings, apiUrl: `${await closedOrigin()}/api/v3` }, { log: createLogger('silent') })
  const closed = await startTestStack(t, { plugins: { codehost: unreachable, chat } })
  const other = await ownerWithProject(closed)
  const refused = await other.client.post(other.page, { codehost_repo: `${owner}/shop` })
  t.equal(refused.status, 503)
  t.equal((await columns(closed, other.projectId)).codehost_repo, '')
})

t.test('without a code host the repository is stored unchecked, and an empty value detaches it', async (t) => {
  const stack = await startTestStack(t)
  const { client, projectId, page } = await ownerWithProject(stack)
  const form = await client.get(page)
  t.match(form.text, 'saved without a check')
  const saved = await client.post(page, { codehost_repo: 'acme/shop' })
  t.equal(saved.location, `${page}?saved=unchecked`)
  t.match(await columns(stack, projectId), { codehost_repo: 'acme/shop', codehost_repo_access: '', codehost_connected_at: Date })
  const shown = await client.get(saved.location)
  t.match(shown.text, 'Saved acme/shop without checking it')
  t.match(shown.text, 'not checked')

  const detached = await client.post(page, { codehost_repo: '' })
  t.equal(detached.location, `${page}?saved=detached`)
  t.match(await columns(stack, projectId), { codehost_repo: '', codehost_repo_access: '', codehost_connected_at: null })
  t.match((await client.get(detached.location)).text, 'The repository was detached.')
  t.equal((await client.post(page, { codehost_repo: '  ' })).location, `${page}?saved=unchanged`, 'detaching nothing changes nothing')
})

t.test('detaching a checked repository keeps the installation for the next attach', async (t) => {
  const stack = await startTestStack(t, { plugins: { codehost, chat } })
  const { client, projectId, page } = await ownerWithProject(stack)
  const owner = account()
  github.addRepository(`${owner}/shop`)
  const installation = github.install(owner)
  await client.post(page, { codehost_repo: `${owner}/shop` })
  const detached = await client.post(page, { codehost_repo: '' })
  t.equal(detached.location, `${page}?saved=detached`)
  t.match(await columns(stack, projectId), { codehost_repo: '', codehost_installation_id: installation, codehost_repo_access: '', codehost_connected_at: null })
})

t.test('limited drafts are off by default and the owner turns them on and off', async (t) => {
  const stack = await startTestStack(t)
  const { client, projectId, page } = await ownerWithProject(stack)
  const form = await client.get(page)
  t.match(form.text, /<input type="checkbox" id="limited_drafts" name="limited_drafts" value="on" aria-describedby/, 'unticked by default')
  t.match(form.text, '“not verified”')
  t.equal((await columns(stack, projectId)).fix_limited_drafts, false)

  const on = await client.post(`/projects/${projectId}/settings/fixes`, { limited_drafts: 'on' })
  t.equal(on.status, 303)
  t.equal(on.location, `${page}?saved=limited_drafts`)
  t.equal((await columns(stack, projectId)).fix_limited_drafts, true)
  const shown = await client.get(on.location)
  t.match(shown.text, 'Limited drafts are on.')
  t.match(shown.text, 'value="on" checked')

  const off = await client.post(`/projects/${projectId}/settings/fixes`, {})
  t.equal(off.status, 303)
  t.equal((await columns(stack, projectId)).fix_limited_drafts, false, 'an unticked box sends nothing, which is off')
  t.match((await client.get(off.location)).text, 'Limited drafts are off.')
})

t.test("the page lists the project's environments by name with the UUID the operator commands take, and only its own", async (t) => {
  const stack = await startTestStack(t)
  const { client, projectId, page } = await ownerWithProject(stack)
  t.match((await client.get(page)).text, /<h2>Environments<\/h2>[\s\S]*No environment yet\./, 'a new project has none yet')

  const environment = async (project: string, name: string): Promise<string> =>
    (await stack.db.query<{ id: string }>('INSERT INTO environments (project_id, name) VALUES ($1, $2) RETURNING id', [project, name])).rows[0]!.id
  const production = await environment(projectId, 'production')
  const staging = await environment(projectId, 'staging')
  // Written here past the SDK's name check, as a row written before that check could be: still text, never markup.
  const odd = await environment(projectId, 'qa<b>x</b>')
  const elsewhere = await environment(stack.projectId, 'production')
  const shown = (await client.get(page)).text
  t.match(shown, `<tr><td>production</td><td><code>${production}</code></td><td><time datetime=`)
  t.match(shown, `<tr><td>staging</td><td><code>${staging}</code></td>`)
  t.match(shown, `<tr><td>qa&lt;b&gt;x&lt;/b&gt;</td><td><code>${odd}</code></td>`, 'a name is escaped')
  t.ok(shown.indexOf(production) < shown.indexOf(odd) && shown.indexOf(odd) < shown.indexOf(staging), 'by name')
  t.notMatch(shown, elsewhere, "another project's environment is not listed")
  t.match(shown, `<code>svc environments --project ${projectId}</code>`, 'and the command that lists them with their facts')
  t.notMatch(shown, /more, not listed here/)

  await stack.db.query(`INSERT INTO environments (project_id, name) SELECT $1, 'zz-' || lpad(g::text, 3, '0') FROM generate_series(1, 100) g`, [projectId])
  const many = (await client.get(page)).text
  t.equal(many.match(/<tr><td>/g)?.length, 100, 'at most 100 listed')
  t.match(many, `3 more, not listed here: <code>svc environments --project ${projectId}</code> lists every one.`)
  const refused = await client.post(`/projects/${projectId}/settings/timezone`, { timezone: 'Mars/Olympus' })
  t.equal(refused.status, 400)
  t.match(refused.text, `<code>${production}</code>`, 'a form answered again with its error still lists them')
})

t.test('another person cannot post either form: 403, and nothing changes', async (t) => {
  const stack = await startTestStack(t)
  const { projectId } = await ownerWithProject(stack)
  const before = await columns(stack, projectId)
  const stranger = new DashboardClient(stack.baseUrl)
  await stranger.signUp('stranger@example.test')
  t.equal((await stranger.get(`/projects/${projectId}/settings/codehost`)).status, 404, 'the page is not found for them, as every project page')
  await stranger.get('/')
  const repo = await stranger.post(`/projects/${projectId}/settings/codehost`, { codehost_repo: 'evil/repo' })
  t.equal(repo.status, 403)
  t.match(repo.text, 'Only the project')
  t.equal((await stranger.post(`/projects/${projectId}/settings/fixes`, { limited_drafts: 'on' })).status, 403)
  t.equal((await stranger.post('/projects/00000000-0000-4000-8000-000000000000/settings/fixes', { limited_drafts: 'on' })).status, 403, 'also for an id that does not exist')
  t.same(await columns(stack, projectId), before)
})

t.test('a post without the CSRF token, with another, or from another site is refused', async (t) => {
  const stack = await startTestStack(t)
  const { client, projectId, page } = await ownerWithProject(stack)
  const before = await columns(stack, projectId)
  const missing = await client.request(page, { form: { codehost_repo: 'acme/shop' } })
  t.equal(missing.status, 403)
  t.match(missing.text, 'Form expired')
  t.equal((await client.request(`/projects/${projectId}/settings/fixes`, { form: { limited_drafts: 'on' } })).status, 403)
  t.equal((await client.request(page, { form: { csrf: 'x'.repeat(43), codehost_repo: 'acme/shop' } })).status, 403)
  const crossSite = await client.post(`/projects/${projectId}/settings/fixes`, { limited_drafts: 'on' }, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' })
  t.equal(crossSite.status, 403)
  t.same(await columns(stack, projectId), before)
})
