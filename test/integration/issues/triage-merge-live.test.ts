import t from 'tap'
import { mergeIssues, unmergeIssue } from '../../../services/grouper/commands/merge.js'
import { postEvent, sampleEvent, startTestStack, waitFor } from '../../helpers/stack.js'

const PERSON = { kind: 'person', id: 'p', label: 'ana@example.com' } as const

t.test('merging and undoing while both fingerprints keep arriving stores every event once and counts them where they landed', async (t) => {
  const stack = await startTestStack(t, { worker: true })
  const headers = { 'Content-Type': 'application/json', 'X-API-Key': stack.ingestKey }
  const event = (name: string, n: number) =>
    sampleEvent({ error: { type: 'Error', message: `live ${name}`, stack: `Error: live ${name}\n    at f (http://localhost:5173/assets/${name}.js:1:1)` }, user: { id: `u${n % 7}` }, session_id: `s${n % 11}` })
  let sent = 0
  const sendBoth = async (rounds: number) => {
    for (let i = 0; i < rounds; i++) {
      const answers = await Promise.all([postEvent(stack.baseUrl, event('a', sent), headers), postEvent(stack.baseUrl, event('b', sent + 1), headers)])
      for (const answer of answers) if (answer.status !== 202) throw new Error(`event answered ${answer.status}`)
      sent += 2
    }
  }
  await sendBoth(3)
  const ids = await waitFor(async () => {
    const { rows } = await stack.db.query<{ id: string; title: string }>(`SELECT id, title FROM issues WHERE title LIKE 'Error: live %' ORDER BY title`)
    return rows.length === 2 ? rows.map((r) => r.id) : undefined
  })
  const [a, b] = ids as [string, string]
  const sending = sendBoth(40)
  // Each command in its own transaction, as the pages and the project API run them: its row locks
  // hold until it commits, so a grouper batch waits for it instead of counting beside it.
  await stack.db.withTransaction((tx) => mergeIssues(tx, stack.projectId, a, [b], PERSON))
  await new Promise((resolve) => setTimeout(resolve, 200))
  await stack.db.withTransaction((tx) => unmergeIssue(tx, stack.projectId, b, PERSON))
  await new Promise((resolve) => setTimeout(resolve, 200))
  await stack.db.withTransaction((tx) => mergeIssues(tx, stack.projectId, a, [b], PERSON))
  await sending
  const stored = await waitFor(async () => {
    const { rows } = await stack.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE issue_id IN ($1, $2)`, [a, b])
    return rows[0]!.n === sent ? rows[0]!.n : undefined
  })
  t.equal(stored, sent, 'every accepted event is stored once')
  const { rows } = await stack.db.query<{ id: string; event_count: string; counted: string }>(
    `SELECT i.id, i.event_count, (SELECT count(*) FROM events e WHERE e.issue_id = i.id) AS counted FROM issues i WHERE i.id IN ($1, $2) ORDER BY i.id = $1 DESC`,
    [a, b],
  )
  t.same(rows.find((r) => r.id === a), { id: a, event_count: String(sent), counted: String(sent) }, 'the target holds and counts all of them')
  t.equal(rows.find((r) => r.id === b)!.counted, '0', 'the merged issue holds none')
  const { rows: marks } = await stack.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE issue_id = $1 AND merged_from = $2`, [a, b])
  t.equal(marks[0]!.n, sent / 2, 'every event of the merged fingerprint is marked as its')
})
