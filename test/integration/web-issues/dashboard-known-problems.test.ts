import { randomUUID } from 'node:crypto'
import t from 'tap'
import type { Queryable } from '../../../shared/db/index.js'
import { approveNewProject, DashboardClient } from '../../helpers/dashboard.js'
import { dueForUnpublishing, thresholds } from '../../../services/matcher/read/gate.js'
import { decide, seedEnvironment, seedFix } from '../../helpers/investigation/friction-seed.js'
import { startTestStack } from '../../helpers/stack.js'
import { seededByHand } from '../../helpers/suite-invariants.js'

const MINUTE = 60_000
const NOW = Date.now()
const ago = (minutes: number): Date => new Date(NOW - minutes * MINUTE)

/** A closed recording of the project, as the recorder leaves its row (the pages here read no chunk). */
async function recording(db: Queryable, projectId: string, environmentId: string, label: string | null, startedMinutesAgo: number): Promise<string> {
  const id = randomUUID()
  await db.query(
    `INSERT INTO recordings (project_id, id, environment_id, session_id, user_label, started_at, last_at, received_at, closed_at, pages)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $7, '{/checkout}')`,
    [projectId, id, environmentId, `s-${id.slice(0, 8)}`, label, ago(startedMinutesAgo), ago(startedMinutesAgo - 5)],
  )
  return id
}

interface TicketSeed {
  state: string
  kind: string
  page: string
  target: string
  narrative: string
  users: number
  matched: number
  checks?: [number, number, number]
  publishedAt?: Date
  unpublishedAt?: Date
  previousState?: string
  updatedAt: Date
}

/** A known problem on its friction-kind issue, with the counts the matcher keeps on it. */
async function ticket(db: Queryable, projectId: string, environmentId: string, seed: TicketSeed): Promise<{ ticketId: string; issueId: string }> {
  const ticketId = randomUUID()
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO issues (project_id, kind, fingerprint, grouping_version, status, title, culprit, first_seen, last_seen)
     VALUES ($1, 'friction', $2, 4, $3, $4, $5, now(), now()) RETURNING id`,
    [projectId, `ticket:${ticketId}`, seed.state === 'candidate' ? 'new' : seed.state, seed.narrative.slice(0, 200), `${seed.target} on ${seed.page}`],
  )
  const [confirmed, refuted, inconclusive] = seed.checks ?? [0, 0, 0]
  await db.query(
    `INSERT INTO tickets (id, project_id, environment_id, issue_id, state, previous_state, kind, page, target, narrative, pages, matched, users,
                          checks_confirmed, checks_refuted, checks_inconclusive, published_at, unpublished_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, ARRAY[$8, '/checkout/shipping'], $11, $12, $13, $14, $15, $16, $17, $18, $18)`,
    [ticketId, projectId, environmentId, rows[0]!.id, seed.state, seed.previousState ?? null, seed.kind, seed.page, seed.target, seed.narrative, seed.matched, seed.users, confirmed, refuted, inconclusive, seed.publishedAt ?? null, seed.unpublishedAt ?? null, seed.updatedAt],
  )
  return { ticketId, issueId: rows[0]!.id }
}

/** A finding in the recording at its moment, decided into the ticket (ticket_matches, issue_recordings, matching_decisions). */
async function match(db: Queryable, projectId: string, environmentId: string, ticketId: string, recordingId: string, at: Date, page: string, decision: 'created' | 'joined'): Promise<void> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO friction_findings (project_id, environment_id, recording_id, kind, page, target, at, narrative) VALUES ($1, $2, $3, 'rage_click', $4, 'button#pay', $5, 'Rage click') RETURNING id`,
    [projectId, environmentId, recordingId, page, at],
  )
  await decide(db, projectId, environmentId, rows[0]!.id, decision, ticketId)
}

async function check(db: Queryable, projectId: string, ticketId: string, recordingId: string, verdict: string, at: Date): Promise<void> {
  await db.query(`INSERT INTO ticket_checks (ticket_id, project_id, recording_id, verdict, checked_at, utc_day) VALUES ($1, $2, $3, $4, $5, ($5 AT TIME ZONE 'UTC')::date)`, [ticketId, projectId, recordingId, verdict, at])
}

/** The target of each row of the list, in order (as the page shows it: escaped). */
function listed(page: string): string[] {
  const table = /<table class="known-problems">[\s\S]*?<\/table>/.exec(page)?.[0] ?? ''
  return [...table.matchAll(/<tr data-ticket="[^"]+"><td><a href="[^"]+"><code class="wrap">([^<]*)<\/code><\/a>/g)].map((m) => m[1]!)
}

t.test("a project's known problems: the list, one problem's page, its evidence, its issue, and who may see them", async (t) => {
  const stack = await startTestStack(t)
  await seededByHand(stack.db)
  const db = stack.db
  const client = new DashboardClient(stack.baseUrl)
  await client.signUp('dev@example.test')
  const projectId = await approveNewProject(stack, client, 'Shop')
  const otherProjectId = await approveNewProject(stack, client, 'Blog')
  const env = await seedEnvironment(db, projectId, 'production')
  const otherEnv = await seedEnvironment(db, otherProjectId, 'production')

  // Hostile recorded text: the page's query, the clicked element's text, the narrative, a user label.
  const hostileTarget = 'button#pay "<script>alert(1)</script>"'
  const hostilePage = '/checkout?x=<img src=x onerror=alert(2)>'
  const hostileNarrative = 'Rage click: 5 clicks on <iframe src=javascript:alert(3)> & "more"'
  const pay = await ticket(db, projectId, env, { state: 'investigated', kind: 'rage_click', page: hostilePage, target: hostileTarget, narrative: hostileNarrative, users: 2, matched: 3, checks: [3, 2, 1], publishedAt: ago(50), updatedAt: ago(40) })
  const help = await ticket(db, projectId, env, { state: 'candidate', kind: 'dead_click', page: '/help', target: 'a "Contact"', narrative: 'Dead click on a "Contact" on /help', users: 1, matched: 1, checks: [0, 0, 1], updatedAt: ago(120) })
  const old = await ticket(db, projectId, env, { state: 'archived', previousState: 'candidate', kind: 'error_after_click', page: '/cart', target: 'button#remove', narrative: 'Error after click', users: 1, matched: 1, publishedAt: ago(300), unpublishedAt: ago(200), updatedAt: ago(10) })
  const foreign = await ticket(db, otherProjectId, otherEnv, { state: 'candidate', kind: 'rage_click', page: '/post', target: 'button#like', narrative: 'Rage click on like', users: 1, matched: 1, updatedAt: ago(5) })
  await db.query(`UPDATE tickets SET same_fix = 'asked', same_fix_ticket_id = $2 WHERE id = $1`, [pay.ticketId, help.ticketId])

  // pay: matched in three recordings (two users and one anonymous), checked against five more.
  const ann = await recording(db, projectId, env, 'ann@example.test', 200)
  const mallory = await recording(db, projectId, env, '<b onmouseover=alert(4)>mallory</b>', 190)
  const anonymous = await recording(db, projectId, env, null, 180)
  const atAnn = new Date(NOW - 198 * MINUTE + 1234)
  await match(db, projectId, env, pay.ticketId, ann, atAnn, hostilePage, 'created')
  await match(db, projectId, env, pay.ticketId, mallory, ago(188), '/checkout/shipping', 'joined')
  await match(db, projectId, env, pay.ticketId, anonymous, ago(178), hostilePage, 'joined')
  const verdicts = ['confirmed', 'refuted', 'confirmed', 'inconclusive', 'refuted', 'confirmed']
  for (const [i, verdict] of verdicts.entries()) await check(db, projectId, pay.ticketId, await recording(db, projectId, env, `checked-${i}`, 100 - i), verdict, ago(60 + i))
  // help: older, but checked a minute ago: the newest activity of all.
  const helpRecording = await recording(db, projectId, env, 'bob', 150)
  await match(db, projectId, env, help.ticketId, helpRecording, ago(148), '/help', 'created')
  await check(db, projectId, help.ticketId, await recording(db, projectId, env, 'carol', 30), 'inconclusive', ago(1))
  await seedFix(db, pay.issueId, projectId, 'pr_draft')

  const base = `/projects/${projectId}/known-problems`
  const matchAt = new Map([
    [ann, atAnn.getTime()],
    [mallory, ago(188).getTime()],
    [anonymous, ago(178).getTime()],
  ])
  const replayAt = (id: string): string => `/projects/${projectId}/recordings/${id}?at=${matchAt.get(id)}#replay`
  const escapedTarget = 'button#pay &quot;&lt;script&gt;alert(1)&lt;/script&gt;&quot;'

  t.test('the list: newest activity first, archived hidden, each with its state, kind, counts and publication', async (t) => {
    const page = await client.get(base)
    t.equal(page.status, 200)
    t.match(page.text, `<a href="${base}" aria-current="page">Known problems</a>`, 'its tab, beside Recordings')
    t.match(page.text, /Recordings<\/a><a href="[^"]+\/known-problems"/)
    t.same(listed(page.text), ['a &quot;Contact&quot;', escapedTarget], 'a check counts as activity; the archived one is left out')
    t.match(page.text, 'Show archived (1)')
    const payRow = new RegExp(`<tr data-ticket="${pay.ticketId}">[\\s\\S]*?</tr>`).exec(page.text)?.[0] ?? ''
    t.match(payRow, '<span class="status" data-state="investigated">cause found in the code</span>')
    t.match(payRow, '<td>rage click</td><td class="num">2</td><td class="num">3</td>', 'kind, users, matched recordings')
    t.match(payRow, '3 confirmed · 2 refuted · 1 inconclusive')
    t.match(payRow, /<span class="ok">published<\/span> <span class="muted small">since <time/)
    t.match(payRow, `on <code class="wrap">/checkout?x=&lt;img src=x onerror=alert(2)&gt;</code> · production`)
    const helpRow = new RegExp(`<tr data-ticket="${help.ticketId}">[\\s\\S]*?</tr>`).exec(page.text)?.[0] ?? ''
    t.match(helpRow, 'gathering evidence')
    t.match(helpRow, 'dead click')
    t.match(helpRow, 'not published')
    t.notMatch(page.text, '<script>alert', 'recorded text is escaped')
    t.notMatch(page.text, 'button#like', "another project's problem is not listed")
  })

  t.test('the filters: archived shown on asking, published only, one kind', async (t) => {
    const archived = await client.get(`${base}?archived=1`)
    t.same(listed(archived.text), ['a &quot;Contact&quot;', 'button#remove', escapedTarget], 'among the others by their activity')
    t.match(archived.text, new RegExp(`<tr data-ticket="${old.ticketId}">[\\s\\S]*?data-state="archived">archived`))
    t.match(archived.text, new RegExp(`<tr data-ticket="${old.ticketId}">[\\s\\S]*?<span class="muted">unpublished</span> <span class="muted small">since <time datetime="${ago(200).toISOString()}"`))
    t.match(archived.text, 'id="filter-archived" name="archived" value="1" checked', 'the box stays ticked')
    t.same(listed((await client.get(`${base}?published=1`)).text), [escapedTarget])
    t.same(listed((await client.get(`${base}?kind=dead_click`)).text), ['a &quot;Contact&quot;'])
    t.same(listed((await client.get(`${base}?kind=error_after_click`)).text), [], 'archived stays hidden under a kind filter')
    t.same(listed((await client.get(`${base}?kind=error_after_click&archived=1`)).text), ['button#remove'])
    t.match((await client.get(`${base}?kind=form_abandon`)).text, 'No known problem matches these filters.')
    t.equal(listed((await client.get(`${base}?kind=<script>`)).text).length, 2, 'an unknown kind filters nothing')
  })

  t.test("the known problem's page: facts, publication against the gate's thresholds, the same-fix question", async (t) => {
    const page = await client.get(`${base}/${pay.ticketId}`)
    t.equal(page.status, 200)
    for (const raw of ['<script>alert', '<img src=x', '<iframe src=javascript', '<b onmouseover']) t.notMatch(page.text, raw, `no raw ${raw}`)
    t.match(page.text, `<h1 class="issue-title">rage click on <code class="wrap">${escapedTarget}</code></h1>`)
    t.match(page.text, '<dt>State</dt><dd><span class="status" data-state="investigated">cause found in the code</span>')
    t.match(page.text, '<dt>Page</dt><dd><code class="wrap">/checkout?x=&lt;img src=x onerror=alert(2)&gt;</code><div class="muted small">also seen on <code class="wrap">/checkout/shipping</code>')
    t.match(page.text, '<p class="prose narrative">Rage click: 5 clicks on &lt;iframe src=javascript:alert(3)&gt; &amp; &quot;more&quot;</p>')
    t.match(page.text, `<a href="/projects/${projectId}/issues/${pay.issueId}">its friction issue</a>`)
    t.match(page.text, '<li data-threshold="confirmed" class="ok">met: 3 of 3 confirmed checks</li>')
    t.match(page.text, '<li data-threshold="users" class="ok">met: 2 of 2 users</li>')
    t.match(page.text, '<li data-threshold="share" class="ok">met: 60% of 40% of conclusive checks confirmed</li>')
    t.match(page.text, /<p class="publication"><span class="ok">published<\/span>/)
    t.match(page.text, `<p class="same-fix" data-same-fix="asked">Does one fix solve this and <a href="${base}/${help.ticketId}"><code class="wrap">a &quot;Contact&quot;</code></a>? asked, not answered yet</p>`)

    const helpPage = await client.get(`${base}/${help.ticketId}`)
    t.match(helpPage.text, '<li data-threshold="confirmed" class="bad">missed: 0 of 3 confirmed checks</li>')
    t.match(helpPage.text, '<li data-threshold="users" class="bad">missed: 1 of 2 users</li>')
    t.match(helpPage.text, '<li data-threshold="share" class="bad">missed: no conclusive check yet (40% confirmed needed)</li>')
    t.match(helpPage.text, '<p class="publication"><span class="muted">not published</span></p>')
    t.notMatch(helpPage.text, 'class="same-fix"', 'no question asked, none shown')
    t.match(helpPage.text, 'Not investigated yet. Not published yet: its checks do not bear it out enough. You can still send it to the investigator.')
    t.match(helpPage.text, `action="${base}/${help.ticketId}/investigate"`, 'the owner may send it anyway')
    t.notMatch(helpPage.text, 'Only error issues are investigated', "the error issues' rule is not the known problem's")

    const archived = await client.get(`${base}/${old.ticketId}`)
    t.match(archived.text, /data-state="archived">archived<\/span> <span class="muted small">\(was <span class="status" data-state="candidate">gathering evidence/)
  })

  t.test('its recordings open the replay at the moment of friction; its checks with verdict and day', async (t) => {
    const page = (await client.get(`${base}/${pay.ticketId}`)).text
    const matched = /<table class="matched">[\s\S]*?<\/table>/.exec(page)?.[0] ?? ''
    const rows = [...matched.matchAll(/<tr><td>([\s\S]*?)<\/td>[\s\S]*?<a href="([^"]+)">Replay at the friction<\/a>/g)].map((m) => [m[1], m[2]])
    t.same(
      rows.map(([, href]) => href),
      [anonymous, mallory, ann].map(replayAt),
      'newest first, each at its match',
    )
    t.match(rows[2]![1], `/projects/${projectId}/recordings/${ann}?at=${atAnn.getTime()}#replay`, "the ms of the match's at")
    t.same(rows.map(([user]) => user), ['<span class="muted">anonymous</span>', '<span class="user-label">&lt;b onmouseover=alert(4)&gt;mallory&lt;/b&gt;</span>', '<span class="user-label">ann@example.test</span>'])
    t.match(matched, '<code class="wrap">/checkout/shipping</code>', "each match's page")

    const checks = /<table class="checks">[\s\S]*?<\/table>/.exec(page)?.[0] ?? ''
    const verdictsShown = [...checks.matchAll(/data-verdict="([a-z]+)"/g)].map((m) => m[1])
    t.same(verdictsShown, verdicts, 'newest first (the first was checked last)')
    t.match(checks, new RegExp(`<a href="/projects/${projectId}/recordings/[0-9a-f-]{36}"><span class="user-label">checked-0</span></a>`))
    t.match(checks, `<td>${ago(60).toISOString().slice(0, 10)}</td>`, 'its UTC day')
  })

  t.test("its issue's investigation and fix, with the issue page's panels", async (t) => {
    const page = (await client.get(`${base}/${pay.ticketId}`)).text
    t.match(page, /<section class="investigation"[\s\S]*?<span class="status">investigated<\/span>/)
    t.match(page, /<section class="fix"[\s\S]*?href="https:\/\/github\.com\/acme\/shop\/pull\/7"/, 'the pull request of its fix')
    t.match(page, `<form method="post" action="${base}/${pay.ticketId}/investigate" class="investigate">`, 'Investigate again, its own route')
    t.notMatch(page, /action="[^"]*\/fix"/, "no Fix this: that is an error issue's")
  })

  t.test("a friction issue's page links to its known problem; an error issue's does not", async (t) => {
    const issue = await client.get(`/projects/${projectId}/issues/${pay.issueId}`)
    t.equal(issue.status, 200)
    t.match(issue.text, `<a href="${base}/${pay.ticketId}">open its known problem</a>`)
    const { rows } = await db.query<{ id: string }>(`INSERT INTO issues (project_id, kind, fingerprint, grouping_version, status, title, first_seen, last_seen) VALUES ($1, 'error', 'e1', 4, 'new', 'TypeError', now(), now()) RETURNING id`, [projectId])
    t.notMatch((await client.get(`/projects/${projectId}/issues/${rows[0]!.id}`)).text, 'open its known problem')
  })

  t.test('another project, another person and a signed-out browser get nothing', async (t) => {
    t.equal((await client.get(`${base}/${foreign.ticketId}`)).status, 404, "another of one's projects' problem is not in this one")
    t.equal((await client.get(`/projects/${otherProjectId}/known-problems/${foreign.ticketId}`)).status, 200, 'it is in its own')
    t.equal((await client.get(`${base}/not-a-uuid`)).status, 404)
    t.equal((await client.get(`${base}/${randomUUID()}`)).status, 404)
    const stranger = new DashboardClient(stack.baseUrl)
    await stranger.signUp('eve@example.test')
    t.equal((await stranger.get(base)).status, 404)
    t.equal((await stranger.get(`${base}/${pay.ticketId}`)).status, 404)
    const signedOut = await new DashboardClient(stack.baseUrl).get(`${base}/${pay.ticketId}`)
    t.equal(signedOut.status, 302)
    t.match(signedOut.location, `/signin?next=${encodeURIComponent(`${base}/${pay.ticketId}`)}`)
  })

  t.test('pages of 50, newest activity first, keeping the filters', async (t) => {
    await db.query(
      `WITH made AS (
         INSERT INTO issues (project_id, kind, fingerprint, grouping_version, status, title, first_seen, last_seen)
         SELECT $1, 'friction', 'ticket:bulk-' || n, 4, 'new', lpad(n::text, 2, '0'), now(), now() FROM generate_series(1, 55) AS n RETURNING id, title
       )
       INSERT INTO tickets (project_id, issue_id, kind, page, target, narrative, updated_at)
       SELECT $1, id, 'dead_click', '/bulk', 'button#bulk-' || title, 'bulk', now() - title::int * interval '1 second' FROM made`,
      [otherProjectId],
    )
    const list = `/projects/${otherProjectId}/known-problems`
    const first = await client.get(`${list}?kind=dead_click`)
    const rows = listed(first.text)
    t.equal(rows.length, 50)
    t.equal(rows[0], 'button#bulk-01', 'the most recently active first')
    t.equal(rows[49], 'button#bulk-50')
    t.match(first.text, `href="${list}?kind=dead_click&amp;p=2" rel="next">Older</a>`)
    const second = await client.get(`${list}?kind=dead_click&p=2`)
    t.same(listed(second.text), ['button#bulk-51', 'button#bulk-52', 'button#bulk-53', 'button#bulk-54', 'button#bulk-55'])
    t.match(second.text, `href="${list}?kind=dead_click" rel="prev">Newer</a>`)
    t.equal(listed((await client.get(`${list}?p=2`)).text).length, 6, 'unfiltered, the rest and the rage click')
    t.equal((await client.get(`${list}?p=abc`)).status, 200, 'a page that is not a number is the first')
  })

})

t.test("the page reads a ticket's counts against the publish gate's own numbers", async (t) => {
  const base = { users: 2, checks_confirmed: 1, checks_refuted: 9, checks_inconclusive: 0, published_at: ago(60), unpublished_at: null }
  t.ok(dueForUnpublishing(base), 'published, 10 checks, 10% confirmed: the gate unpublishes it')
  t.notOk(dueForUnpublishing({ ...base, checks_refuted: 8 }), 'under 10 checks it stays')
  t.notOk(dueForUnpublishing({ ...base, unpublished_at: ago(1) }), 'unpublished already')
  t.notOk(dueForUnpublishing({ ...base, checks_confirmed: 3, checks_refuted: 7 }), '30% is above the 25% it falls below')
  t.same(
    thresholds({ ...base, checks_confirmed: 2, checks_refuted: 1, checks_inconclusive: 7, published_at: null }).map((row) => [row.label, row.met]),
    [['2 of 3 confirmed checks', false], ['2 of 2 users', true], ['67% of 40% of conclusive checks confirmed', true]],
    'inconclusive checks are left out of the share, as the gate leaves them',
  )
})
