import t from 'tap'
import { judgeHeldFixes } from '../../../services/investigator/fix/held.js'
import { readFix } from '../../../services/investigator/read/fix.js'
import type { Viewer } from '../../../services/web/http/viewer.js'
import { fixSection } from '../../../services/web/issues/views/fix.js'
import { INVESTIGATOR_ENTITIES } from '../../../services/investigator/store/entities.js'
import { loadConfig } from '../../../shared/config/index.js'
import { createOrm } from '../../../shared/db/orm.js'
import { DAY, HOUR } from '../../../shared/time.js'
import { startTestStack, type TestStack } from '../../helpers/stack.js'
import { seededByHand } from '../../helpers/suite-invariants.js'

const NOW = Date.now()
const ago = (ms: number): Date => new Date(NOW - ms)
const SETTINGS = { minSessions: 100, perPass: 50 }

/** A project with an error issue whose fix's pull request was merged two days ago; answers the ids. */
async function mergedFix(stack: TestStack, name: string): Promise<{ projectId: string; issueId: string; fixId: string }> {
  const projectId = (await stack.db.query<{ id: string }>('INSERT INTO projects (name) VALUES ($1) RETURNING id', [name])).rows[0]!.id
  const issueId = await insertIssue(stack, projectId, `TypeError: ${name}`)
  const investigationId = (
    await stack.db.query<{ id: string }>(
      `INSERT INTO investigations (issue_id, project_id, episode, trigger, state, attempts, lease_until, repo, finished_at)
       VALUES ($1, $2, 1, 'auto', 'investigated', 1, now(), 'acme/shop', now()) RETURNING id`,
      [issueId, projectId],
    )
  ).rows[0]!.id
  const fixId = (
    await stack.db.query<{ id: string }>(
      `INSERT INTO fixes (investigation_id, issue_id, project_id, trigger, state, attempts, lease_until, branch, delivery, pr_number, pr_url, pr_state, pr_merged_at, finished_at)
       VALUES ($1, $2, $3, 'manual', 'merged', 1, now(), 'svc/fix', 'ready', 12, 'https://github.com/acme/shop/pull/12', 'merged', $4, now()) RETURNING id`,
      [investigationId, issueId, projectId, ago(2 * DAY)],
    )
  ).rows[0]!.id
  return { projectId, issueId, fixId }
}

async function insertIssue(stack: TestStack, projectId: string, title: string): Promise<string> {
  const { rows } = await stack.db.query<{ id: string }>(
    `INSERT INTO issues (project_id, kind, fingerprint, grouping_version, status, title, culprit, first_seen, last_seen) VALUES ($1, 'error', gen_random_uuid()::text, 4, 'pr_created', $2, '', now(), now()) RETURNING id`,
    [projectId, title],
  )
  return rows[0]!.id
}

/** A release as the grouper records it, first seen at firstSeen. */
async function release(stack: TestStack, projectId: string, name: string, firstSeen: Date): Promise<void> {
  await stack.db.query('INSERT INTO releases (project_id, name, first_seen) VALUES ($1, $2, $3)', [projectId, name, firstSeen])
}

/** Error events of issueId in release, one per session id (received at `at`). */
async function events(stack: TestStack, projectId: string, issueId: string, releaseName: string, sessions: string[], at: Date): Promise<void> {
  await stack.db.query(
    `INSERT INTO events (id, project_id, issue_id, occurred_at, received_at, release, session_id, "grouping", payload)
     SELECT gen_random_uuid(), $1, $2, $4, $4, $3, s, '{}', '{}' FROM unnest($5::text[]) AS s`,
    [projectId, issueId, releaseName, at, sessions],
  )
}

/** Session recordings of release, one per session id. */
async function recordings(stack: TestStack, projectId: string, releaseName: string, sessions: string[], at: Date): Promise<void> {
  await stack.db.query(
    `INSERT INTO recordings (project_id, id, release, session_id, started_at, last_at, received_at)
     SELECT $1, gen_random_uuid(), $2, s, $3, $3, $3 FROM unnest($4::text[]) AS s`,
    [projectId, releaseName, at, sessions],
  )
}

const sessionIds = (prefix: string, from: number, to: number): string[] => Array.from({ length: to - from }, (_, i) => `${prefix}-${from + i}`)

t.test('FIX_HELD_MIN_SESSIONS is 100 unless set, and must be a whole number', async (t) => {
  t.equal(loadConfig({}).investigations.fixHeld.minSessions, 100)
  t.equal(loadConfig({ FIX_HELD_MIN_SESSIONS: '20' }).investigations.fixHeld.minSessions, 20)
  t.throws(() => loadConfig({ FIX_HELD_MIN_SESSIONS: 'many' }), /FIX_HELD_MIN_SESSIONS/)
})

t.test('a pass judges merged fixes: held after enough sessions of the first release after the merge, came back, or still waiting', async (t) => {
  const stack = await startTestStack(t, { ingress: false })
  // Investigations and fixes below are written by hand, outside their lifecycle.
  await seededByHand(stack.db)
  const orm = await createOrm(stack.db, INVESTIGATOR_ENTITIES)
  t.teardown(() => orm.close())

  // Held: web@2.0 first seen after the merge; 60 sessions of another issue's errors and 50 recordings, 10 of them the same sessions: 100.
  const held = await mergedFix(stack, 'held')
  const neighbour = await insertIssue(stack, held.projectId, 'RangeError: elsewhere')
  await release(stack, held.projectId, 'web@1.9.0', ago(3 * DAY))
  await events(stack, held.projectId, held.issueId, 'web@1.9.0', sessionIds('old', 0, 500), ago(3 * DAY))
  await release(stack, held.projectId, 'web@2.0.0', ago(DAY))
  await events(stack, held.projectId, neighbour, 'web@2.0.0', sessionIds('s', 0, 60), ago(DAY - HOUR))
  await recordings(stack, held.projectId, 'web@2.0.0', sessionIds('s', 50, 100), ago(DAY - HOUR))

  // Came back: web@5.1 after the merge has one event of the fixed issue, in only three sessions.
  const back = await mergedFix(stack, 'back')
  await release(stack, back.projectId, 'web@5.1.0', ago(DAY))
  await events(stack, back.projectId, back.issueId, 'web@5.1.0', ['b-1'], ago(DAY - HOUR))
  await recordings(stack, back.projectId, 'web@5.1.0', ['b-1', 'b-2', 'b-3'], ago(DAY - HOUR))

  // Waiting: a release no error has shown yet (recordings only), in 99 sessions; and a release the grouper saw before the merge.
  const waiting = await mergedFix(stack, 'waiting')
  await release(stack, waiting.projectId, 'web@3.0.0', ago(3 * DAY))
  await recordings(stack, waiting.projectId, 'web@3.0.0', sessionIds('before', 0, 300), ago(HOUR))
  await recordings(stack, waiting.projectId, 'web@3.1.0', sessionIds('w', 0, 99), ago(DAY))

  t.equal(await judgeHeldFixes({ db: stack.db, settings: SETTINGS }, new Date(NOW)), 2, 'two verdicts, one still waiting')

  t.match((await readFix(orm, held.issueId))!.held, { state: 'held', release: 'web@2.0.0', sessions: 100, events: 0, verdict: 'the fix held: 0 events in 100 sessions of release web@2.0.0' })
  t.match((await readFix(orm, back.issueId))!.held, { state: 'came_back', release: 'web@5.1.0', sessions: 3, events: 1, verdict: 'the fix came back in release web@5.1.0 (1 event)' })
  t.match((await readFix(orm, waiting.issueId))!.held, { state: 'waiting', release: 'web@3.1.0', sessions: 99, events: 0 })
  const panel = (view: Awaited<ReturnType<typeof readFix>>) => String(fixSection({} as Viewer, { view, issueKind: 'error', requestPath: undefined, withheld: undefined, investigationActive: false, notice: undefined }))
  t.match(panel(await readFix(orm, held.issueId)), 'In production: <span class="badge ready">held</span> the fix held: 0 events in 100 sessions of release web@2.0.0', 'the issue page says it')
  t.match(panel(await readFix(orm, back.issueId)), '<span class="badge gap">came back</span> the fix came back in release web@5.1.0')

  const { rows: history } = await stack.db.query<{ issue_id: string; actor_kind: string; actor_id: string; action: string; to_state: string; reason: string }>(
    'SELECT issue_id, actor_kind, actor_id, action, to_state, reason FROM issue_history ORDER BY id',
  )
  t.same(history, [
    { issue_id: held.issueId, actor_kind: 'service', actor_id: 'fix-held', action: 'pull_request', to_state: 'held', reason: 'fix pull request #12 held: 0 events in 100 sessions of release web@2.0.0' },
    { issue_id: back.issueId, actor_kind: 'service', actor_id: 'fix-held', action: 'pull_request', to_state: 'came_back', reason: 'fix pull request #12 came back in release web@5.1.0 (1 event)' },
  ], 'a verdict is one history line on the issue; waiting writes none')

  // Looked at again only after a while; then one more session gives the verdict.
  await recordings(stack, waiting.projectId, 'web@3.1.0', ['w-99'], ago(HOUR))
  t.equal(await judgeHeldFixes({ db: stack.db, settings: SETTINGS }, new Date(NOW + 60_000)), 0, 'not looked at again within minutes')
  t.equal(await judgeHeldFixes({ db: stack.db, settings: SETTINGS }, new Date(NOW + HOUR)), 1)
  t.match((await readFix(orm, waiting.issueId))!.held, { state: 'held', release: 'web@3.1.0', sessions: 100 })
  t.equal(await judgeHeldFixes({ db: stack.db, settings: SETTINGS }, new Date(NOW + 2 * HOUR)), 0, 'a verdict is final')

  // A fix whose pull request is not merged has no verdict.
  await stack.db.query(`UPDATE fixes SET pr_state = 'open', state = 'pr_created', held_state = '' WHERE id = $1`, [back.fixId])
  t.equal((await readFix(orm, back.issueId))!.held, null)
})

t.test('the sweep of a running investigator judges merged fixes too', async (t) => {
  const stack = await startTestStack(t, { ingress: false, env: { SVC_SERVICES: 'investigator', FIX_HELD_MIN_SESSIONS: '3', INVESTIGATION_LEASE_SECONDS: '2' } })
  await seededByHand(stack.db)
  const fix = await mergedFix(stack, 'swept')
  await release(stack, fix.projectId, 'web@9.0.0', ago(DAY))
  await recordings(stack, fix.projectId, 'web@9.0.0', ['x-1', 'x-2', 'x-3'], ago(HOUR))
  await stack.startWorker()
  const deadline = Date.now() + 30_000
  let state = ''
  while (Date.now() < deadline && state !== 'held') {
    state = (await stack.db.query<{ held_state: string }>('SELECT held_state FROM fixes WHERE id = $1', [fix.fixId])).rows[0]!.held_state
    if (state !== 'held') await new Promise((resolve) => setTimeout(resolve, 250))
  }
  t.equal(state, 'held')
})
