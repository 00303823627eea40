import t from 'tap'
import { parseIssueFilter, type IssueFilter } from '../../../services/grouper/read/issue-filter.js'
import { searchIssues } from '../../../services/grouper/read/issue-list.js'
import { userKey } from '../../../shared/domain/user-key.js'
import { callTool, connectAgent } from '../../helpers/mcp.js'
import { startTestStack } from '../../helpers/stack.js'
import { seededByHand } from '../../helpers/suite-invariants.js'

// One stack for the file: every test reads its own project's issues, seeded by SQL.
const stack = await startTestStack(t)
const db = stack.db
// Issues in investigated and fixing are written by hand to be listed, outside their lifecycle: the invariant check skips this database.
await seededByHand(db)

interface Seed {
  title: string
  culprit?: string
  triage?: string
  status?: string
  kind?: string
  noise?: string
  firstSeen?: string
  lastSeen?: string
  events?: number
  users?: number
  mergedInto?: string
  releases?: string[]
  environments?: string[]
  /** The SDK's user identities (id or e-mail) that ran into it. */
  people?: string[]
}

async function newProject(): Promise<string> {
  const { rows } = await db.query<{ id: string }>(`INSERT INTO projects (name) VALUES ('Search') RETURNING id`)
  return rows[0]!.id
}

/** An issue as the grouper leaves it, with one event, its releases, environments and users. */
async function seed(projectId: string, issue: Seed): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO issues (project_id, kind, fingerprint, grouping_version, status, title, culprit, first_seen, last_seen, event_count, user_count, triage, noise, merged_into)
     VALUES ($1, $2, gen_random_uuid()::text, 4, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id`,
    [projectId, issue.kind ?? 'error', issue.status ?? 'new', issue.title, issue.culprit ?? '', issue.firstSeen ?? '2026-01-01T00:00:00Z', issue.lastSeen ?? '2026-01-02T00:00:00Z', issue.events ?? 1, issue.users ?? 0, issue.triage ?? 'open', issue.noise ?? '', issue.mergedInto ?? null],
  )
  const id = rows[0]!.id
  await db.query(
    `INSERT INTO events (id, project_id, issue_id, occurred_at, received_at, release, grouping, payload) VALUES (gen_random_uuid(), $1, $2, $3, $3, $4, '{}', '{}')`,
    [projectId, id, issue.lastSeen ?? '2026-01-02T00:00:00Z', issue.releases?.[0] ?? null],
  )
  for (const release of issue.releases ?? []) await db.query(`INSERT INTO issue_releases (project_id, issue_id, release, first_seen) VALUES ($1, $2, $3, now())`, [projectId, id, release])
  for (const name of issue.environments ?? []) {
    await db.query(
      `WITH env AS (INSERT INTO environments (project_id, name) VALUES ($1, $3) ON CONFLICT (project_id, name) DO UPDATE SET name = excluded.name RETURNING id)
       INSERT INTO issue_environments (project_id, issue_id, environment_id, first_seen) SELECT $1, $2, id, now() FROM env`,
      [projectId, id, name],
    )
  }
  for (const person of issue.people ?? []) {
    const identity = person.includes('@') ? { email: person } : { id: person }
    await db.query(`INSERT INTO issue_actors (issue_id, actor_kind, actor, first_seen, last_seen) VALUES ($1, 'u', $2, now(), now())`, [id, userKey(projectId, identity)])
  }
  return id
}

/** The ids searchIssues lists for the filter given as a query string (which must parse). */
async function ids(projectId: string, query: string): Promise<string[]> {
  const parsed = parseIssueFilter(new URLSearchParams(query))
  if (!parsed.ok) throw new Error(`${query}: ${parsed.message}`)
  return (await searchIssues(db, projectId, parsed.filter)).issues.map((issue) => issue.id)
}

/** Every id of the filter, a page of `limit` at a time through the cursors. */
async function allPages(projectId: string, filter: IssueFilter, limit: number): Promise<string[][]> {
  const pages: string[][] = []
  let cursor: string | undefined
  do {
    const page = await searchIssues(db, projectId, { ...filter, limit, ...(cursor ? { cursor } : {}) })
    pages.push(page.issues.map((issue) => issue.id))
    cursor = page.nextCursor ?? undefined
  } while (cursor && pages.length < 50)
  return pages
}

t.test('the default list is open issues, noise and merged ones left out, most recently seen first', async (t) => {
  const project = await newProject()
  const older = await seed(project, { title: 'TypeError: a', lastSeen: '2026-01-02T00:00:00Z' })
  const newer = await seed(project, { title: 'TypeError: b', lastSeen: '2026-01-03T00:00:00Z' })
  const resolved = await seed(project, { title: 'TypeError: c', triage: 'resolved' })
  const ignored = await seed(project, { title: 'TypeError: d', triage: 'ignored' })
  const noise = await seed(project, { title: 'ResizeObserver loop', noise: 'resize-observer-loop', lastSeen: '2026-01-01T00:00:00Z' })
  const merged = await seed(project, { title: 'TypeError: e', mergedInto: newer, lastSeen: '2026-02-01T00:00:00Z' })
  const mergedResolved = await seed(project, { title: 'TypeError: f', triage: 'resolved', mergedInto: newer })

  const page = await searchIssues(db, project, {})
  t.same(page.issues.map((i) => i.id), [newer, older])
  t.equal(page.nextCursor, null)
  t.equal(page.noiseCount, 1)
  t.match(page.issues[0], { triage: 'open', resolved_mode: '', ignored_until: null, regressed_at: null, merged_count: 2 })
  t.same(await ids(project, 'noise=1'), [newer, older, noise])
  t.same(await ids(project, 'triage=resolved'), [resolved])
  t.same((await ids(project, 'triage=ignored,resolved')).sort(), [resolved, ignored].sort())
  t.same((await ids(project, 'triage=all')).sort(), [older, newer, resolved, ignored].sort())
  for (const hidden of [merged, mergedResolved]) t.notOk((await ids(project, 'triage=all&noise=1')).includes(hidden), 'a merged issue never lists')
})

t.test('each filter narrows: text, status, kind, release, environment, user by id and by e-mail, seen ranges', async (t) => {
  const project = await newProject()
  const cart = await seed(project, { title: 'TypeError: Cannot read properties of undefined (reading total)', culprit: 'checkout (src/cart.ts:6)', status: 'investigated', releases: ['shop@1.0.0', 'shop@1.1.0'], environments: ['production'], people: ['u-42'], firstSeen: '2026-01-01T00:00:00Z', lastSeen: '2026-01-10T00:00:00Z' })
  const percent = await seed(project, { title: 'Error: discount is 100% off', culprit: 'price (src/price_rules.ts:3)', status: 'new', releases: ['shop@1.1.0'], environments: ['staging'], people: ['ada@example.test'], firstSeen: '2026-01-05T00:00:00Z', lastSeen: '2026-01-06T00:00:00Z' })
  const plain = await seed(project, { title: 'Error: discount is 1000 off', culprit: 'price (src/priceXrules.ts:3)', status: 'fixing', kind: 'friction', firstSeen: '2026-01-07T00:00:00Z', lastSeen: '2026-01-08T00:00:00Z' })

  t.same(await ids(project, 'q=cannot+READ'), [cart], 'text in the title, whatever the case')
  t.same(await ids(project, 'q=src%2Fcart.ts'), [cart], 'text in the culprit')
  t.same(await ids(project, 'q=100%25'), [percent], '% is a literal percent sign')
  t.same(await ids(project, 'q=price_rules'), [percent], '_ is a literal underscore')
  t.same(await ids(project, 'q=nothing+like+this'), [])
  t.same(await ids(project, 'status=investigated,fixing'), [cart, plain])
  t.same(await ids(project, 'kind=friction'), [plain])
  t.same(await ids(project, 'release=shop%401.1.0'), [cart, percent])
  t.same(await ids(project, 'release=shop%401.0.0'), [cart])
  t.same(await ids(project, 'release=shop%402.0.0'), [])
  t.same(await ids(project, 'environment=staging'), [percent])
  t.same(await ids(project, 'environment=nowhere'), [])
  t.same(await ids(project, 'user=u-42'), [cart], 'a user by id')
  t.same(await ids(project, 'user=ada%40example.test'), [percent], 'a user by e-mail')
  t.same(await ids(project, 'user=someone-else'), [])
  t.same(await ids(project, 'first_seen_from=2026-01-05'), [plain, percent])
  t.same(await ids(project, 'first_seen_to=2026-01-05T00:00:00Z'), [cart, percent], 'the bounds are inclusive')
  t.same(await ids(project, 'last_seen_from=2026-01-06&last_seen_to=2026-01-08'), [plain, percent])
  t.same(await ids(project, 'release=shop%401.1.0&environment=production&user=u-42&q=total'), [cart], 'filters combine')
})

t.test('each sort orders largest or newest first with the id breaking ties, and pages end to end without a gap or a repeat', async (t) => {
  const project = await newProject()
  // Ties on every sort, and two times a microsecond apart (a Date would call them equal).
  const specs: Seed[] = []
  for (let n = 0; n < 13; n++) {
    const micros = n % 3 === 0 ? '.000001' : n % 3 === 1 ? '.000002' : ''
    specs.push({ title: `Error: tie ${n}`, firstSeen: `2026-01-0${1 + (n % 2)}T00:00:00${micros}Z`, lastSeen: `2026-02-0${1 + (n % 3)}T00:00:00${micros}Z`, events: n % 4, users: n % 2 })
  }
  const seeded = await Promise.all(specs.map((spec) => seed(project, spec)))
  const { rows } = await db.query<{ id: string; first_seen: string; last_seen: string; event_count: string; user_count: number }>(
    `SELECT id, (extract(epoch FROM first_seen) * 1e6)::bigint::text AS first_seen, (extract(epoch FROM last_seen) * 1e6)::bigint::text AS last_seen, event_count::text, user_count FROM issues WHERE project_id = $1`,
    [project],
  )
  t.equal(rows.length, seeded.length)
  const byKey = (key: (r: (typeof rows)[number]) => bigint): string[] =>
    [...rows].sort((a, b) => (key(a) === key(b) ? (a.id < b.id ? 1 : -1) : key(a) < key(b) ? 1 : -1)).map((r) => r.id)
  const expected = {
    last_seen: byKey((r) => BigInt(r.last_seen)),
    first_seen: byKey((r) => BigInt(r.first_seen)),
    events: byKey((r) => BigInt(r.event_count)),
    users: byKey((r) => BigInt(r.user_count)),
  }
  for (const [sort, order] of Object.entries(expected) as Array<[keyof typeof expected, string[]]>) {
    t.same(await ids(project, `sort=${sort}`), order, `sort=${sort}`)
    for (const limit of [1, 2, 5]) {
      const pages = await allPages(project, { sort }, limit)
      t.same(pages.flat(), order, `sort=${sort} in pages of ${limit}: every issue once, in order`)
      t.ok(pages.slice(0, -1).every((page) => page.length === limit), 'every page but the last is full')
    }
  }
  const filtered = await allPages(project, { sort: 'events', status: ['new'], lastSeenFrom: new Date('2026-02-02T00:00:00Z') }, 2)
  t.same(filtered.flat(), expected.events.filter((id) => rows.find((r) => r.id === id)!.last_seen >= String(Date.parse('2026-02-02T00:00:00Z') * 1000)), 'a filtered list pages the same way')
})

t.test('a bad parameter is answered with invalid_filter, its field, and what to send instead', async (t) => {
  const bad: Array<[string, string, RegExp]> = [
    ['triage=closed', 'triage', /open, resolved, ignored, or all/],
    ['status=done', 'status', /needs_human/],
    ['sort=popularity', 'sort', /last_seen, first_seen, events, users/],
    ['sort=events,users', 'sort', /one value/],
    ['kind=bug', 'kind', /one value of error, friction/],
    ['limit=0', 'limit', /1 to 200/],
    ['limit=201', 'limit', /1 to 200/],
    ['limit=ten', 'limit', /whole number/],
    ['first_seen_from=yesterday', 'first_seen_from', /ISO 8601/],
    ['last_seen_from=2026-02-01&last_seen_to=2026-01-01', 'last_seen_from', /start comes first/],
    ['noise=yes', 'noise', /noise must be 1/],
    ['cursor=not-a-cursor', 'cursor', /next_cursor/],
    [`q=${'x'.repeat(201)}`, 'q', /over 200 characters/],
    ['q=a&q=b', 'q', /once/],
  ]
  for (const [query, field, message] of bad) t.match(parseIssueFilter(new URLSearchParams(query)), { ok: false, code: 'invalid_filter', field, message }, query)
  t.match(parseIssueFilter(new URLSearchParams('triage=all&noise=1&sort=users&limit=200&unknown=1')), { ok: true, filter: { triage: ['open', 'resolved', 'ignored'], withNoise: true, sort: 'users', limit: 200 } })
})

t.test('the project API and list_issues answer the filters, page by the cursor and refuse a bad filter', async (t) => {
  const project = stack.projectId
  const key = await stack.mint('api')
  const a = await seed(project, { title: 'TypeError: checkout failed', releases: ['shop@2.0.0'], lastSeen: '2026-03-03T00:00:00Z', events: 5 })
  const b = await seed(project, { title: 'TypeError: checkout timed out', releases: ['shop@2.0.0'], lastSeen: '2026-03-02T00:00:00Z', events: 9 })
  await seed(project, { title: 'TypeError: login failed', releases: ['shop@1.0.0'], lastSeen: '2026-03-04T00:00:00Z' })
  const resolved = await seed(project, { title: 'TypeError: checkout resolved', triage: 'resolved', releases: ['shop@2.0.0'] })

  const get = async (query: string): Promise<{ status: number; body: Record<string, unknown> }> => {
    const response = await fetch(`${stack.baseUrl}/api/v1/projects/${project}/issues?${query}`, { headers: { authorization: `Bearer ${key}` } })
    return { status: response.status, body: (await response.json()) as Record<string, unknown> }
  }
  const first = await get('q=checkout&release=shop%402.0.0&limit=1')
  t.equal(first.status, 200)
  t.match(first.body, { issues: [{ id: a, triage: 'open', event_count: 5, merged_count: 0, resolved_mode: null }] })
  t.type(first.body.next_cursor, 'string')
  const second = await get(`q=checkout&release=shop%402.0.0&limit=1&cursor=${String(first.body.next_cursor)}`)
  t.same({ ids: (second.body.issues as Array<{ id: string }>).map((i) => i.id), next: second.body.next_cursor }, { ids: [b], next: null })
  t.same(((await get('triage=resolved')).body.issues as Array<{ id: string }>).map((i) => i.id), [resolved])
  const refused = await get('sort=popularity')
  t.match(refused, { status: 400, body: { code: 'invalid_filter', field: 'sort', message: /last_seen/ } })
  const signedOut = await fetch(`${stack.baseUrl}/api/v1/projects/${project}/issues`)
  t.equal(signedOut.status, 401, 'no credential, no list')
  await signedOut.text()

  const agent = await connectAgent(t, stack.baseUrl, key)
  const byEvents = await callTool(agent, 'list_issues', { q: 'checkout', release: 'shop@2.0.0', sort: 'events', limit: 1 })
  t.equal(byEvents.isError, false)
  t.match(byEvents.body.issues, [{ id: b, triage: 'open', event_count: 9, untrusted: { title: 'TypeError: checkout timed out' } }])
  const next = await callTool(agent, 'list_issues', { q: 'checkout', release: 'shop@2.0.0', sort: 'events', limit: 1, cursor: byEvents.body.next_cursor })
  t.same((next.body.issues as Array<{ id: string }>).map((i) => i.id), [a])
  t.equal(next.body.next_cursor, null)
  t.match(await callTool(agent, 'list_issues', { triage: 'all', q: 'resolved' }), { isError: false, body: { issues: [{ id: resolved, triage: 'resolved' }] } })
  t.match(await callTool(agent, 'list_issues', { triage: 'closed' }), { isError: true, body: { code: 'invalid_arguments', message: /triage/ } })
  t.match(await callTool(agent, 'list_issues', { sort: 'users', cursor: byEvents.body.next_cursor }), { isError: true, body: { code: 'invalid_cursor', message: /sorted by events/ } })
})
