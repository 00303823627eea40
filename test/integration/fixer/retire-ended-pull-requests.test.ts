/**
 * scripts/retire-friction-buckets.sql reads a fix pull request's real state (migration 083): a
 * friction group whose pull request is still open is kept; one whose pull request was merged or
 * closed (the follower ended its fix) is archived like any other finished group.
 */
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { createDb } from '../../../shared/db/index.js'
import { migrate } from '../../../shared/db/migrate.js'
import { createTestDatabase } from '../../helpers/stack.js'
import { seededByHand } from '../../helpers/suite-invariants.js'

const RETIRE = fileURLToPath(new URL('../../../scripts/retire-friction-buckets.sql', import.meta.url))

t.test('a friction group in pr_created is kept while its pull request is open, archived once it was merged or closed', async (t) => {
  const url = await createTestDatabase(t)
  const db = createDb(url, { max: 1 })
  t.teardown(() => db.close())
  await migrate(db)
  await seededByHand(db)
  const { rows: projects } = await db.query<{ id: string }>(`INSERT INTO projects (name) VALUES ('Shop') RETURNING id`)
  const project = projects[0]!.id
  const group = async (name: string, fixState: string): Promise<string> => {
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO issues (project_id, kind, fingerprint, grouping_version, status, title, first_seen, last_seen) VALUES ($1, 'friction', $2, 4, 'pr_created', $2, now(), now()) RETURNING id`,
      [project, name],
    )
    const issue = rows[0]!.id
    const { rows: runs } = await db.query<{ id: string }>(
      `INSERT INTO investigations (issue_id, project_id, episode, trigger, state, lease_until, finished_at) VALUES ($1, $2, 1, 'manual', 'investigated', now(), now()) RETURNING id`,
      [issue, project],
    )
    await db.query(
      `INSERT INTO fixes (investigation_id, issue_id, project_id, trigger, state, lease_until, repo, branch, delivery, pr_number, pr_url, pr_state, finished_at)
       VALUES ($1, $2, $3, 'manual', $4, now(), 'acme/shop', 'svc/fix', 'ready', 7, 'https://github.com/acme/shop/pull/7', CASE WHEN $4 IN ('merged', 'closed') THEN $4 ELSE 'open' END, now())`,
      [runs[0]!.id, issue, project, fixState],
    )
    return issue
  }
  const open = await group('open pull request', 'pr_created')
  const merged = await group('merged pull request', 'merged')
  const closed = await group('closed pull request', 'closed')
  const out = execFileSync('psql', ['-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-f', RETIRE, url], { encoding: 'utf8' })
  t.equal(out.trim().split('\n')[0], '2', 'two groups archived')
  const { rows } = await db.query<{ id: string; status: string; previous_status: string | null }>('SELECT id, status, previous_status FROM issues')
  const status = new Map(rows.map((r) => [r.id, [r.status, r.previous_status]]))
  t.same(status.get(open), ['pr_created', null], 'its pull request is open: kept')
  t.same(status.get(merged), ['archived', 'pr_created'], 'merged: archived')
  t.same(status.get(closed), ['archived', 'pr_created'], 'closed: archived')
})
