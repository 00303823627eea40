import t from 'tap'
import { parseKey } from '../../shared/keys.js'
import { launchChromium } from '../helpers/browser/browser.js'
import { patience } from '../helpers/patience.js'
import { postEvent, sampleEvent, startTestStack, waitFor } from '../helpers/stack.js'

t.test('in Chromium, a person signs up, creates a project, reads its keys once, and the event sent with the shown ingest key is on its issue list', async (t) => {
  const stack = await startTestStack(t, { worker: true })
  const browser = await launchChromium(t)
  const tab = await browser.newPage()
  const problems: string[] = []
  tab.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text())
  })
  tab.on('pageerror', (error) => problems.push(error.message))

  await tab.goto(`${stack.baseUrl}/signup`)
  await tab.getByLabel('Email').fill('maker@example.test')
  await tab.getByLabel('Password').fill('correct horse battery staple')
  await tab.getByRole('button', { name: 'Create account' }).click()
  await tab.getByRole('heading', { name: 'Projects' }).waitFor({ timeout: patience(5000) })
  t.match(await tab.locator('main').textContent(), 'You have no projects yet')

  await tab.getByRole('link', { name: 'New project' }).click()
  await tab.getByLabel('Name').fill('Shop')
  await tab.getByLabel('Repository (optional)').fill('acme/shop')
  await tab.getByRole('button', { name: 'Create project' }).click()
  await tab.getByRole('heading', { name: 'Project Shop created' }).waitFor({ timeout: patience(5000) })

  const ingestKey = ((await tab.locator('#ingest-key').textContent()) ?? '').trim()
  const sourcemapKey = ((await tab.locator('#sourcemap-key').textContent()) ?? '').trim()
  const apiKey = ((await tab.locator('#api-key').textContent()) ?? '').trim()
  t.same([parseKey(ingestKey)?.kind, parseKey(sourcemapKey)?.kind, parseKey(apiKey)?.kind], ['ingest', 'sourcemap', 'api'], 'the page shows the three keys')
  const snippets = (await tab.locator('pre').allTextContents()).join('\n')
  t.match(snippets, `apiKey: '${ingestKey}'`, 'the SDK snippet carries the ingest key')
  t.match(snippets, `SVC_SOURCEMAP_KEY=${sourcemapKey}`)
  t.match(snippets, `export SVC_API_KEY=${apiKey}`)

  const sent = await postEvent(stack.baseUrl, sampleEvent(), { 'Content-Type': 'application/json', 'X-API-Key': ingestKey })
  t.equal(sent.status, 202, 'the shown ingest key sends an event')

  await tab.getByRole('link', { name: 'Open the project' }).click()
  await tab.getByRole('heading', { name: 'Shop' }).waitFor({ timeout: patience(5000) })
  t.notMatch(await tab.content(), parseKey(ingestKey)!.secret, 'the project page does not show the key again')
  const issuesUrl = `${tab.url()}/issues`
  // The grouper stores the event within about a second: the list is opened again until it shows it.
  const listed = await waitFor(async () => {
    await tab.goto(issuesUrl)
    const text = (await tab.locator('main').textContent()) ?? ''
    return text.includes("Cannot read properties of undefined (reading 'id')") ? text : undefined
  }, 2_000, 200)
  t.match(listed, 'TypeError', "the event's issue is on the project's issue list")
  t.same(problems, [], 'no script errors and no CSP violations in the console')
})
