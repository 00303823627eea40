/**
 * The fix invariants checked over every test database just before it is dropped, so that after the
 * whole suite (scripts/test.mjs reads the log) no issue was left in investigated or fixing past its
 * lease and no pull request was left ready for review on a head without executed E0, E1 and E2 rows. A test that
 * writes such rows by hand (to show a page) marks its database seededByHand: it is counted, not checked.
 */
import { appendFile } from 'node:fs/promises'
import pg from 'pg'
import { READY_HEAD_RULE, READY_HEAD_SQL } from '../../services/investigator/store/invariants.js'

/** How long past its lease a fix may be at teardown: a stopping worker hands its fix back with the lease lapsed. */
const GRACE_SECONDS = 60

const RULES: Array<{ rule: string; sql: string }> = [
  {
    rule: 'issue left in investigated or fixing past its lease',
    sql: `SELECT i.id, i.status AS detail FROM issues i
           WHERE i.status IN ('investigated', 'fixing')
             AND NOT EXISTS (SELECT 1 FROM investigations v WHERE v.issue_id = i.id AND v.state IN ('queued', 'analyzing'))
             AND NOT EXISTS (SELECT 1 FROM fixes f WHERE f.issue_id = i.id AND f.state IN ('queued', 'fixing') AND f.lease_until > now() - interval '${GRACE_SECONDS} seconds')
             -- A fix pull request closed without merging puts its issue back in investigated, with nothing in flight.
             AND NOT EXISTS (SELECT 1 FROM fixes f WHERE f.issue_id = i.id AND f.state = 'closed')`,
  },
  { rule: READY_HEAD_RULE, sql: READY_HEAD_SQL },
]

/** Marks the test's database as holding rows written by hand, outside the fix lifecycle. */
export async function seededByHand(db: { query(sql: string): Promise<unknown> }): Promise<void> {
  await db.query('CREATE TABLE IF NOT EXISTS test_seeded_by_hand ()')
}

/** Checks the database and appends one line per database and per violation to SVC_INVARIANT_LOG (when the suite runner set it). */
export async function checkBeforeDrop(url: string, name: string): Promise<void> {
  const log = process.env.SVC_INVARIANT_LOG
  if (!log) return
  const client = new pg.Client({ connectionString: url })
  try {
    await client.connect()
    await appendFile(log, await check(client, name))
  } catch (error) {
    await appendFile(log, `violation ${name}: the check could not run: ${(error as Error).message}\n`)
  } finally {
    await client.end().catch(() => undefined)
  }
}

async function check(client: pg.Client, name: string): Promise<string> {
  const { rows } = await client.query<{ fixes: boolean; seeded: boolean }>("SELECT to_regclass('fixes') IS NOT NULL AS fixes, to_regclass('test_seeded_by_hand') IS NOT NULL AS seeded")
  if (!rows[0]?.fixes) return ''
  if (rows[0].seeded) return `seeded ${name}\n`
  const lines = [`checked ${name}`]
  for (const { rule, sql } of RULES) {
    for (const row of (await client.query<{ id: string; detail: string }>(sql)).rows) lines.push(`violation ${name}: ${rule}: ${row.id} (${row.detail})`)
  }
  return `${lines.join('\n')}\n`
}
