/**
 * The investigation invariants, checked over the database (`svc check-investigations`, and the
 * test helper every investigation test ends with):
 * - every finished investigation has exactly one outcome, of its own state's kind;
 * - no investigation in flight has an outcome;
 * - none stays queued or analyzing past its lease by more than the sweeper's grace, and none has
 *   used more attempts than allowed;
 * - every stop has a reason code, a message and a remediation; every investigated outcome cites
 *   at least one verified line;
 * - the status is its latest investigation's state.
 * Read through the ORM's connection (one way to these tables).
 */
import type { EntityManager } from '@mikro-orm/postgresql'
import type { Orm } from '../../../shared/orm.js'

export interface Violation {
  rule: string
  investigation: string
  detail: string
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
    rule: "issue status is not its latest investigation's state",
    sql: `SELECT v.id, 'issue ' || i.status || ', investigation ' || v.state AS detail FROM investigations v JOIN issues i ON i.id = v.issue_id
           WHERE v.episode = (SELECT max(w.episode) FROM investigations w WHERE w.issue_id = v.issue_id) AND i.status <> v.state`,
  },
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
