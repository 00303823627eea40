import t from 'tap'
import { launchChromium } from '../helpers/browser/browser.js'
import { registerSetupSession } from '../helpers/dashboard.js'
import { startRecordingProxy } from '../helpers/loopback/recording-proxy.js'
import { startTestStack } from '../helpers/stack.js'
import { patience } from '../helpers/patience.js'

t.test('in Chromium, a person opens auth_url signed out, creates an account, comes back, approves, and the session is provisioned', async (t) => {
  // auth_url is built from SVC_BASE_URL, known only once something listens there: a relay in
  // front of the ingress gives the address first, so the browser follows the link as handed out.
  const proxy = await startRecordingProxy()
  t.teardown(() => proxy.close())
  const stack = await startTestStack(t, { env: { SVC_BASE_URL: proxy.url } })
  proxy.target = stack.baseUrl
  const { pollId, authUrl } = await registerSetupSession(stack, { projectName: 'Shop', agentName: 'claude-code on <build-01>', gitRemote: 'acme/shop' })

  const browser = await launchChromium(t)
  const tab = await browser.newPage()
  const problems: string[] = []
  tab.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text())
  })
  tab.on('pageerror', (error) => problems.push(error.message))

  await tab.goto(authUrl)
  await tab.getByRole('link', { name: 'Create an account' }).click()
  await tab.getByLabel('Email').fill('person@example.test')
  await tab.getByLabel('Password').fill('correct horse battery staple')
  await tab.getByRole('button', { name: 'Create account' }).click()

  await tab.waitForURL(`${proxy.url}/setup/${pollId}`, { timeout: patience(5000) })
  t.equal(await tab.locator('.agent-name').textContent(), 'claude-code on <build-01>', 'the agent is named as it registered, as text')
  t.equal(await tab.locator('.project-name').textContent(), 'Shop')
  t.equal(await tab.locator('.git-remote').textContent(), 'acme/shop')
  t.ok(await tab.getByLabel('Create a new project named Shop').isChecked(), 'a new project is the default choice')
  // The test code has no DOM types; the function runs in the page.
  const background = await tab.locator('#approve').evaluate((button) => (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }).getComputedStyle(button).backgroundColor)
  t.not(background, 'rgba(0, 0, 0, 0)', 'the stylesheet applies under the CSP')

  await tab.getByRole('button', { name: 'Approve' }).click()
  await tab.getByRole('heading', { name: 'Approved' }).waitFor()
  t.match(await tab.locator('main').textContent(), 'will continue on its own')

  const { rows } = await stack.db.query<{ status: string; email: string; name: string }>(
    'SELECT s.status, u.email, p.name FROM setup_sessions s JOIN users u ON u.id = s.approved_by JOIN projects p ON p.id = s.project_id WHERE s.id = $1',
    [pollId],
  )
  t.same(rows, [{ status: 'provisioned', email: 'person@example.test', name: 'Shop' }])
  t.same(problems, [], 'no script errors and no CSP violations in the console')
})
