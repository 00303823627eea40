import t, { type Test } from 'tap'
import { approveNewProject, DashboardClient } from '../../helpers/dashboard.js'
import { startTestStack, type TestStack } from '../../helpers/stack.js'
import { seededByHand } from '../../helpers/suite-invariants.js'

const SHA = '3f2c1b0a9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b'
const HEAD = '9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b'

/** Inserts one row as the service's own code would leave it; columns named as in the table. */
async function insertRow(stack: TestStack, table: string, row: Record<string, unknown>): Promise<string> {
  const columns = Object.keys(row)
  const { rows } = await stack.db.query<{ id: string }>(
    `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')}) RETURNING id::text`,
    Object.values(row),
  )
  return rows[0]!.id
}

/** An error issue (or another kind) with the status its investigation or fix left. */
function insertIssue(stack: TestStack, projectId: string, fields: { kind?: string; status?: string } = {}): Promise<string> {
  return insertRow(stack, 'issues', {
    project_id: projectId,
    kind: fields.kind ?? 'error',
    fingerprint: `fp-${Math.random()}`,
    grouping_version: 3,
    status: fields.status ?? 'new',
    title: 'Error: Cart <n> has no items',
    culprit: 'totalOf (src/cart.ts:6)',
    first_seen: new Date(Date.now() - 2 * 86_400_000),
    last_seen: new Date(),
    event_count: 12,
    user_count: 3,
    session_count: 4,
  })
}

/** Episode 1 of the issue's investigation; a finished one has an outcome of its state's kind. */
async function insertInvestigation(stack: TestStack, issueId: string, projectId: string, state: 'queued' | 'investigated' | 'insight'): Promise<string> {
  const finished = state !== 'queued'
  const id = await insertRow(stack, 'investigations', {
    issue_id: issueId,
    project_id: projectId,
    episode: 1,
    trigger: 'auto',
    state,
    attempts: finished ? 1 : 0,
    lease_until: new Date(Date.now() + 60_000),
    repo: 'acme/shop',
    repo_url: 'https://github.com/acme/shop',
    commit_sha: SHA,
    finished_at: finished ? new Date() : null,
  })
  if (finished) await stack.db.query(`INSERT INTO investigation_outcomes (investigation_id, kind, summary, fix) VALUES ($1, $2, 'checkout() totals a cart never loaded.', 'Load the cart first.')`, [id, state])
  return id
}

type EvidenceRow = { tier: string; phase: string; command: string; exit_code?: number | null; timed_out?: boolean; met: boolean; infra_error?: string; excerpt?: string }

/** An issue whose investigation found the cause in the code, and the fix that followed, with its evidence. */
async function seedFix(stack: TestStack, projectId: string, fix: Record<string, unknown>, evidence: EvidenceRow[] = []): Promise<string> {
  const issueId = await insertIssue(stack, projectId, { status: String(fix.state) })
  const investigationId = await insertInvestigation(stack, issueId, projectId, 'investigated')
  const fixId = await insertRow(stack, 'fixes', {
    investigation_id: investigationId,
    issue_id: issueId,
    project_id: projectId,
    trigger: 'auto',
    attempts: 1,
    lease_until: new Date(),
    repo: 'acme/shop',
    base_sha: SHA,
    branch: `svc/fix-${issueId.slice(0, 8)}`,
    turns: 9,
    input_tokens: 23_456,
    output_tokens: 1_789,
    duration_ms: 125_000,
    finished_at: new Date(),
    ...fix,
  })
  for (const [seq, row] of evidence.entries()) await insertRow(stack, 'fix_evidence', { fix_id: fixId, attempt: 1, seq, ...row })
  return issueId
}

const EVIDENCE: EvidenceRow[] = [
  { tier: 'setup', phase: 'baseline', command: 'npm ci', exit_code: 0, met: true, excerpt: 'added 212 packages' },
  { tier: 'E1', phase: 'baseline', command: 'npm test', exit_code: 0, met: true, excerpt: '# pass 14' },
  { tier: 'E2', phase: 'baseline', command: 'node --test test/cart-empty.test.js', exit_code: 1, met: true, excerpt: 'not ok 1 - an empty cart totals 0' },
  { tier: 'E0', phase: 'fix', command: 'npm run build', exit_code: 0, met: true },
  { tier: 'E1', phase: 'fix', command: 'npm test', exit_code: 0, met: true, excerpt: '# pass 14' },
  { tier: 'E2', phase: 'fix', command: 'node --test test/cart-empty.test.js', exit_code: 0, met: true, excerpt: 'ok 1 - an empty cart totals 0' },
]

/** A panel of a page, by its section class. */
function section(page: string, name: 'fix' | 'investigation'): string {
  return new RegExp(`<section class="${name}"[\\s\\S]*?</section>`).exec(page)?.[0] ?? ''
}

/** A signed-in owner with a project. */
async function ownerProject(t: Test) {
  const stack = await startTestStack(t)
  // Rows below are written by hand to show pages, outside the fix lifecycle: the suite's invariant check skips this database.
  await seededByHand(stack.db)
  const client = new DashboardClient(stack.baseUrl)
  await client.signUp('owner@example.test')
  const projectId = await approveNewProject(stack, client, 'Shop')
  const { rows } = await stack.db.query<{ id: string }>(`SELECT id FROM users WHERE email = 'owner@example.test'`)
  return { stack, client, projectId, userId: rows[0]!.id }
}

t.test('the issue page shows a pull request opened ready for review with its CI, review and executed evidence', async (t) => {
  const { stack, client, projectId } = await ownerProject(t)
  const issueId = await seedFix(
    stack,
    projectId,
    { state: 'pr_created', trigger: 'manual', delivery: 'ready', pr_number: 42, pr_url: 'https://github.com/acme/shop/pull/42', head_sha: HEAD, ci_state: 'success', ci_checked_at: new Date(), review: 'approved', review_reason: 'The guard matches the root cause.', summary: 'Load the cart before totalling it.', test_file: 'test/cart-empty.test.js' },
    EVIDENCE,
  )
  const page = await client.get(`/projects/${projectId}/issues/${issueId}`)
  t.equal(page.status, 200)
  t.ok(page.text.indexOf('<section class="fix"') > page.text.indexOf('<section class="investigation"'), 'the fix panel comes under the investigation panel')
  const fix = section(page.text, 'fix')
  t.match(fix, '<span class="status">pr_created</span> A pull request is open, ready for review.')
  t.match(fix, '<dt>Pull request</dt><dd><a href="https://github.com/acme/shop/pull/42" rel="noreferrer">#42</a> <span class="badge ready">ready for review</span></dd>')
  t.match(fix, `<dt>Head commit</dt><dd><code title="${HEAD}">9a8b7c6</code></dd>`)
  t.match(fix, /<dt>Repository CI<\/dt><dd><span class="ci ci-success">passing<\/span> <span class="muted small">read <time/)
  t.match(fix, '<span class="verdict verdict-approved">approved</span> <span class="prose">The guard matches the root cause.</span>')
  t.match(fix, '<p class="prose">Load the cart before totalling it.</p>')
  t.equal(fix.match(/<tr><td class="nowrap">/g)?.length, 6, 'one row per executed check')
  t.match(
    fix,
    '<tr><td class="nowrap">E2 regression test</td><td>baseline</td><td><code class="wrap">node --test test/cart-empty.test.js</code><details class="excerpt"><summary>Output</summary><pre class="excerpt">not ok 1 - an empty cart totals 0</pre></details></td>\n<td>1</td><td><span class="ok">yes</span></td><td><span class="muted">none</span></td></tr>',
    'the baseline regression test failed, as it must: the check held, its output folded',
  )
  t.match(fix, '<tr><td class="nowrap">E0 build</td><td>fix</td><td><code class="wrap">npm run build</code></td>\n<td>0</td>', 'a check without output has nothing to fold')
  t.notMatch(fix, '<details open', 'every output starts folded')
  t.match(fix, '<dt>Trigger</dt><dd>started by a person</dd>')
  t.match(fix, '<dt>Regression test</dt><dd><code>test/cart-empty.test.js</code></dd>')
  t.match(fix, '<dt>Turns</dt><dd>9</dd>')
  t.match(fix, '<dt>Tokens</dt><dd>23,456 in · 1,789 out</dd>')
  t.match(fix, '<dt>Duration</dt><dd>2 min 5 s</dd>')
  t.match(fix, `action="/projects/${projectId}/issues/${issueId}/fix"`, 'the owner may ask again once it ended')
  t.match(page.text, '<dt>Status</dt><dd><span class="status">pr_created</span></dd>')
  t.match((await client.get(`/projects/${projectId}/issues`)).text, '<td><span class="status">pr_created</span></td>', 'the issue list shows the fix states as statuses')

  const drafted = await seedFix(stack, projectId, { state: 'pr_draft', delivery: 'draft', pr_number: 7, pr_url: 'https://github.com/acme/shop/pull/7', head_sha: HEAD, ci_state: 'none', review: 'approved' }, EVIDENCE)
  const draft = section((await client.get(`/projects/${projectId}/issues/${drafted}`)).text, 'fix')
  t.match(draft, '<span class="badge draft">draft</span>')
  t.match(draft, '<span class="ci ci-none">no checks</span>', 'no checks at all is "no checks"')
  t.notMatch(draft, 'passing', 'never shown as passing')
  t.match(draft, '<dt>Trigger</dt><dd>automatic</dd>')
})

t.test('a limited draft says it is not verified, and a stop shows its reason, remediation and failed checks', async (t) => {
  const { stack, client, projectId } = await ownerProject(t)
  const limited = await seedFix(stack, projectId, { state: 'pr_draft', delivery: 'limited_draft', pr_number: 8, pr_url: 'https://github.com/acme/shop/pull/8', head_sha: HEAD, ci_state: 'pending', review: 'approved' }, EVIDENCE.slice(0, 2))
  const draft = section((await client.get(`/projects/${projectId}/issues/${limited}`)).text, 'fix')
  t.match(draft, '<span class="badge unverified">limited draft — not verified</span>')
  t.match(draft, '<span class="ci ci-pending">pending</span>')

  const stopped = await seedFix(
    stack,
    projectId,
    { state: 'needs_human', reason_code: 'tests_failed', reason_message: 'With the fix, test/checkout.test.js failed (it passed on the baseline).', remediation: 'Fix it by hand from the root cause, or press Fix this to try again.', review: '' },
    [
      { tier: 'setup', phase: 'fix', command: 'npm ci', exit_code: null, met: false, infra_error: 'sandbox exited before the command ran' },
      { tier: 'E1', phase: 'fix', command: 'npm test', exit_code: null, timed_out: true, met: false, excerpt: 'not ok 3 - checkout totals' },
    ],
  )
  const page = await client.get(`/projects/${projectId}/issues/${stopped}`)
  const stop = section(page.text, 'fix')
  t.match(stop, '<span class="status">needs_human</span> The fix stopped.')
  t.match(stop, '<p>Stopped: <code>tests_failed</code></p>')
  t.match(stop, '<p class="prose">With the fix, test/checkout.test.js failed (it passed on the baseline).</p>')
  t.match(stop, '<strong>What to do:</strong> Fix it by hand from the root cause, or press Fix this to try again.')
  t.notMatch(stop, '<dt>Pull request</dt>', 'no pull request')
  t.match(stop, '<td><span class="muted">none</span></td><td><span class="bad">no</span></td><td><span class="bad">sandbox exited before the command ran</span></td>', 'an infra error, which never holds')
  t.match(stop, '<td><span class="bad">timed out</span></td><td><span class="bad">no</span></td>')
  t.match(stop, '>Fix this</button>', 'a stopped fix can be asked for again')
})

t.test('summaries, reasons, commands, output and addresses of a fix are escaped, and only http(s) is linked', async (t) => {
  const { stack, client, projectId } = await ownerProject(t)
  const issueId = await seedFix(
    stack,
    projectId,
    { state: 'pr_draft', delivery: 'draft', pr_number: 9, pr_url: 'javascript:alert(1)', head_sha: '<svg onload=alert(1)>', review: 'approved', review_reason: 'Fine <b>bold</b> & "quoted"', summary: '<script>alert("summary")</script>', branch: 'svc/fix-<i>x</i>', test_file: 'test/<img src=x>.js' },
    [{ tier: 'E2', phase: 'fix', command: 'node -e "</code><script>alert(1)</script>"', exit_code: 0, met: true, excerpt: '</pre></details><script>alert(2)</script>' }],
  )
  const page = await client.get(`/projects/${projectId}/issues/${issueId}`)
  t.notMatch(page.text, /<script|<b>|<img/i, 'no markup from the fix reaches the page')
  t.notMatch(page.text, 'javascript:', 'no javascript: link')
  const fix = section(page.text, 'fix')
  t.notMatch(fix, /<svg|<i>/i, 'nor into the panel (the page has a chart of its own)')
  t.match(fix, '<dt>Pull request</dt><dd>#9 <span class="badge draft">draft</span></dd>', 'an address that is not http(s) is shown without a link')
  t.match(fix, '<p class="prose">&lt;script&gt;alert(&quot;summary&quot;)&lt;/script&gt;</p>')
  t.match(fix, 'Fine &lt;b&gt;bold&lt;/b&gt; &amp; &quot;quoted&quot;')
  t.match(fix, '<code class="wrap">node -e &quot;&lt;/code&gt;&lt;script&gt;alert(1)&lt;/script&gt;&quot;</code>')
  t.match(fix, '<pre class="excerpt">&lt;/pre&gt;&lt;/details&gt;&lt;script&gt;alert(2)&lt;/script&gt;</pre>')
  t.match(fix, '<code title="&lt;svg onload=alert(1)&gt;">&lt;svg on</code>')
  t.match(fix, '<code>svc/fix-&lt;i&gt;x&lt;/i&gt;</code>')
})

t.test('Fix this by the owner starts a fix when the latest investigation found the cause in the code', async (t) => {
  const { stack, client, projectId, userId } = await ownerProject(t)
  const issueId = await insertIssue(stack, projectId, { status: 'investigated' })
  const investigationId = await insertInvestigation(stack, issueId, projectId, 'investigated')
  const issuePath = `/projects/${projectId}/issues/${issueId}`
  const before = section((await client.get(issuePath)).text, 'fix')
  t.match(before, 'No fix yet')
  t.match(before, `<form method="post" action="${issuePath}/fix" class="fix-this"><input type="hidden" name="csrf" value="`)
  t.match(before, '>Fix this</button></form>')

  t.equal((await client.post(`${issuePath}/fix`, { csrf: 'forged' })).status, 403, 'a post without the page CSRF token is refused')
  t.equal((await stack.db.query('SELECT 1 FROM fixes')).rowCount, 0)
  const pressed = await client.post(`${issuePath}/fix`, {})
  t.equal(pressed.status, 303)
  t.equal(pressed.location, `${issuePath}?fix=fix_started`)
  const { rows } = await stack.db.query<{ id: string; trigger: string; requested_by: string; state: string; investigation_id: string; base_sha: string }>('SELECT id, trigger, requested_by, state, investigation_id, base_sha FROM fixes WHERE issue_id = $1', [issueId])
  t.equal(rows.length, 1)
  t.match(rows[0], { trigger: 'manual', requested_by: userId, state: 'queued', investigation_id: investigationId, base_sha: SHA })
  const entries = (await stack.redis.xrange(stack.keys.fixes, '-', '+')) as Array<[string, string[]]>
  t.same(entries.map(([, fields]) => fields), [['fix', rows[0]!.id]], 'one entry on the fixes stream names it')
  t.equal(await stack.redis.xlen(stack.keys.investigations), 0, 'no investigation was started')

  const after = await client.get(pressed.location)
  const fix = section(after.text, 'fix')
  t.match(fix, '<div class="notice" role="status">Fix requested: it is queued')
  t.match(fix, '<span class="status">queued</span> Waiting for a worker.')
  t.notMatch(fix, '<form', 'the button is hidden while the fix is queued')

  const again = await client.post(`${issuePath}/fix`, {})
  t.equal(again.location, `${issuePath}?fix=in_flight`, 'a second press starts nothing')
  t.match(section((await client.get(again.location)).text, 'fix'), 'already in progress')
  t.equal((await stack.db.query('SELECT 1 FROM fixes')).rowCount, 1)
  t.equal(await stack.redis.xlen(stack.keys.fixes), 1)
})

t.test('Fix this investigates first without a known cause, and starts nothing while an investigation is in flight', async (t) => {
  const { stack, client, projectId, userId } = await ownerProject(t)
  const fresh = await insertIssue(stack, projectId)
  const freshPath = `/projects/${projectId}/issues/${fresh}`
  await client.get(freshPath)
  const pressed = await client.post(`${freshPath}/fix`, {})
  t.equal(pressed.location, `${freshPath}?fix=investigation_started`)
  const { rows } = await stack.db.query<{ id: string; episode: number; trigger: string; requested_by: string; state: string }>('SELECT id, episode, trigger, requested_by, state FROM investigations WHERE issue_id = $1', [fresh])
  t.match(rows, [{ episode: 1, trigger: 'manual', requested_by: userId, state: 'queued' }])
  const entries = (await stack.redis.xrange(stack.keys.investigations, '-', '+')) as Array<[string, string[]]>
  t.same(entries.map(([, fields]) => fields), [['investigation', rows[0]!.id]])
  t.equal((await stack.db.query('SELECT 1 FROM fixes')).rowCount, 0, 'no fix before a cause is known')
  const page = await client.get(pressed.location)
  t.match(section(page.text, 'fix'), 'No root cause in the code is known yet, so an investigation was started first.')
  t.match(section(page.text, 'investigation'), '<span class="status">queued</span>')
  t.notMatch(section(page.text, 'fix'), '<form', 'no Fix this while the investigation runs')

  const queued = await insertIssue(stack, projectId, { status: 'queued' })
  await insertInvestigation(stack, queued, projectId, 'queued')
  const queuedPath = `/projects/${projectId}/issues/${queued}`
  t.equal((await client.post(`${queuedPath}/fix`, {})).location, `${queuedPath}?fix=in_flight`)
  t.equal(await stack.redis.xlen(stack.keys.investigations), 1, 'nothing more on the stream')
  t.equal((await stack.db.query('SELECT 1 FROM investigations WHERE issue_id = $1', [queued])).rowCount, 1)
})

t.test('Fix this answers anybody but the owner 403, and refuses an issue that is not an error', async (t) => {
  const { stack, client, projectId } = await ownerProject(t)
  const issueId = await insertIssue(stack, projectId, { status: 'investigated' })
  await insertInvestigation(stack, issueId, projectId, 'investigated')
  const message = await insertIssue(stack, projectId, { kind: 'message' })
  t.equal(section((await client.get(`/projects/${projectId}/issues/${message}`)).text, 'fix'), '', 'no fix panel nor button for an issue that is not an error')
  const refusedKind = await client.post(`/projects/${projectId}/issues/${message}/fix`, {})
  t.equal(refusedKind.status, 409)
  t.match(refusedKind.text, 'Only error issues are fixed.')

  const other = new DashboardClient(stack.baseUrl)
  await other.signUp('other@example.test')
  await other.get('/')
  const refused = await other.post(`/projects/${projectId}/issues/${issueId}/fix`, {})
  t.equal(refused.status, 403)
  t.match(refused.text, 'Only members of the project can ask for a fix.')
  const unknown = await other.post(`/projects/00000000-0000-4000-8000-000000000000/issues/${issueId}/fix`, {})
  t.equal(unknown.status, 403, 'also for a project id that does not exist')
  t.equal((await stack.db.query('SELECT 1 FROM fixes')).rowCount, 0, 'nothing was started')
  t.equal(await stack.redis.xlen(stack.keys.fixes), 0)
})
