import { randomUUID } from 'node:crypto'
import t from 'tap'
import { createObjectStore } from '../../../shared/object-store.js'
import { approveNewProject, DashboardClient } from '../../helpers/dashboard.js'
import { addAlert, click, pageLoad, seedRecording, svcError } from '../../helpers/browser/recording-fixture.js'
import { startTestStack } from '../../helpers/stack.js'

const T0 = Date.parse('2026-11-21T10:00:00.000Z')
const MINUTE = 60_000

/** The user labels of the list's rows, in order. */
function listed(page: string): string[] {
  const table = /<table class="recordings">[\s\S]*?<\/table>/.exec(page)?.[0] ?? ''
  return [...table.matchAll(/<tr><td><a href="[^"]+">(?:<span class="user-label">([^<]*)<\/span>|<span class="muted">anonymous<\/span>)<\/a>/g)].map((m) => m[1] ?? '(anonymous)')
}

t.test("a project's recordings list filters by user, page and errors, pages through, and escapes what was recorded", async (t) => {
  const stack = await startTestStack(t)
  const objects = await createObjectStore(stack.config.objectStore)
  const client = new DashboardClient(stack.baseUrl)
  await client.signUp('dev@example.test')
  const projectId = await approveNewProject(stack, client, 'Shop')
  const load = (at: number, path: string) => pageLoad(at, `https://shop.example.com${path}`, { heading: 'Shop', paragraph: 'Hello', button: 'Buy' })

  // Oldest first: ann browses, bob checks out and fails, an anonymous visitor searches.
  await seedRecording(stack.db, objects, { projectId, user: { id: 'ann-1', email: 'ann@example.test' }, userLabel: 'ann@example.test', chunks: new Map([[0, load(T0, '/products/shoes').events]]), closed: true })
  const bobLoad = load(T0 + MINUTE, '/checkout/pay?step=2')
  await seedRecording(stack.db, objects, { projectId, user: { id: 'bob-2' }, userLabel: 'Bob Builder', chunks: new Map([[0, [...bobLoad.events, click(T0 + MINUTE + 3000, bobLoad.buttonId), svcError(T0 + MINUTE + 3100, randomUUID(), 'Card declined')]]]) })
  await seedRecording(stack.db, objects, { projectId, userLabel: null, chunks: new Map([[0, load(T0 + 2 * MINUTE, '/search?q=100%25+off').events]]), pages: ['/search?q=100%_off'] })

  // Hostile text everywhere the recorded page or the SDK's user can put it.
  const hostileLabel = '<script>alert("label")</script>'
  const hostilePage = '/search?q=<img src=x onerror=alert(1)>'
  const hostile = pageLoad(T0 + 3 * MINUTE, `https://shop.example.com${hostilePage}`, { heading: 'x', paragraph: 'y', button: '<b onclick="alert(2)">Buy</b>' })
  const hostileId = await seedRecording(stack.db, objects, {
    projectId,
    user: { id: 'mallory' },
    userLabel: hostileLabel,
    pages: [hostilePage],
    chunks: new Map([[0, [...hostile.events, click(T0 + 3 * MINUTE + 1000, hostile.buttonId), addAlert(T0 + 3 * MINUTE + 1100, hostile.bodyId, 500, '<iframe src=javascript:alert(3)>'), svcError(T0 + 3 * MINUTE + 1200, 'not-a-uuid', '<svg onload=alert(4)> & "quotes"')]]]),
  })
  const base = `/projects/${projectId}/recordings`

  t.test('newest first, with a link in the project navigation', async (t) => {
    const page = await client.get(base)
    t.equal(page.status, 200)
    t.match(page.text, `<a href="${base}" aria-current="page">Recordings</a>`, 'the Recordings tab')
    t.notMatch(page.headers.get('content-security-policy'), 'script-src', 'every page but the replay keeps the policy without script')
    t.same(listed(page.text), [hostileLabel.replace(/[<>"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!), '(anonymous)', 'Bob Builder', 'ann@example.test'])
    t.match(page.text, /Bob Builder[\s\S]*?<code class="wrap">\/checkout\/pay\?step=2<\/code>[\s\S]*?<span class="bad">1<\/span>[\s\S]*?<td>open<\/td>/, 'its first page, errors and state')
    t.match(page.text, /ann@example\.test[\s\S]*?<td>closed<\/td>/)
    const overview = await client.get(`/projects/${projectId}`)
    t.match(overview.text, `<a href="${base}">Recordings</a>`, 'the tab is on every project page')
  })

  t.test('by user: part of the label in any case, or the exact id the SDK sent', async (t) => {
    t.same(listed((await client.get(`${base}?user=builder`)).text), ['Bob Builder'])
    t.same(listed((await client.get(`${base}?user=ann-1`)).text), ['ann@example.test'], 'the id, matched by its user key')
    t.same(listed((await client.get(`${base}?user=ann-`)).text), [], 'an id only matches whole')
    const none = await client.get(`${base}?user=nobody`)
    t.match(none.text, 'No recording matches these filters.')
    t.match(none.text, 'value="nobody"', 'the filter stays in its field')
  })

  t.test('by page: part of a visited path or query; LIKE wildcards are literal', async (t) => {
    t.same(listed((await client.get(`${base}?page=CHECKOUT`)).text), ['Bob Builder'])
    t.same(listed((await client.get(`${base}?page=${encodeURIComponent('100%_')}`)).text), ['(anonymous)'])
    t.same(listed((await client.get(`${base}?page=${encodeURIComponent('%')}`)).text), ['(anonymous)'], '% finds only a page with a %')
  })

  t.test('with errors only, combined with the others', async (t) => {
    t.same(listed((await client.get(`${base}?errors=1`)).text), [hostileLabel.replace(/[<>"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!), 'Bob Builder'])
    t.same(listed((await client.get(`${base}?errors=1&user=bob`)).text), ['Bob Builder'])
    t.same(listed((await client.get(`${base}?errors=1&page=products`)).text), [])
  })

  t.test('hostile recorded text is shown as text on the list and the session page', async (t) => {
    const list = await client.get(base)
    t.notMatch(list.text, '<script>alert', 'the label')
    t.match(list.text, '&lt;script&gt;alert(&quot;label&quot;)&lt;/script&gt;')
    t.notMatch(list.text, '<img src=x', 'the page')
    t.match(list.text, '/search?q=&lt;img src=x onerror=alert(1)&gt;')

    const page = await client.get(`${base}/${hostileId}`)
    t.equal(page.status, 200)
    for (const raw of ['<script>alert', '<img src=x', '<b onclick', '<svg onload', '<iframe src=javascript']) t.notMatch(page.text, raw, `no raw ${raw}`)
    t.match(page.text, '<h1>Session of <span class="user-label">&lt;script&gt;alert(&quot;label&quot;)&lt;/script&gt;</span></h1>')
    t.match(page.text, '<code class="wrap">/search?q=&lt;img src=x onerror=alert(1)&gt;</code>', 'the page visited and navigated to')
    t.match(page.text, 'on <code class="wrap">button#pay.primary.big “&lt;b onclick=&quot;alert(2)&quot;&gt;Buy&lt;/b&gt;”</code>', 'the clicked text')
    t.match(page.text, '<code class="wrap">&lt;svg onload=alert(4)&gt; &amp; &quot;quotes&quot;</code>', 'the error message')
    t.notMatch(page.text, /<li class="step error">[\s\S]*?open its issue/, 'an event id that names no stored event links nowhere')
  })

  t.test('pages of 50, newest first, keeping the filters', async (t) => {
    // 60 more recordings of user "bulk", a minute apart, later than the others.
    await stack.db.query(
      `INSERT INTO recordings (project_id, id, session_id, user_label, started_at, last_at, received_at, pages, clicks, errors, chunks, max_seq)
       SELECT $1, gen_random_uuid(), 's' || n, 'bulk ' || lpad(n::text, 2, '0'), $2::timestamptz + n * interval '1 minute', $2::timestamptz + n * interval '1 minute' + interval '30 seconds',
              $2::timestamptz + n * interval '1 minute', ARRAY['/bulk/' || n], 0, 0, 1, 0
         FROM generate_series(1, 60) AS n`,
      [projectId, new Date(T0 + 10 * MINUTE)],
    )
    const first = await client.get(`${base}?user=bulk`)
    const firstRows = listed(first.text)
    t.equal(firstRows.length, 50)
    t.equal(firstRows[0], 'bulk 60', 'the newest first')
    t.equal(firstRows[49], 'bulk 11')
    t.match(first.text, `href="${base}?user=bulk&amp;p=2" rel="next">Older</a>`, 'a link to the next page with the filter')
    t.notMatch(first.text, 'rel="prev"')
    const second = await client.get(`${base}?user=bulk&p=2`)
    t.same(listed(second.text), Array.from({ length: 10 }, (_, i) => `bulk ${String(10 - i).padStart(2, '0')}`))
    t.match(second.text, `href="${base}?user=bulk" rel="prev">Newer</a>`)
    t.notMatch(second.text, 'rel="next"')
    t.equal(listed((await client.get(`${base}?p=2`)).text).length, 14, 'unfiltered, the second page holds the rest')
    t.equal((await client.get(`${base}?p=abc`)).status, 200, 'a page that is not a number is the first')
  })
})
