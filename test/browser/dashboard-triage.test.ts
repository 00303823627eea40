/**
 * The team's triage as a person does it in Chromium: every action on the issue page with the page
 * showing the new state and a history line, the list's bulk actions on ticked rows, and its
 * filters narrowing the list.
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Locator, Page } from 'playwright-core'
import t, { type Test } from 'tap'
import { cookieName } from '../../services/web/http/cookies.js'
import { launchChromium } from '../helpers/browser/browser.js'
import { approveNewProject, DashboardClient } from '../helpers/dashboard.js'
import { startTestStack, type TestStack } from '../helpers/stack.js'

/** An issue as the grouper leaves it, with its counts and when it was last seen. */
async function insertIssue(stack: TestStack, projectId: string, title: string, events = 3, lastSeenMinutesAgo = 0): Promise<string> {
  const { rows } = await stack.db.query<{ id: string }>(
    `INSERT INTO issues (project_id, kind, fingerprint, grouping_version, status, title, culprit, first_seen, last_seen, event_count, user_count, session_count)
     VALUES ($1, 'error', gen_random_uuid()::text, 4, 'new', $2, 'totalOf (src/cart.ts:6)', now() - interval '1 day', now() - $3 * interval '1 minute', $4, 1, 1) RETURNING id`,
    [projectId, title, lastSeenMinutesAgo, events],
  )
  return rows[0]!.id
}

const SHOTS = fileURLToPath(new URL('../../tmp/screenshots/', import.meta.url))

/** Keeps what the page looks like now, for a person to look at (tmp/ is gitignored). */
async function shot(tab: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true })
  await tab.screenshot({ path: join(SHOTS, name), fullPage: true })
}

/** Presses a submit button and waits for the page the redirect lands on. */
async function submit(tab: Page, button: Locator): Promise<number | undefined> {
  const [response] = await Promise.all([tab.waitForNavigation({ waitUntil: 'load' }), button.click()])
  return response?.status()
}

/** The newest history line: its action and its text. */
async function newestLine(tab: Page): Promise<{ action: string | null; text: string }> {
  const line = tab.locator('tr.history-line').first()
  return { action: await line.getAttribute('data-action'), text: (await line.textContent()) ?? '' }
}

async function signedInTab(t: Test, stack: TestStack, client: DashboardClient): Promise<Page> {
  const browser = await launchChromium(t)
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  await context.addCookies([{ name: cookieName('session', false), value: client.cookies.get(cookieName('session', false))!, url: stack.baseUrl }])
  return context.newPage()
}

t.test('on the issue page a person resolves, ignores, reopens, merges and undoes the merge, each shown and in the history', async (t) => {
  const stack = await startTestStack(t)
  const client = new DashboardClient(stack.baseUrl)
  await client.signUp('owner@example.test')
  const projectId = await approveNewProject(stack, client, 'Shop')
  await stack.db.query(`INSERT INTO releases (project_id, name, first_seen) VALUES ($1, '1.4.0', now())`, [projectId])
  const a = await insertIssue(stack, projectId, 'TypeError: cart is undefined')
  const b = await insertIssue(stack, projectId, 'TypeError: <img src=x onerror=alert(1)>')
  const tab = await signedInTab(t, stack, client)
  const page = `${stack.baseUrl}/projects/${projectId}/issues/${a}`
  t.equal((await tab.goto(page))?.status(), 200)
  t.match(await tab.locator('.triage-state').textContent(), /Open\./)
  t.match(await tab.locator('.issue-history').textContent(), /No triage yet/)

  await tab.locator('#triage-reason').fill('guard shipped in <b>1.4.1</b>')
  t.equal(await submit(tab, tab.getByRole('button', { name: 'Resolve now', exact: true })), 200)
  t.match(await tab.locator('.triage-state').textContent(), /Resolved .*an event received after that reopens it/)
  let line = await newestLine(tab)
  t.equal(line.action, 'resolve')
  t.match(line.text, /owner@example\.test/)
  t.match(line.text, /open → resolved/)
  t.match(line.text, /guard shipped in <b>1\.4\.1<\/b>/, 'the reason shows as the text typed')

  await submit(tab, tab.getByRole('button', { name: 'Reopen' }))
  t.match(await tab.locator('.triage-state').textContent(), /Open\./)
  t.match((await newestLine(tab)).text, /Reopened[\s\S]*resolved → open/)

  await submit(tab, tab.getByRole('button', { name: 'Resolve in the next release' }))
  t.match(await tab.locator('.triage-state').textContent(), /Resolved in the next release \(after 1\.4\.0\)/)
  t.match((await newestLine(tab)).text, /Resolved in the next release \(after 1\.4\.0\)/)

  const ignores: Array<[string, RegExp, RegExp]> = [
    ['forever', /Ignored for good\./, /Ignored for good/],
    ['1h', /Ignored until \d{4}-\d\d-\d\d \d\d:\d\d UTC\./, /Ignored until .* UTC/],
    ['24h', /Ignored until \d{4}-\d\d-\d\d \d\d:\d\d UTC\./, /Ignored until .* UTC/],
    ['7d', /Ignored until \d{4}-\d\d-\d\d \d\d:\d\d UTC\./, /Ignored until .* UTC/],
    ['events_10', /Ignored until it has 13 events \(3 now\)\./, /until 10 more events/],
    ['events_100', /Ignored until it has 103 events \(3 now\)\./, /until 100 more events/],
    ['users_10', /Ignored until 11 users ran into it \(1 now\)\./, /until 10 more users/],
    ['users_100', /Ignored until 101 users ran into it \(1 now\)\./, /until 100 more users/],
  ]
  for (const [choice, state, history] of ignores) {
    await tab.locator('#triage-ignore').selectOption(choice)
    t.equal(await submit(tab, tab.locator('form.triage-form button[value=ignore]')), 200)
    t.match(await tab.locator('.triage-state').textContent(), state, `ignored ${choice}`)
    line = await newestLine(tab)
    t.equal(line.action, 'ignore')
    t.match(line.text, history, `the history says ${choice}`)
  }
  const { rows: until } = await stack.db.query<{ hours: number }>('SELECT extract(epoch FROM ignored_until - now()) / 3600 AS hours FROM issues WHERE id = $1', [a])
  t.equal(until[0]!.hours, null, 'the last ignore (by users) replaced the time of the one before')
  await submit(tab, tab.getByRole('button', { name: 'Reopen' }))
  t.match((await newestLine(tab)).text, /ignored → open/)

  await tab.locator('#merge-into').fill(`${stack.baseUrl}/projects/${projectId}/issues/${b}`)
  t.equal(await submit(tab, tab.getByRole('button', { name: 'Merge into that issue' })), 200)
  t.match(await tab.locator('.triage-merged-into').textContent(), /Merged into TypeError: <img src=x onerror=alert\(1\)>/, 'the target title is shown as text')
  t.equal(await tab.locator('.triage-merged-into a').getAttribute('href'), `/projects/${projectId}/issues/${b}`)
  t.equal((await newestLine(tab)).action, 'merged')
  await shot(tab, 'triage-merged-issue.png')
  t.equal(await tab.locator('form.triage-form').count(), 0, 'a merged issue offers only the undo')
  await submit(tab, tab.locator('.triage-merged-into a'))
  t.match(await tab.locator('.triage-merged-from').textContent(), /Merged here: TypeError: cart is undefined/)
  t.match((await newestLine(tab)).text, /Merged issues here TypeError: cart is undefined/)
  t.equal(await tab.locator('img').count(), 0, 'no markup of an issue title became an element')

  await tab.goto(page)
  await submit(tab, tab.getByRole('button', { name: 'Undo merge' }))
  await shot(tab, 'triage-issue-page.png')
  t.equal(await tab.locator('.triage-merged-into').count(), 0)
  line = await newestLine(tab)
  t.equal(line.action, 'unmerge')
  t.match(line.text, new RegExp(`Merge undone from ${b}`))
  t.equal(await tab.locator('tr.history-line').count(), 14, 'one line a change: three resolves and reopens, eight ignores, a reopen, the merge and its undo')
})

t.test('on the list a person resolves, ignores, reopens and merges ticked issues, and the filters narrow the list', async (t) => {
  const stack = await startTestStack(t)
  const client = new DashboardClient(stack.baseUrl)
  await client.signUp('owner@example.test')
  const projectId = await approveNewProject(stack, client, 'Shop')
  const ids = {
    cart: await insertIssue(stack, projectId, 'TypeError: cart is undefined', 40, 1),
    price: await insertIssue(stack, projectId, 'RangeError: price out of range', 5, 2),
    login: await insertIssue(stack, projectId, 'Error: login failed', 7, 3),
    search: await insertIssue(stack, projectId, 'TypeError: search index missing', 2, 4),
  }
  await stack.db.query(`INSERT INTO issue_releases (project_id, issue_id, release, first_seen) VALUES ($1, $2, '2.0.0', now())`, [projectId, ids.login])
  await stack.db.query(`UPDATE issues SET regressed_at = now(), regressed_release = '2.0.0' WHERE id = $1`, [ids.login])
  const tab = await signedInTab(t, stack, client)
  const list = `${stack.baseUrl}/projects/${projectId}/issues`
  const titles = async (): Promise<string[]> => (await tab.locator('table.issues tbody tr td:nth-child(2) > span > a').allTextContents()).map((s) => s.trim())
  const tick = async (...which: string[]): Promise<void> => {
    for (const id of which) await tab.locator(`input[name=issue][value="${id}"]`).check()
  }

  t.equal((await tab.goto(list))?.status(), 200)
  t.same(await titles(), ['TypeError: cart is undefined', 'RangeError: price out of range', 'Error: login failed', 'TypeError: search index missing'])
  t.match(await tab.locator(`tr[data-issue="${ids.login}"]`).textContent(), /Open\s+regressed/, 'the row carries the regression mark')
  await shot(tab, 'triage-issue-list.png')

  await tick(ids.cart, ids.price)
  await tab.locator('#bulk-reason').fill('released 2.0.1')
  await submit(tab, tab.getByRole('button', { name: 'Resolve', exact: true }))
  t.match(await tab.locator('.bulk-notice').textContent(), /2 issues changed/)
  t.same(await titles(), ['Error: login failed', 'TypeError: search index missing'], 'the resolved leave the open list')

  await tab.locator('select[name=triage]').selectOption('resolved')
  await submit(tab, tab.getByRole('button', { name: 'Filter' }))
  t.same(await titles(), ['TypeError: cart is undefined', 'RangeError: price out of range'])
  t.equal(await tab.locator('table.issues .badge.triage.resolved').count(), 2)
  await tick(ids.price)
  await submit(tab, tab.getByRole('button', { name: 'Reopen' }))
  t.match(tab.url(), /triage=resolved/, 'the list comes back with its filters')
  t.same(await titles(), ['TypeError: cart is undefined'])

  await tab.goto(list)
  await tick(ids.search)
  await tab.locator('#bulk-ignore').selectOption('events_100')
  await submit(tab, tab.locator('.bulk-bar button[value=ignore]'))
  t.same(await titles(), ['RangeError: price out of range', 'Error: login failed'])
  const { rows } = await stack.db.query<{ triage: string; ignored_until_events: string }>('SELECT triage, ignored_until_events FROM issues WHERE id = $1', [ids.search])
  t.same(rows[0], { triage: 'ignored', ignored_until_events: '102' })

  await tick(ids.login, ids.price)
  await submit(tab, tab.getByRole('button', { name: 'Merge selected into the first' }))
  t.same(await titles(), ['RangeError: price out of range'], 'the second row ticked is merged into the first row')
  t.match(await tab.locator('table.issues tbody tr').first().textContent(), /\+1 merged/)
  const { rows: merged } = await stack.db.query<{ merged_into: string }>('SELECT merged_into FROM issues WHERE id = $1', [ids.login])
  t.equal(merged[0]!.merged_into, ids.price)
  const { rows: history } = await stack.db.query<{ action: string; actor_label: string; reason: string }>(
    `SELECT action, actor_label, reason FROM issue_history WHERE issue_id = $1 ORDER BY id`,
    [ids.price],
  )
  t.same(
    history.map((h) => [h.action, h.actor_label, h.reason]),
    [['resolve', 'owner@example.test', 'released 2.0.1'], ['reopen', 'owner@example.test', ''], ['merge', 'owner@example.test', '']],
  )

  // Filters: text, triage all, release, sort and the next page.
  await tab.goto(`${list}?triage=all`)
  await tab.locator('input[name=q]').fill('TypeError')
  await submit(tab, tab.getByRole('button', { name: 'Filter' }))
  t.same(await titles(), ['TypeError: cart is undefined', 'TypeError: search index missing'])
  await tab.locator('input[name=q]').fill('')
  await tab.locator('input[name=release]').fill('2.0.0')
  await submit(tab, tab.getByRole('button', { name: 'Filter' }))
  t.same(await titles(), ['RangeError: price out of range'], 'the merged issue’s releases count for the one it was merged into')
  await tab.locator('input[name=release]').fill('')
  await tab.locator('select[name=sort]').selectOption('events')
  await submit(tab, tab.getByRole('button', { name: 'Filter' }))
  // The merge counted the target again over its stored events (none here).
  t.same(await titles(), ['TypeError: cart is undefined', 'TypeError: search index missing', 'RangeError: price out of range'], 'by events, the merged issue left out')
  await tab.locator('input[name=last_seen_from]').fill('2000-01-01')
  await tab.locator('input[name=last_seen_to]').fill('2000-01-02')
  await submit(tab, tab.getByRole('button', { name: 'Filter' }))
  t.match(await tab.locator('p.empty').textContent(), /No issues match these filters/)

  await tab.goto(`${list}?triage=all&limit=2`)
  t.same(await titles(), ['TypeError: cart is undefined', 'RangeError: price out of range'])
  await submit(tab, tab.getByRole('link', { name: 'Next page' }))
  t.same(await titles(), ['TypeError: search index missing'])
  t.equal(await tab.getByRole('link', { name: 'Next page' }).count(), 0)

  t.equal((await tab.goto(`${list}?sort=sideways`))?.status(), 400)
  t.match(await tab.locator('.filter-error').textContent(), /sort .*"sideways"/)
})
