import { randomUUID } from 'node:crypto'
import t from 'tap'
import { mergeIssues, unmergeIssue } from '../../../services/grouper/commands/merge.js'
import { triageIssues } from '../../../services/grouper/commands/triage.js'
import { issueHistory, issueTriage } from '../../../services/grouper/read/triage.js'
import { storeEventBatch } from '../../../services/grouper/store-events.js'
import { compareReleases } from '../../../shared/domain/releases.js'
import { sampleEvent, startTestStack, type TestStack } from '../../helpers/stack.js'

const PERSON = { kind: 'person', id: 'u-1', label: 'ana@example.com' } as const

/** Stores one event per release given (null: none) for the error named message; answers its issue id. */
async function send(stack: TestStack, message: string, releases: Array<string | null>, options: { receivedAt?: number; user?: string } = {}): Promise<string> {
  const envelopes = releases.map((release) => ({
    id: randomUUID(),
    projectId: stack.projectId,
    keyId: 'seede2e00001',
    receivedAt: options.receivedAt ?? Date.now(),
    body: JSON.stringify(sampleEvent({ error: { type: 'Error', message, stack: `Error: ${message}\n    at f (http://localhost:5173/assets/${message.replace(/\W/g, '')}.js:1:1)` }, ...(release ? { release } : {}), ...(options.user ? { user: { id: options.user } } : {}) })),
  }))
  const outcome = await storeEventBatch(stack.db, envelopes)
  return outcome.changes[0]!.issueId
}

async function triageOf(stack: TestStack, id: string) {
  return (await issueTriage(stack.db, stack.projectId, id))!
}

t.test('releases order by semver where both parse, else by first seen', async (t) => {
  const early = new Date(1000)
  const late = new Date(2000)
  t.ok(compareReleases({ name: 'web@1.10.0', firstSeen: early }, { name: 'web@1.9.0', firstSeen: late }) > 0, 'semver, whatever came first')
  t.ok(compareReleases({ name: 'v2.0.0', firstSeen: early }, { name: '2.0.0-rc.1', firstSeen: late }) > 0, 'a release after its candidate')
  t.ok(compareReleases({ name: 'abc123', firstSeen: late }, { name: '1.0.0', firstSeen: early }) > 0, 'not semver: by first seen')
})

t.test('resolved now: an event received later regresses it; one received before the resolve does not', async (t) => {
  const stack = await startTestStack(t, { ingress: false })
  const id = await send(stack, 'now-mode', ['1.0.0'])
  const before = Date.now() - 1000
  t.same((await triageIssues(stack.db, stack.projectId, [id], { action: 'resolve', mode: 'now' }, PERSON, 'fixed by hand')).map((m) => m.to), ['resolved'])
  await send(stack, 'now-mode', ['1.0.0'], { receivedAt: before })
  t.equal((await triageOf(stack, id)).triage, 'resolved', 'an event that was waiting in the stream when it was resolved does not regress it')
  await send(stack, 'now-mode', ['1.0.0'])
  const after = await triageOf(stack, id)
  t.equal(after.triage, 'open')
  t.ok(after.regressedAt, 'marked as a regression')
  t.equal(after.regressedRelease, '1.0.0')
  const history = await issueHistory(stack.db, id)
  t.same(history.map((h) => [h.action, h.actorKind]), [['regress', 'service'], ['resolve', 'person']])
  t.equal(history[1]!.reason, 'fixed by hand')
  t.equal(history[1]!.actorLabel, 'ana@example.com')
})

t.test('resolved in the next release: the same or an older release does not regress it, a later one does', async (t) => {
  const stack = await startTestStack(t, { ingress: false })
  const id = await send(stack, 'next-mode', ['1.1.0'])
  await send(stack, 'other', ['1.2.0'])
  await triageIssues(stack.db, stack.projectId, [id], { action: 'resolve', mode: 'next_release' }, PERSON)
  const resolved = await triageOf(stack, id)
  t.equal(resolved.resolvedRelease, '1.2.0', 'the project\'s newest release when it was resolved')
  await send(stack, 'next-mode', ['1.2.0', '1.0.0', null])
  t.equal((await triageOf(stack, id)).triage, 'resolved', 'the current, an older and no release leave it resolved')
  await send(stack, 'next-mode', ['1.3.0'])
  const back = await triageOf(stack, id)
  t.equal(back.triage, 'open')
  t.equal(back.regressedRelease, '1.3.0')
})

t.test('ignored until more events or users, or until a time, comes back when it is met; for good never', async (t) => {
  const stack = await startTestStack(t, { ingress: false })
  const byEvents = await send(stack, 'ignore-events', [null])
  await triageIssues(stack.db, stack.projectId, [byEvents], { action: 'ignore', moreEvents: 3 }, PERSON)
  await send(stack, 'ignore-events', [null, null])
  t.equal((await triageOf(stack, byEvents)).triage, 'ignored', 'two more events of three')
  await send(stack, 'ignore-events', [null])
  t.equal((await triageOf(stack, byEvents)).triage, 'open', 'the third brings it back')
  t.equal((await issueHistory(stack.db, byEvents))[0]!.action, 'unignore')

  const byUsers = await send(stack, 'ignore-users', [null], { user: 'a' })
  await triageIssues(stack.db, stack.projectId, [byUsers], { action: 'ignore', moreUsers: 1 }, PERSON)
  await send(stack, 'ignore-users', [null], { user: 'a' })
  t.equal((await triageOf(stack, byUsers)).triage, 'ignored', 'the same user again')
  await send(stack, 'ignore-users', [null], { user: 'b' })
  t.equal((await triageOf(stack, byUsers)).triage, 'open', 'a new user')

  const byTime = await send(stack, 'ignore-time', [null])
  await triageIssues(stack.db, stack.projectId, [byTime], { action: 'ignore', until: new Date(Date.now() + 60_000) }, PERSON)
  await send(stack, 'ignore-time', [null])
  t.equal((await triageOf(stack, byTime)).triage, 'ignored', 'before the time')
  await send(stack, 'ignore-time', [null], { receivedAt: Date.now() + 120_000 })
  t.equal((await triageOf(stack, byTime)).triage, 'open', 'after it')

  const forGood = await send(stack, 'ignore-forever', [null])
  await triageIssues(stack.db, stack.projectId, [forGood], { action: 'ignore' }, PERSON)
  await send(stack, 'ignore-forever', [null, null, null], { user: 'z' })
  t.equal((await triageOf(stack, forGood)).triage, 'ignored')
  t.same(await triageIssues(stack.db, stack.projectId, [forGood], { action: 'reopen' }, PERSON), [{ id: forGood, from: 'ignored', to: 'open' }])
  t.same(await triageIssues(stack.db, randomUUID(), [forGood], { action: 'resolve', mode: 'now' }, PERSON), [], 'another project\'s issue is left alone')
})

t.test('a merge sends both fingerprints\' events to the target with counts combined; undo moves them back', async (t) => {
  const stack = await startTestStack(t, { ingress: false })
  const target = await send(stack, 'merge-a', [null, null], { user: 'a' })
  const source = await send(stack, 'merge-b', [null], { user: 'b' })
  t.same(await stack.db.withTransaction((tx) => mergeIssues(tx, stack.projectId, target, [source], PERSON, 'one bug')), [source])
  const counts = async (id: string) => (await stack.db.query<{ event_count: string; user_count: number }>('SELECT event_count, user_count FROM issues WHERE id = $1', [id])).rows[0]!
  t.same(await counts(target), { event_count: '3', user_count: 2 })
  const routed = await send(stack, 'merge-b', [null], { user: 'c' })
  t.equal(routed, target, 'a new event of the merged fingerprint lands in the target')
  t.same(await counts(target), { event_count: '4', user_count: 3 })
  t.same((await triageOf(stack, source)).mergedInto?.id, target)
  t.same((await triageOf(stack, target)).mergedFrom.map((m) => m.id), [source])
  await t.rejects(stack.db.withTransaction((tx) => mergeIssues(tx, stack.projectId, source, [target], PERSON)), { code: 'merge_invalid' }, 'not into a merged issue')
  t.ok(await stack.db.withTransaction((tx) => unmergeIssue(tx, stack.projectId, source, PERSON)))
  // Users and sessions the merged fingerprint brought while merged stay counted on the target (docs/issues.md, "Merge").
  t.same(await counts(target), { event_count: '2', user_count: 2 })
  t.same(await counts(source), { event_count: '2', user_count: 1 }, 'its events, those sent since included, are back')
  t.equal(await send(stack, 'merge-b', [null]), source, 'its fingerprint lands in it again')
  t.same((await issueHistory(stack.db, target)).map((h) => h.action), ['unmerged', 'merge'])
})
