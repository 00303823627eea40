import t, { type Test } from 'tap'
import { readInvestigation } from '../../../services/investigator/read/investigation.js'
import { Investigation, InvestigationCitation, InvestigationOutcome, INVESTIGATOR_ENTITIES, type InvestigationState } from '../../../services/investigator/store/entities.js'
import { createOrm, type Orm } from '../../../shared/db/orm.js'
import { approveNewProject, DashboardClient } from '../../helpers/dashboard.js'
import { startTestStack, type TestStack } from '../../helpers/stack.js'
import { seededByHand } from '../../helpers/suite-invariants.js'

const SHA = '3f2c1b0a9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b'
const CSP = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

/** An ORM of the test's own over the stack's database, closed before the stack is. */
async function testOrm(t: Test, stack: TestStack): Promise<Orm> {
  const orm = await createOrm(stack.db, INVESTIGATOR_ENTITIES)
  t.teardown(() => orm.close())
  return orm
}

/** An issue written as the grouper would leave it (status follows its investigation). */
async function insertIssue(stack: TestStack, projectId: string, fields: { title?: string; kind?: string; status?: string; reasonCode?: string; reasonMessage?: string } = {}): Promise<string> {
  const { rows } = await stack.db.query<{ id: string }>(
    `INSERT INTO issues (project_id, kind, fingerprint, grouping_version, status, reason_code, reason_message, title, culprit, first_seen, last_seen, event_count, user_count, session_count)
     VALUES ($1, $2, gen_random_uuid()::text, 3, $3, $4, $5, $6, 'totalOf (src/cart.ts:6)', now() - interval '2 days', now(), 12, 3, 4) RETURNING id`,
    [projectId, fields.kind ?? 'error', fields.status ?? 'new', fields.reasonCode ?? '', fields.reasonMessage ?? '', fields.title ?? 'Error: Cart <n> has no items'],
  )
  return rows[0]!.id
}

interface Seeded {
  state: InvestigationState
  repoUrl?: string
  outcome?: Partial<InvestigationOutcome>
  citations?: Array<Pick<InvestigationCitation, 'path' | 'lineStart' | 'lineEnd' | 'quote'>>
}

/** Stores a finished (or running) investigation of the issue, as the investigator records one. */
async function insertInvestigation(orm: Orm, issueId: string, projectId: string, seeded: Seeded): Promise<string> {
  const em = orm.em.fork()
  const finished = seeded.state !== 'queued' && seeded.state !== 'analyzing'
  const investigation = Object.assign(new Investigation(), {
    issueId,
    projectId,
    episode: 1,
    trigger: 'auto' as const,
    state: seeded.state,
    attempts: 1,
    leaseUntil: new Date(Date.now() + 60_000),
    release: 'shop@1.4.0',
    repo: 'acme/shop',
    repoUrl: seeded.repoUrl ?? 'https://github.com/acme/shop',
    commitSha: SHA,
    model: 'claude-sonnet-4',
    turns: 7,
    inputTokens: 12_345,
    outputTokens: 678,
    durationMs: 83_400,
    startedAt: new Date(Date.now() - 90_000),
    finishedAt: finished ? new Date() : null,
  })
  // No relations are declared between the entities: the row the others point at goes first.
  await em.persist(investigation).flush()
  if (seeded.outcome) em.persist(Object.assign(new InvestigationOutcome(), { investigationId: investigation.id, kind: seeded.state, ...seeded.outcome }))
  for (const citation of seeded.citations ?? []) em.persist(Object.assign(new InvestigationCitation(), { investigationId: investigation.id, ...citation }))
  await em.flush()
  return investigation.id
}

/** The investigation panel of a page. */
function panel(page: string): string {
  return /<section class="investigation"[\s\S]*?<\/section>/.exec(page)?.[0] ?? ''
}

/** A signed-in owner with a project, the test's ORM, and an issue of each outcome. */
async function seededProject(t: Test) {
  const stack = await startTestStack(t)
  // Rows below are written by hand to show pages, outside the fix lifecycle: the suite's invariant check skips this database.
  await seededByHand(stack.db)
  const orm = await testOrm(t, stack)
  const client = new DashboardClient(stack.baseUrl)
  await client.signUp('owner@example.test')
  const projectId = await approveNewProject(stack, client, 'Shop')
  const investigated = await insertIssue(stack, projectId, { status: 'investigated' })
  await insertInvestigation(orm, investigated, projectId, {
    state: 'investigated',
    outcome: {
      summary: 'checkout() reads cart.items of a cart the <script>alert("x")</script> & co never loaded.',
      chain: ['The user presses <b>Pay</b>', 'checkout() calls totalOf(cart)', 'totalOf throws on an empty cart'],
      fix: 'Load the cart before enabling the Pay button.',
      confidence: 0.85,
    },
    citations: [
      { path: 'src/cart.ts', lineStart: 6, lineEnd: 8, quote: "  if (cart.items.length === 0) throw new Error('Cart ' + cart.id + ' has no items')\n  let sum = 0" },
      { path: 'src/pay <button>.ts', lineStart: 12, lineEnd: 12, quote: 'button.disabled = false // <enable>' },
    ],
  })
  const insight = await insertIssue(stack, projectId, { status: 'insight' })
  await insertInvestigation(orm, insight, projectId, {
    state: 'insight',
    repoUrl: 'javascript:alert(1)',
    outcome: { summary: 'A chat widget throws inside its own bundle.', chain: ['widget.js loads', 'it reads window.__chat'], cause: { kind: 'third_party_script', name: 'widget.example/chat.js', evidence: 'Every frame is in https://widget.example/chat.js' } },
    citations: [{ path: 'index.html', lineStart: 3, lineEnd: 3, quote: '<script src="https://widget.example/chat.js"></script>' }],
  })
  const stopped = await insertIssue(stack, projectId, { status: 'needs_human', reasonCode: 'sourcemap_missing', reasonMessage: 'No source map for shop@1.4.0.' })
  await insertInvestigation(orm, stopped, projectId, {
    state: 'needs_human',
    outcome: { reasonCode: 'sourcemap_missing', reasonMessage: 'No source map for shop@1.4.0.', remediation: 'Upload source maps for the release the events name (svc-sourcemaps), then press Investigate again.' },
  })
  return { stack, orm, client, projectId, issues: { investigated, insight, stopped } }
}

t.test('the issue page shows each outcome with its text escaped, cited lines linked and a stop with its remediation', async (t) => {
  const { client, projectId, issues } = await seededProject(t)

  const page = await client.get(`/projects/${projectId}/issues/${issues.investigated}`)
  t.equal(page.status, 200)
  t.equal(page.headers.get('content-security-policy'), CSP, 'the page keeps its Content-Security-Policy')
  t.notMatch(page.text, /<script|<b>/i, 'no markup from the outcome reaches the page')
  const investigated = panel(page.text)
  t.match(investigated, '<span class="status">investigated</span>')
  t.match(investigated, 'checkout() reads cart.items of a cart the &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; co never loaded.', 'the summary, escaped')
  t.match(investigated, /<ol class="chain"><li>The user presses &lt;b&gt;Pay&lt;\/b&gt;<\/li><li>checkout\(\) calls totalOf\(cart\)<\/li><li>totalOf throws on an empty cart<\/li><\/ol>/, 'the chain, in order')
  t.match(investigated, /<h3>What a fix must change<\/h3>\s*<p class="prose">Load the cart before enabling the Pay button\.<\/p>/)
  t.match(investigated, `<a href="https://github.com/acme/shop/blob/${SHA}/src/cart.ts#L6-L8"><code>src/cart.ts:6-8</code></a><pre class="quote">  if (cart.items.length === 0) throw new Error(&#39;Cart &#39; + cart.id + &#39; has no items&#39;)\n  let sum = 0</pre>`, 'a cited range links to the lines at the commit')
  t.match(investigated, `<a href="https://github.com/acme/shop/blob/${SHA}/src/pay%20%3Cbutton%3E.ts#L12"><code>src/pay &lt;button&gt;.ts:12</code></a><pre class="quote">button.disabled = false // &lt;enable&gt;</pre>`, 'a cited line, its path escaped')
  t.match(investigated, `<code>acme/shop</code>@<a href="https://github.com/acme/shop/commit/${SHA}" title="${SHA}"><code>3f2c1b0</code></a>`, 'repository@commit, the short sha linking to the commit')
  t.match(investigated, '<dt>Model</dt><dd><code>claude-sonnet-4</code></dd>')
  t.match(investigated, '<dt>Turns</dt><dd>7</dd>')
  t.match(investigated, '<dt>Tokens</dt><dd>12,345 in · 678 out</dd>')
  t.match(investigated, '<dt>Duration</dt><dd>1 min 23 s</dd>')
  t.match(investigated, '<dt>Confidence</dt><dd>85%</dd>')
  t.match(investigated, `action="/projects/${projectId}/issues/${issues.investigated}/investigate"`, 'the owner sees the button')
  t.match(investigated, '>Investigate again</button></form>')

  const insight = panel((await client.get(`/projects/${projectId}/issues/${issues.insight}`)).text)
  t.match(insight, '<span class="status">insight</span>')
  t.match(insight, /<dt>Kind<\/dt><dd>third_party_script<\/dd>\s*<dt>Name<\/dt><dd><code>widget\.example\/chat\.js<\/code><\/dd>\s*<dt>Evidence<\/dt><dd class="prose">Every frame is in https:\/\/widget\.example\/chat\.js<\/dd>/, 'the cause')
  t.match(insight, 'A chat widget throws inside its own bundle.')
  t.match(insight, '<li>widget.js loads</li><li>it reads window.__chat</li>')
  t.match(insight, '<li><code>index.html:3</code><pre class="quote">&lt;script src=&quot;https://widget.example/chat.js&quot;&gt;&lt;/script&gt;</pre></li>', 'a citation whose address is not http(s) is shown without a link')
  t.notMatch(insight, 'javascript:', 'no javascript: link, for the citation or the commit')
  t.match(insight, `<code>acme/shop</code>@<code>3f2c1b0</code>`)

  const stop = panel((await client.get(`/projects/${projectId}/issues/${issues.stopped}`)).text)
  t.match(stop, '<span class="status">needs_human</span> The investigation stopped: <code>sourcemap_missing</code>')
  t.match(stop, '<p class="prose">No source map for shop@1.4.0.</p>')
  t.match(stop, '<strong>What to do:</strong> Upload source maps for the release the events name (svc-sourcemaps), then press Investigate again.')
  t.match(stop, 'Investigate again', 'a stopped investigation can be asked for again')
})

t.test('no button while an investigation is in flight, nor for an issue that is not an error', async (t) => {
  const stack = await startTestStack(t)
  // Rows below are written by hand to show pages, outside the fix lifecycle: the suite's invariant check skips this database.
  await seededByHand(stack.db)
  const orm = await testOrm(t, stack)
  const client = new DashboardClient(stack.baseUrl)
  await client.signUp('owner@example.test')
  const projectId = await approveNewProject(stack, client, 'Shop')
  const running = await insertIssue(stack, projectId, { status: 'analyzing' })
  await insertInvestigation(orm, running, projectId, { state: 'analyzing' })
  const analyzing = panel((await client.get(`/projects/${projectId}/issues/${running}`)).text)
  t.match(analyzing, /<span class="status">analyzing<\/span> In progress since <time datetime="[^"]+">/)
  t.notMatch(analyzing, '<form', 'no button while it runs')

  const fresh = panel((await client.get(`/projects/${projectId}/issues/${await insertIssue(stack, projectId)}`)).text)
  t.match(fresh, 'Not investigated yet')
  t.match(fresh, '>Investigate now</button>', 'a new error issue can be investigated at once')

  const message = panel((await client.get(`/projects/${projectId}/issues/${await insertIssue(stack, projectId, { kind: 'message' })}`)).text)
  t.match(message, 'Only error issues are investigated.')
  t.notMatch(message, '<form', 'no button for an issue that is not an error')
})

t.test('pressing Investigate again queues episode 2 on the stream; pressing it again says one is in progress', async (t) => {
  const { stack, orm, client, projectId, issues } = await seededProject(t)
  const issuePath = `/projects/${projectId}/issues/${issues.investigated}`
  await client.get(issuePath)

  t.equal((await client.post(`${issuePath}/investigate`, { csrf: 'forged' })).status, 403, 'a post without the page CSRF token is refused')
  const pressed = await client.post(`${issuePath}/investigate`, {})
  t.equal(pressed.status, 303)
  t.equal(pressed.location, `${issuePath}?investigation=started`)

  const rows = await orm.em.fork().find(Investigation, { issueId: issues.investigated }, { orderBy: { episode: 'asc' } })
  t.equal(rows.length, 2)
  const { rows: users } = await stack.db.query<{ id: string }>(`SELECT id FROM users WHERE email = 'owner@example.test'`)
  t.match(rows[1], { episode: 2, trigger: 'manual', state: 'queued', requestedBy: users[0]!.id })
  const entries = (await stack.redis.xrange(stack.keys.investigations, '-', '+')) as Array<[string, string[]]>
  t.same(entries.map(([, fields]) => fields), [['investigation', rows[1]!.id]], 'one entry on the investigations stream names it')
  const { rows: issue } = await stack.db.query<{ status: string }>('SELECT status FROM issues WHERE id = $1', [issues.investigated])
  t.equal(issue[0]!.status, 'queued')

  const after = await client.get(pressed.location)
  t.match(after.text, 'Investigation requested: it is queued')
  t.match(panel(after.text), /<span class="status">queued<\/span> In progress since/)
  t.notMatch(panel(after.text), '<form', 'the button is hidden while it is queued')

  const again = await client.post(`${issuePath}/investigate`, {})
  t.equal(again.location, `${issuePath}?investigation=in_flight`, 'a second press starts nothing')
  t.match((await client.get(again.location)).text, 'already in progress')
  t.equal(await orm.em.fork().count(Investigation, { issueId: issues.investigated }), 2)
  t.equal(await stack.redis.xlen(stack.keys.investigations), 1)
})

t.test("another person gets 403 from the button's route and nothing from the pages or the JSON read", async (t) => {
  const { stack, orm, projectId, issues } = await seededProject(t)
  const other = new DashboardClient(stack.baseUrl)
  await other.signUp('other@example.test')
  await other.get('/')
  const refused = await other.post(`/projects/${projectId}/issues/${issues.investigated}/investigate`, {})
  t.equal(refused.status, 403)
  t.match(refused.text, 'Only members of the project can ask for an investigation.')
  t.equal(await orm.em.fork().count(Investigation, { issueId: issues.investigated }), 1, 'nothing was started')
  t.equal((await other.get(`/projects/${projectId}/issues/${issues.investigated}`)).status, 404)
  const read = await other.get(`/api/v1/projects/${projectId}/issues/${issues.investigated}`)
  t.equal(read.status, 404)
  t.equal(JSON.parse(read.text).code, 'project_not_found')
})

t.test('the JSON read answers the issue and its investigation to the signed-in owner', async (t) => {
  const { stack, orm, client, projectId, issues } = await seededProject(t)
  const read = await client.get(`/api/v1/projects/${projectId}/issues/${issues.stopped}`)
  t.equal(read.status, 200)
  t.equal(read.headers.get('cache-control'), 'no-store')
  const body = JSON.parse(read.text) as { issue: Record<string, unknown>; investigation: unknown }
  t.match(body.issue, { id: issues.stopped, title: 'Error: Cart <n> has no items', culprit: 'totalOf (src/cart.ts:6)', status: 'needs_human', reason_code: 'sourcemap_missing', reason_message: 'No source map for shop@1.4.0.', kind: 'error', event_count: 12, user_count: 3, session_count: 4 })
  t.match(body.issue.first_seen, /^\d{4}-\d{2}-\d{2}T/)
  const { rows: [stored] } = await stack.db.query<{ created_at: Date }>('SELECT created_at FROM issues WHERE id = $1', [issues.stopped])
  t.equal(body.issue.created_at, stored!.created_at.toISOString(), "created_at, the spec's Issue field, as the row has it")
  t.same(Object.keys(body.issue).sort(), ['assignee', 'created_at', 'culprit', 'event_count', 'first_seen', 'id', 'kind', 'last_seen', 'noise', 'reason_code', 'reason_message', 'session_count', 'status', 'title', 'user_count'])
  t.same(body.investigation, JSON.parse(JSON.stringify(await readInvestigation(orm, issues.stopped))), 'the investigation view the page shows')

  const cited = JSON.parse((await client.get(`/api/v1/projects/${projectId}/issues/${issues.investigated}`)).text) as { investigation: { citations: Array<{ url: string }> } }
  t.equal(cited.investigation.citations[0]!.url, `https://github.com/acme/shop/blob/${SHA}/src/cart.ts#L6-L8`)
  const none = JSON.parse((await client.get(`/api/v1/projects/${projectId}/issues/${await insertIssue(stack, projectId)}`)).text) as { investigation: unknown }
  t.equal(none.investigation, null, 'an issue never investigated has none')
  t.equal((none as { not_investigated?: unknown }).not_investigated, null, 'nor a note, before admission looked at it')

  const otherProject = await approveNewProject(stack, client, 'Blog')
  const elsewhere = await client.get(`/api/v1/projects/${otherProject}/issues/${issues.stopped}`)
  t.equal(elsewhere.status, 404, "another project's issue is not found, even for the owner of both")
  t.same(JSON.parse(elsewhere.text), { code: 'issue_not_found', message: 'This project has no issue with this id. Check both ids: an issue belongs to exactly one project.' })

  const signedOut = await fetch(`${stack.baseUrl}/api/v1/projects/${projectId}/issues/${issues.stopped}`)
  t.equal(signedOut.status, 401)
  t.equal(((await signedOut.json()) as { code: string }).code, 'not_signed_in')
  const unknown = await client.get(`/api/v1/projects/${projectId}/releases`)
  t.equal(unknown.status, 404)
  t.equal(JSON.parse(unknown.text).code, 'not_found')
})
