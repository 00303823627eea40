import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import type { EventEnvelope } from '../../../shared/domain/event.js'
import { storeEventBatch } from '../../../services/grouper/store-events.js'
import { childEnv } from '../../helpers/env.js'
import { sampleEvent, startTestStack, type TestStack } from '../../helpers/stack.js'

const SVC = fileURLToPath(new URL('../../../bin/svc.js', import.meta.url))

/** Two bugs: the one the project had before its upgrade, and one it never had. */
const OLD_BUG = {}
const NEW_BUG = { error: { type: 'RangeError', message: 'Invalid currency code : euro', stack: 'RangeError: Invalid currency code : euro\n    at localTotal (http://localhost:5173/assets/index-4f3a9c2b.js:7:91)' } }

function envelopes(stack: TestStack): (bug: Record<string, unknown>) => EventEnvelope {
  let n = 0
  return (bug) => ({ id: `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`, projectId: stack.projectId, keyId: 'seede2e00001', receivedAt: Date.now(), body: JSON.stringify(sampleEvent({ session_id: `s${n}`, ...bug })) })
}

interface IssueRow {
  id: string
  grouping_version: number
  event_count: number
}

async function issues(stack: TestStack): Promise<IssueRow[]> {
  return (await stack.db.query<IssueRow>('SELECT id, grouping_version, event_count::int FROM issues ORDER BY first_seen, grouping_version')).rows
}

t.test('svc grouping-upgrade moves a project to version 4, and its open issue goes on receiving its bug', async (t) => {
  const stack = await startTestStack(t, { ingress: false })
  await stack.db.query('UPDATE projects SET grouping_version = 3 WHERE id = $1', [stack.projectId])
  const envelope = envelopes(stack)
  await storeEventBatch(stack.db, [envelope(OLD_BUG), envelope(OLD_BUG)])
  const [before] = await issues(stack)
  t.same(await issues(stack), [{ id: before!.id, grouping_version: 3, event_count: 2 }], 'a project on version 3 groups with it')

  const run = (...args: string[]) => spawnSync(process.execPath, [SVC, 'grouping-upgrade', ...args], { env: childEnv({ DATABASE_URL: stack.databaseUrl, LOG_LEVEL: 'silent' }), encoding: 'utf8' })
  const moved = run('--project', stack.projectId)
  t.equal(moved.status, 0, moved.stderr)
  t.match(moved.stdout, /now groups new events with version 4 \(was 3\)/)
  t.match(moved.stdout, /Its 1 open issue\(s\) keep their events: a bug that goes on happening lands in the issue it has/, 'it says what happens to open issues')
  t.match(run('--project', stack.projectId).stdout, /already groups with version 4/, 'running it again changes nothing')
  const { rows: project } = await stack.db.query('SELECT grouping_version, grouping_previous_version FROM projects WHERE id = $1', [stack.projectId])
  t.same(project[0], { grouping_version: 4, grouping_previous_version: 3 }, 'a second run keeps the version it left')
  t.match(run('--project', '11111111-1111-4111-8111-111111111111').stderr, /no project 11111111/)
  t.equal(run('--project', 'nope').status, 2)

  await storeEventBatch(stack.db, [envelope(OLD_BUG)])
  await storeEventBatch(stack.db, [envelope(OLD_BUG), envelope(NEW_BUG)])
  const after = await issues(stack)
  t.same(after[0], { id: before!.id, grouping_version: 3, event_count: 4 }, 'the bug that goes on happening counts in its version 3 issue')
  t.equal(after.length, 2, 'and opens no issue beside it')
  t.same({ ...after[1], id: undefined }, { id: undefined, grouping_version: 4, event_count: 1 }, 'a new bug opens a version 4 issue')
  const { rows: stored } = await stack.db.query<{ issue_id: string; version: number }>(`SELECT issue_id, (grouping->>'version')::int AS version FROM events WHERE payload->'error'->>'type' = 'TypeError' ORDER BY id`)
  t.same(stored.map((e) => [e.issue_id === before!.id, e.version]), [[true, 3], [true, 3], [true, 4], [true, 4]], "the bug's events after the upgrade are grouped with version 4 and stored in the old issue")
  const { rows: aliases } = await stack.db.query('SELECT issue_id, grouping_version FROM issue_fingerprint_aliases')
  t.same(aliases, [{ issue_id: before!.id, grouping_version: 4 }], 'its version 4 fingerprint is one alias of the old issue')
})

t.test('after an upgrade, a bug whose old issue is closed opens a new issue instead of reviving it', async (t) => {
  const stack = await startTestStack(t, { ingress: false })
  await stack.db.query('UPDATE projects SET grouping_version = 3 WHERE id = $1', [stack.projectId])
  const envelope = envelopes(stack)
  await storeEventBatch(stack.db, [envelope(OLD_BUG)])
  await stack.db.query(`UPDATE issues SET status = 'resolved'`)
  await stack.db.query('UPDATE projects SET grouping_version = 4, grouping_previous_version = 3 WHERE id = $1', [stack.projectId])
  await storeEventBatch(stack.db, [envelope(OLD_BUG)])
  t.same((await issues(stack)).map((i) => [i.grouping_version, i.event_count]), [[3, 1], [4, 1]], 'the resolved issue keeps its one event; the bug is back in a version 4 issue')
  t.equal((await stack.db.query('SELECT 1 FROM issue_fingerprint_aliases')).rowCount, 0, 'no alias names a closed issue')
})

t.test('a project moved twice (2, then 3, then 4) still finds the issue its first version opened', async (t) => {
  const stack = await startTestStack(t, { ingress: false })
  await stack.db.query('UPDATE projects SET grouping_version = 2 WHERE id = $1', [stack.projectId])
  const envelope = envelopes(stack)
  await storeEventBatch(stack.db, [envelope(OLD_BUG)])
  await stack.db.query('UPDATE projects SET grouping_version = 3, grouping_previous_version = 2 WHERE id = $1', [stack.projectId])
  await storeEventBatch(stack.db, [envelope(OLD_BUG)])
  await stack.db.query('UPDATE projects SET grouping_version = 4, grouping_previous_version = 3 WHERE id = $1', [stack.projectId])
  await storeEventBatch(stack.db, [envelope(OLD_BUG)])
  t.same((await issues(stack)).map((i) => [i.grouping_version, i.event_count]), [[2, 3]], 'one issue, of version 2, with all three events')
  const { rows } = await stack.db.query<{ grouping_version: number }>('SELECT grouping_version FROM issue_fingerprint_aliases ORDER BY grouping_version')
  t.same(rows.map((r) => r.grouping_version), [3, 4], "version 3's fingerprint, then version 4's, are aliases of it")
})

t.test('concurrent batches of an upgraded project record one alias and land in one issue', async (t) => {
  const stack = await startTestStack(t, { ingress: false })
  await stack.db.query('UPDATE projects SET grouping_version = 3 WHERE id = $1', [stack.projectId])
  const envelope = envelopes(stack)
  await storeEventBatch(stack.db, [envelope(OLD_BUG)])
  await stack.db.query('UPDATE projects SET grouping_version = 4, grouping_previous_version = 3 WHERE id = $1', [stack.projectId])
  await Promise.all(Array.from({ length: 6 }, () => storeEventBatch(stack.db, [envelope(OLD_BUG), envelope(OLD_BUG)])))
  t.same((await issues(stack)).map((i) => [i.grouping_version, i.event_count]), [[3, 13]])
  t.equal((await stack.db.query('SELECT 1 FROM issue_fingerprint_aliases')).rowCount, 1)
})
