/**
 * The investigation invariants, checked over the database (`svc check-investigations`, and the
 * test helper every investigation test ends with):
 * - every finished investigation has exactly one outcome, of its own state's kind;
 * - no investigation in flight has an outcome;
 * - none stays queued or analyzing past its lease by more than the sweeper's grace, and none has
 *   used more attempts than allowed;
 * - every stop has a reason code, a message and a remediation; every investigated outcome cites
 *   at least one verified line;
 * - the issue's status is its latest investigation's state, or after an investigated outcome its
 *   latest fix's; no investigated investigation is left with nothing after it;
 * - no fix stays queued or fixing past its lease; every fix stop has its reason; and no fix left
 *   its pull request ready for review on a head without executed, met E0, E1 and E2 rows
 *   (open-pulls.ts checks the same against the code host's pull requests as they are now).
 * Read through the ORM's connection (one way to these tables).
 */
import type { EntityManager } from '@mikro-orm/postgresql'
import type { Orm } from '../../../shared/db/orm.js'

export interface Violation {
  rule: string
  investigation: string
  detail: string
}

/** The rule a ready pull request is held to (also checked over every test database after the suite). */
export const READY_HEAD_RULE = 'ready-for-review pull request on a head without executed E0, E1 and E2'

/**
 * Fixes whose pull request was left ready for review with what this fix pushed, lacking any of the
 * delivering attempt's executed and met checks: the build passed (E0), the suite ran with no
 * baseline pass failing (E1), the regression test red on the baseline and green with the fix (E2).
 */
/** What fix f (its delivering attempt) lacks to stand ready for review: '' when nothing. */
const READY_LACKS = `concat_ws(', ',
    CASE WHEN NOT EXISTS (SELECT 1 FROM fix_evidence e WHERE e.fix_id = f.id AND e.attempt = f.attempts AND e.tier = 'E0' AND e.phase = 'fix' AND e.met AND e.exit_code = 0) THEN 'E0' END,
    CASE WHEN NOT EXISTS (SELECT 1 FROM fix_evidence e WHERE e.fix_id = f.id AND e.attempt = f.attempts AND e.tier = 'E1' AND e.phase = 'fix' AND e.met) THEN 'E1' END,
    CASE WHEN NOT EXISTS (SELECT 1 FROM fix_evidence e WHERE e.fix_id = f.id AND e.attempt = f.attempts AND e.tier = 'E2' AND e.phase = 'baseline' AND e.met AND e.exit_code <> 0) THEN 'E2 red on the baseline' END,
    CASE WHEN NOT EXISTS (SELECT 1 FROM fix_evidence e WHERE e.fix_id = f.id AND e.attempt = f.attempts AND e.tier = 'E2' AND e.phase = 'fix' AND e.met AND e.exit_code = 0) THEN 'E2 green with the fix' END)`

/**
 * Fixes that left their pull request ready for review with what they pushed, lacking any of the
 * delivering attempt's executed and met checks: the build passed (E0), the suite ran with no
 * baseline pass failing (E1), the regression test red on the baseline and green with the fix (E2).
 */
export const READY_HEAD_SQL = `SELECT id, 'pull request ' || pr || ' lacks ' || lacks AS detail FROM (
    SELECT f.id, f.pr_number AS pr, ${READY_LACKS} AS lacks FROM fixes f WHERE f.pr_ready OR f.delivery = 'ready') ready WHERE lacks <> ''`

/** The fix (of issueId) that pushed head, and what it lacks to stand ready for review ('' when nothing); undefined when no fix pushed head. */
export async function readyLacks(em: EntityManager, issueId: string, head: string): Promise<{ fixId: string; lacks: string } | undefined> {
  const rows = await em.execute<Array<{ id: string; lacks: string }>>(`SELECT f.id, ${READY_LACKS} AS lacks FROM fixes f WHERE f.issue_id = ? AND f.head_sha = ? ORDER BY f.created_at DESC LIMIT 1`, [issueId, head])
  return rows[0] && { fixId: rows[0].id, lacks: rows[0].lacks }
}

const CHECKS: Array<{ rule: string; sql: string }> = [
  {
    rule: 'finished without exactly one outcome of its kind',
    sql: `SELECT v.id, v.state || ' has ' || count(o.investigation_id) || ' outcome(s)' AS detail
            FROM investigations v LEFT JOIN investigation_outcomes o ON o.investigation_id = v.id AND o.kind = v.state
           WHERE v.state IN ('investigated', 'insight', 'needs_human') GROUP BY v.id, v.state HAVING count(o.investigation_id) <> 1`,
  },
  {
    rule: 'in flight with an outcome',
    sql: `SELECT v.id, v.state || ' with outcome ' || o.kind AS detail FROM investigations v JOIN investigation_outcomes o ON o.investigation_id = v.id
           WHERE v.state IN ('queued', 'analyzing')`,
  },
  {
    rule: 'in flight past its lease',
    sql: `SELECT v.id, v.state || ' since lease ended at ' || v.lease_until AS detail FROM investigations v
           WHERE v.state IN ('queued', 'analyzing') AND v.lease_until < now() - ? * interval '1 millisecond'`,
  },
  {
    rule: 'more attempts than allowed',
    sql: `SELECT v.id, v.attempts || ' attempts' AS detail FROM investigations v WHERE v.attempts > ?`,
  },
  {
    rule: 'stop without reason, message or remediation',
    sql: `SELECT o.investigation_id AS id, 'code=' || o.reason_code AS detail FROM investigation_outcomes o
           WHERE o.kind = 'needs_human' AND (o.reason_code = '' OR o.reason_message = '' OR o.remediation = '')`,
  },
  {
    rule: 'investigated without a cited line',
    sql: `SELECT o.investigation_id AS id, 'no citations' AS detail FROM investigation_outcomes o
           WHERE o.kind = 'investigated' AND NOT EXISTS (SELECT 1 FROM investigation_citations c WHERE c.investigation_id = o.investigation_id)`,
  },
  {
    rule: "issue status is not its latest investigation's or fix's state",
    // After an investigated outcome the issue follows its latest fix: investigated while it is queued, then fixing and the fix's end;
    // its pull request merged leaves the delivery's status, closed unmerged puts it back to investigated.
    // An archived issue (a friction group retired, or its known problem reset) keeps its last runs as they ended.
    sql: `SELECT v.id, 'issue ' || i.status || ', investigation ' || v.state || coalesce(', fix ' || f.state, '') AS detail
            FROM investigations v JOIN issues i ON i.id = v.issue_id
            LEFT JOIN LATERAL (SELECT x.state FROM fixes x WHERE x.investigation_id = v.id ORDER BY x.created_at DESC LIMIT 1) f ON true
           WHERE v.episode = (SELECT max(w.episode) FROM investigations w WHERE w.issue_id = v.issue_id)
             AND i.status <> 'archived'
             AND i.status <> CASE WHEN v.state = 'investigated' AND f.state IS NOT NULL THEN (CASE WHEN f.state IN ('queued', 'closed') THEN 'investigated' WHEN f.state = 'merged' AND i.status IN ('pr_draft', 'pr_created') THEN i.status ELSE f.state END) ELSE v.state END`,
  },
  {
    rule: 'investigated with nothing after it',
    sql: `SELECT v.id, 'no fix queued, running or ended' AS detail FROM investigations v
           WHERE v.state = 'investigated' AND NOT EXISTS (SELECT 1 FROM fixes f WHERE f.investigation_id = v.id)
             AND NOT EXISTS (SELECT 1 FROM fixes f WHERE f.issue_id = v.issue_id AND f.created_at > v.finished_at)
             AND NOT EXISTS (SELECT 1 FROM fixes f WHERE f.issue_id = v.issue_id AND f.state IN ('queued', 'fixing'))`,
  },
  {
    rule: 'fix in flight past its lease',
    sql: `SELECT f.id, f.state || ' since lease ended at ' || f.lease_until AS detail FROM fixes f
           WHERE f.state IN ('queued', 'fixing') AND f.lease_until < now() - ? * interval '1 millisecond'`,
  },
  {
    rule: 'fix stop without reason, message or remediation',
    sql: `SELECT f.id, 'code=' || f.reason_code AS detail FROM fixes f WHERE f.state = 'needs_human' AND (f.reason_code = '' OR f.reason_message = '' OR f.remediation = '')`,
  },
  { rule: READY_HEAD_RULE, sql: READY_HEAD_SQL },
]

/** Every violation found; empty when the database keeps the invariants. graceMs: how long past its lease a row may wait for the sweeper. */
export async function checkInvestigations(orm: Orm, options: { graceMs: number; maxAttempts: number }): Promise<Violation[]> {
  const em = orm.em.fork() as EntityManager
  const violations: Violation[] = []
  for (const check of CHECKS) {
    const params = check.sql.includes('lease_until <') ? [options.graceMs] : check.sql.includes('attempts >') ? [options.maxAttempts] : []
    const rows = await em.execute<Array<{ id: string; detail: string }>>(check.sql, params)
    for (const row of rows) violations.push({ rule: check.rule, investigation: row.id, detail: row.detail })
  }
  return violations
}
