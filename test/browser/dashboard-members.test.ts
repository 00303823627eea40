/**
 * Members as two people do it in Chromium, each in their own browser context: the owner creates a
 * project on the dashboard and invites; the colleague signs up from the link and accepts, resolves
 * an issue and assigns it to themself; the owner removes them, and the colleague's next page load
 * is refused.
 */
import type { Locator, Page } from 'playwright-core'
import t from 'tap'
import { cookieName } from '../../services/web/http/cookies.js'
import { launchChromium } from '../helpers/browser/browser.js'
import { DashboardClient } from '../helpers/dashboard.js'
import { insertIssue } from '../helpers/members.js'
import { startTestStack } from '../helpers/stack.js'

/** Presses a submit button (or a link) and waits for the page it lands on. */
async function submit(tab: Page, button: Locator): Promise<number | undefined> {
  const [response] = await Promise.all([tab.waitForNavigation({ waitUntil: 'load' }), button.click()])
  return response?.status()
}

t.test('an owner invites a colleague who signs up, accepts, resolves and assigns an issue, and is shut out once removed', async (t) => {
  const stack = await startTestStack(t)
  const client = new DashboardClient(stack.baseUrl)
  await client.signUp('owner@example.test')
  const browser = await launchChromium(t)

  const ownerContext = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  await ownerContext.addCookies([{ name: cookieName('session', false), value: client.cookies.get(cookieName('session', false))!, url: stack.baseUrl }])
  const owner = await ownerContext.newPage()
  // The owner creates the project from the dashboard, without a coding agent.
  t.equal((await owner.goto(`${stack.baseUrl}/projects/new`))?.status(), 200)
  await owner.getByLabel('Name').fill('Shop')
  t.equal(await submit(owner, owner.getByRole('button', { name: 'Create project' })), 200)
  t.equal(await submit(owner, owner.getByRole('link', { name: 'Open the project' })), 200)
  const projectId = new URL(owner.url()).pathname.split('/')[2]!
  t.match(projectId, /^[0-9a-f-]{36}$/, 'the project page of the new project')
  const issueId = await insertIssue(stack, projectId, 'TypeError: cart is undefined')
  t.equal(await submit(owner, owner.getByRole('link', { name: 'Members' })), 200)
  await owner.locator('#role').selectOption('member')
  t.equal(await submit(owner, owner.getByRole('button', { name: 'Create invitation link' })), 200)
  const shown = ((await owner.locator('#invitation-link').textContent()) ?? '').trim()
  t.match(shown, `${stack.config.baseUrl}/invitations/`, 'the link starts with the service’s public address')
  // The test's service listens on a port of its own, not on its configured public address.
  const link = `${stack.baseUrl}${new URL(shown).pathname}`

  // The colleague, in a browser context of their own, signed out.
  const colleague = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage()
  t.equal((await colleague.goto(link))?.status(), 200)
  t.match(await colleague.locator('h1').textContent(), /Join Shop/)
  t.equal(await submit(colleague, colleague.getByRole('link', { name: 'Create an account' })), 200)
  await colleague.locator('#email').fill('colleague@example.test')
  await colleague.locator('#password').fill('correct horse battery')
  t.equal(await submit(colleague, colleague.getByRole('button', { name: 'Create account' })), 200)
  t.equal(colleague.url(), link, 'sign-up comes back to the link')
  t.equal(await submit(colleague, colleague.getByRole('button', { name: /Accept and join Shop/ })), 200)
  t.equal(colleague.url(), `${stack.baseUrl}/projects/${projectId}`)
  t.equal(await colleague.getByRole('link', { name: 'Settings' }).count(), 0, 'a member has no Settings tab')

  // The colleague resolves the issue and assigns it to themself.
  const issuePage = `${stack.baseUrl}/projects/${projectId}/issues/${issueId}`
  t.equal((await colleague.goto(issuePage))?.status(), 200)
  t.equal(await submit(colleague, colleague.getByRole('button', { name: 'Resolve now', exact: true })), 200)
  t.match(await colleague.locator('.triage-state').textContent(), /Resolved/)
  await colleague.locator('#assignee').selectOption({ label: 'colleague@example.test' })
  t.equal(await submit(colleague, colleague.getByRole('button', { name: 'Assign', exact: true })), 200)
  t.match(await colleague.locator('.assignee-now').textContent(), /colleague@example\.test/)
  t.match(await colleague.locator('tr.history-line').first().textContent(), /Assigned[\s\S]*colleague@example\.test/)
  t.equal((await colleague.goto(`${stack.baseUrl}/projects/${projectId}/issues?assignee=me&triage=all`))?.status(), 200)
  t.match(await colleague.locator('table.issues').textContent(), /TypeError: cart is undefined/, 'Assigned to me lists it')

  // The owner removes the colleague; the colleague's next page load is refused.
  t.equal((await owner.goto(`${stack.baseUrl}/projects/${projectId}/members`))?.status(), 200)
  t.equal(await submit(owner, owner.locator('tr', { hasText: 'colleague@example.test' }).getByRole('button', { name: 'Remove' })), 200)
  t.match(await owner.locator('.notice').textContent(), /removed/)
  t.equal(await owner.locator('tr', { hasText: 'colleague@example.test' }).count(), 0)
  t.equal((await colleague.reload())?.status(), 404, 'the colleague’s next page load is refused')
  t.match(await colleague.locator('h1').textContent(), /Not found/)
  t.equal((await colleague.goto(`${stack.baseUrl}/`))?.status(), 200, 'they are still signed in')
  t.notMatch((await colleague.locator('main').textContent()) ?? '', /Shop/, 'and the project is gone from their list')
})
