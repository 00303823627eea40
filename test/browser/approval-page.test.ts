import t from 'tap'
import uWS from 'uWebSockets.js'
import { registerDashboardRoutes } from '../../services/ingress/dashboard/routes.js'
import { registerSession, type SetupDeps } from '../../services/ingress/setup/sessions.js'
import { createLogger } from '../../shared/log.js'
import { launchChromium } from '../helpers/browser.js'
import { startTestStack } from '../helpers/stack.js'

t.test('in Chromium, a person opens auth_url signed out, creates an account, comes back, approves, and the session is provisioned', async (t) => {
  const stack = await startTestStack(t, { ingress: false })
  const app = uWS.App()
  const socket = await new Promise<uWS.us_listen_socket>((resolve, reject) => app.listen('127.0.0.1', 0, (s) => (s ? resolve(s) : reject(new Error('no port')))))
  t.teardown(() => {
    uWS.us_listen_socket_close(socket)
    ;(app as unknown as { close(): void }).close()
  })
  const baseUrl = `http://127.0.0.1:${uWS.us_socket_local_port(socket)}`
  const log = createLogger('silent')
  const setup: SetupDeps = { db: stack.db, redis: stack.redis, keys: stack.keys, log, baseUrl, limits: stack.config.setup, codehost: undefined, chat: undefined }
  // What services/ingress/app.ts does for paths nobody serves (the browser asks for /favicon.ico).
  app.any('/*', (res) => void res.writeStatus('404 Not Found').end())
  registerDashboardRoutes(app, { setup, log, baseUrl, dashboardOrigin: undefined, codehost: undefined, secureCookies: false, redisKeyPrefix: stack.prefix })
  const registration = await registerSession(setup, { projectName: 'Shop', agentName: 'claude-code on <build-01>', gitRemote: 'acme/shop' }, '127.0.0.1')
  const pollId = registration.poll_id as string

  const browser = await launchChromium(t)
  const tab = await browser.newPage()
  const problems: string[] = []
  tab.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text())
  })
  tab.on('pageerror', (error) => problems.push(error.message))

  await tab.goto(registration.auth_url as string)
  await tab.getByRole('link', { name: 'Create an account' }).click()
  await tab.getByLabel('Email').fill('person@example.test')
  await tab.getByLabel('Password').fill('correct horse battery staple')
  await tab.getByRole('button', { name: 'Create account' }).click()

  await tab.waitForURL(`${baseUrl}/setup/${pollId}`, { timeout: 5000 })
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
