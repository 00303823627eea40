/**
 * What a digest picks (spec "What the service does" 5): error issues whose investigation or fix
 * completed in the window, and only those known problems that were published on confirmed
 * evidence and whose cause investigation completed; each once, and at most 30 a digest, the rest
 * deferred to the next window.
 */
import t from 'tap'
import { MAX_ITEMS, pickItems } from '../../../services/digester/pick.js'
import { seedEnvironment, seedTicket } from '../../helpers/investigation/friction-seed.js'
import { startTestStack, type TestStack } from '../../helpers/stack.js'
import { seededByHand } from '../../helpers/suite-invariants.js'

const START = new Date('2026-06-09T09:00:00Z')
const END = new Date('2026-06-10T09:00:00Z')
const IN = new Date('2026-06-10T03:00:00Z')
const BEFORE = new Date('2026-06-08T03:00:00Z')

async function investigation(stack: TestStack, issueId: string, state: string, at: Date): Promise<string> {
  const { rows } = await stack.db.query<{ id: string }>(
    `INSERT INTO investigations (issue_id, project_id, episode, trigger, state, lease_until, finished_at) VALUES ($1, $2, (SELECT count(*) + 1 FROM investigations WHERE issue_id = $1), 'auto', $3, $4, $4) RETURNING id`,
    [issueId, stack.projectId, state, at],
  )
  return rows[0]!.id
}

async function errorIssue(stack: TestStack, title: string, users: number): Promise<string> {
  const { rows } = await stack.db.query<{ id: string }>(`INSERT INTO issues (project_id, fingerprint, grouping_version, title, first_seen, last_seen, user_count) VALUES ($1, $2, 4, $2, now(), now(), $3) RETURNING id`, [stack.projectId, title, users])
  return rows[0]!.id
}

async function knownProblem(stack: TestStack, environment: string, options: { published: boolean; unpublished?: boolean; users: number }): Promise<{ ticketId: string; issueId: string }> {
  const seeded = await seedTicket(stack.db, stack.projectId, environment, 'investigated')
  await stack.db.query(`UPDATE tickets SET users = $2, published_at = CASE WHEN $3 THEN $5::timestamptz END, unpublished_at = CASE WHEN $4 THEN $5::timestamptz END WHERE id = $1`, [seeded.ticketId, options.users, options.published, options.unpublished ?? false, BEFORE])
  return seeded
}

t.test('error issues and published, investigated known problems completed in the window are picked; nothing else is', async (t) => {
  const stack = await startTestStack(t, { ingress: false })
  await seededByHand(stack.db)
  const environment = await seedEnvironment(stack.db, stack.projectId, 'production')

  const found = await errorIssue(stack, 'cause found', 5)
  await investigation(stack, found, 'investigated', IN)
  const outside = await errorIssue(stack, 'outside', 2)
  await investigation(stack, outside, 'insight', IN)
  const stopped = await errorIssue(stack, 'stopped', 9)
  await investigation(stack, stopped, 'needs_human', IN)
  const old = await errorIssue(stack, 'old news', 9)
  await investigation(stack, old, 'investigated', BEFORE)
  const fixed = await errorIssue(stack, 'fixed today', 3)
  const fixedRun = await investigation(stack, fixed, 'investigated', BEFORE)
  await stack.db.query(
    `INSERT INTO fixes (investigation_id, issue_id, project_id, trigger, state, lease_until, delivery, pr_number, pr_url, finished_at) VALUES ($1, $2, $3, 'auto', 'pr_draft', $4, 'draft', 12, 'https://github.com/acme/shop/pull/12', $4)`,
    [fixedRun, fixed, stack.projectId, IN],
  )

  const published = await knownProblem(stack, environment, { published: true, users: 11 })
  await investigation(stack, published.issueId, 'investigated', IN)
  const candidate = await knownProblem(stack, environment, { published: false, users: 11 })
  await investigation(stack, candidate.issueId, 'investigated', IN)
  const withdrawn = await knownProblem(stack, environment, { published: true, unpublished: true, users: 11 })
  await investigation(stack, withdrawn.issueId, 'investigated', IN)

  const { items, windowEnd } = await pickItems(stack.db, stack.projectId, START, END, 'https://svc.example.com')
  t.equal(windowEnd.toISOString(), END.toISOString(), 'the whole window: nothing deferred')
  const byIssue = new Map(items.map((item) => [item.issueId, item]))
  t.same(new Set(byIssue.keys()), new Set([found, outside, fixed, published.issueId]), 'the completed ones in the window, the published known problem among them')
  t.match(byIssue.get(found), { subject: 'issue', outcome: 'cause_found', users: 5, prUrl: '' })
  t.match(byIssue.get(outside), { outcome: 'outside_code', users: 2 })
  t.match(byIssue.get(fixed), { outcome: 'fix_draft', users: 3, prUrl: 'https://github.com/acme/shop/pull/12', links: [{ label: 'Issue' }, { label: 'Pull request', url: 'https://github.com/acme/shop/pull/12' }] })
  t.match(byIssue.get(published.issueId), { subject: 'known_problem', ticketId: published.ticketId, users: 11, links: [{ label: 'Known problem', url: `https://svc.example.com/projects/${stack.projectId}/known-problems/${published.ticketId}` }] })
  t.equal(items.length, new Set(items.map((item) => item.issueId)).size, 'each once')
})

t.test(`more than ${MAX_ITEMS} entries: the window ends before the first left out, and the rest are the next window's, each once`, async (t) => {
  const stack = await startTestStack(t, { ingress: false })
  await seededByHand(stack.db)
  const total = MAX_ITEMS + 5
  for (let i = 0; i < total; i++) {
    const issue = await errorIssue(stack, `error ${i}`, 1)
    await investigation(stack, issue, 'investigated', new Date(IN.getTime() + i * 1000))
  }
  const first = await pickItems(stack.db, stack.projectId, START, END, 'https://svc.example.com')
  t.equal(first.items.length, MAX_ITEMS)
  t.equal(first.windowEnd.toISOString(), new Date(IN.getTime() + MAX_ITEMS * 1000).toISOString(), 'ends at the first one left out')
  const second = await pickItems(stack.db, stack.projectId, first.windowEnd, new Date(END.getTime() + 86_400_000), 'https://svc.example.com')
  t.equal(second.items.length, total - MAX_ITEMS, 'the rest come next')
  const titles = [...first.items, ...second.items].map((item) => item.title)
  t.equal(new Set(titles).size, total, 'every entry exactly once over the two')
})

t.test('a merged fix\'s verdict in production reached in the window is picked (held, came back); an ignored issue never is', async (t) => {
  const stack = await startTestStack(t, { ingress: false })
  await seededByHand(stack.db)
  const merged = async (title: string, verdict: string, at: Date): Promise<string> => {
    const issue = await errorIssue(stack, title, 4)
    const run = await investigation(stack, issue, 'investigated', BEFORE)
    await stack.db.query(
      `INSERT INTO fixes (investigation_id, issue_id, project_id, trigger, state, lease_until, delivery, pr_number, pr_url, finished_at, pr_state, pr_merged_at, held_state, held_release, held_checked_at)
       VALUES ($1, $2, $3, 'auto', 'merged', $4, 'ready', 7, 'https://github.com/acme/shop/pull/7', $4, 'merged', $4, $5, '2.0.0', $6)`,
      [run, issue, stack.projectId, BEFORE, verdict, at],
    )
    return issue
  }
  const held = await merged('held', 'held', IN)
  const back = await merged('came back', 'came_back', IN)
  await merged('judged before', 'held', BEFORE)
  const ignored = await errorIssue(stack, 'ignored', 8)
  await investigation(stack, ignored, 'investigated', IN)
  await stack.db.query(`UPDATE issues SET triage = 'ignored' WHERE id = $1`, [ignored])
  const { items } = await pickItems(stack.db, stack.projectId, START, END, 'https://svc.example.com')
  const byIssue = new Map(items.map((item) => [item.issueId, item]))
  t.same(new Set(byIssue.keys()), new Set([held, back]))
  t.match(byIssue.get(held), { outcome: 'fix_held', prUrl: 'https://github.com/acme/shop/pull/7' })
  t.match(byIssue.get(back), { outcome: 'fix_came_back' })
})
