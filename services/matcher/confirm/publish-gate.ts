/**
 * The publish gate (docs/known-problems.md, "Checks and the publish gate"), run after each batch
 * of checks: publishes a ticket its checks bear out (it goes from candidate to awaiting_approval,
 * with its issue; a person, or the project's friction_auto_investigate, sends it on to the
 * investigator: services/investigator/known-problems.ts), unpublishes one they no longer do, and
 * asks whether a published ticket shares one fix with a near published one of its environment. It
 * holds the environment's lock, as matching does, so two gates of an environment never ask
 * crossing questions at once.
 */
import type { Db, Queryable } from '../../../shared/db/index.js'
import { setIssueStatus } from '../../grouper/commands/issue-status.js'
import { ENVIRONMENT_LOCK_SQL } from '../match/environment-lock.js'
import type { TicketState } from '../store/entities.js'
import { PUBLISH_MIN_CONFIRMED, PUBLISH_MIN_SHARE, PUBLISH_MIN_USERS, SAME_FIX_MAX_DISTANCE, UNPUBLISH_BELOW_SHARE, UNPUBLISH_MIN_CHECKS } from './thresholds.js'

/** Matching's environment lock with pg's placeholders: the same key, so the gate and matching wait for each other. */
const LOCK_ENVIRONMENT_SQL = ENVIRONMENT_LOCK_SQL.replace('?', '$1').replace('?', '$2')

/** What the gate weighs. */
export interface GateCounts {
  confirmed: number
  refuted: number
  inconclusive: number
  /** Distinct users among the ticket's matched recordings. */
  users: number
  /** Published now (published_at set, unpublished_at not). */
  published: boolean
}

export type GateAction = 'publish' | 'unpublish' | 'none'

/** The confirmed share of the conclusive checks; undefined without any. */
export function confirmedShare(counts: Pick<GateCounts, 'confirmed' | 'refuted'>): number | undefined {
  const conclusive = counts.confirmed + counts.refuted
  return conclusive === 0 ? undefined : counts.confirmed / conclusive
}

/** What the gate does with a ticket of these counts. */
export function gateAction(counts: GateCounts): GateAction {
  const share = confirmedShare(counts)
  if (!counts.published) {
    const ready = counts.confirmed >= PUBLISH_MIN_CONFIRMED && counts.users >= PUBLISH_MIN_USERS && share !== undefined && share >= PUBLISH_MIN_SHARE
    return ready ? 'publish' : 'none'
  }
  const checks = counts.confirmed + counts.refuted + counts.inconclusive
  return checks >= UNPUBLISH_MIN_CHECKS && share !== undefined && share < UNPUBLISH_BELOW_SHARE ? 'unpublish' : 'none'
}

/** What the gate did. */
export interface GateOutcome {
  ticketId: string
  action: GateAction
  /** Published after the gate. */
  published: boolean
  state: TicketState
  share: number | undefined
  /** The published ticket this one was just asked about (same_fix = 'asked'), and how far apart they are. */
  askedSameFix: { ticketId: string; distance: number } | undefined
}

export interface GateDeps {
  db: Db
  now?: () => Date
}

interface GateRow {
  project_id: string
  issue_id: string
  environment_id: string | null
  state: TicketState
  checks_confirmed: number
  checks_refuted: number
  checks_inconclusive: number
  published: boolean
  same_fix: string | null
  has_vector: boolean
}

/** Runs the gate on one ticket in its own transaction; undefined when the ticket is gone. */
export async function publishGate(deps: GateDeps, ticketId: string): Promise<GateOutcome | undefined> {
  const at = (deps.now ?? (() => new Date()))()
  return deps.db.withTransaction((client) => runGate(client, ticketId, at))
}

/**
 * The gate inside an open transaction: the environment's lock, then the ticket's row. An archived
 * ticket is left as it is. Publishing moves only a candidate to awaiting_approval and unpublishing
 * only an awaiting_approval one back (one the investigator took keeps its state; its unpublished_at
 * says the checks no longer bear it out).
 */
export async function runGate(tx: Queryable, ticketId: string, at: Date): Promise<GateOutcome | undefined> {
  const { rows: keys } = await tx.query<{ project_id: string; environment_id: string | null }>('SELECT project_id, environment_id FROM tickets WHERE id = $1', [ticketId])
  if (!keys[0]) return undefined
  await tx.query(LOCK_ENVIRONMENT_SQL, [keys[0].project_id, keys[0].environment_id])
  const { rows } = await tx.query<GateRow>(
    `SELECT project_id, issue_id, environment_id, state, checks_confirmed, checks_refuted, checks_inconclusive,
            published_at IS NOT NULL AND unpublished_at IS NULL AS published, same_fix, embedding IS NOT NULL AS has_vector
     FROM tickets WHERE id = $1 FOR UPDATE`,
    [ticketId],
  )
  const row = rows[0]
  if (!row) return undefined
  const users = await distinctUsers(tx, ticketId)
  const counts: GateCounts = { confirmed: row.checks_confirmed, refuted: row.checks_refuted, inconclusive: row.checks_inconclusive, users, published: row.published }
  const action = row.state === 'archived' ? 'none' : gateAction(counts)
  let state = row.state
  if (action === 'publish') {
    if (state === 'candidate') state = 'awaiting_approval'
    await tx.query('UPDATE tickets SET published_at = $2, unpublished_at = NULL, state = $3, updated_at = $2, version = version + 1 WHERE id = $1', [ticketId, at, state])
  } else if (action === 'unpublish') {
    if (state === 'awaiting_approval') state = 'candidate'
    await tx.query('UPDATE tickets SET unpublished_at = $2, state = $3, updated_at = $2, version = version + 1 WHERE id = $1', [ticketId, at, state])
  }
  // The friction-kind issue's status mirrors its ticket's state (matching wrote candidate): the grouper's to write.
  if (state !== row.state) await setIssueStatus(tx, row.issue_id, state)
  const published = action === 'publish' || (row.published && action !== 'unpublish')
  // Without a vector there is nothing to compare: the gate never asks (spec, vocabulary 7).
  const askedSameFix = published && row.has_vector && row.same_fix === null && state !== 'archived' ? await askSameFix(tx, ticketId, at) : undefined
  return { ticketId, action, published, state, share: confirmedShare(counts), askedSameFix }
}

async function distinctUsers(tx: Queryable, ticketId: string): Promise<number> {
  const { rows } = await tx.query<{ n: number }>('SELECT count(DISTINCT user_key)::int AS n FROM ticket_matches WHERE ticket_id = $1', [ticketId])
  return rows[0]!.n
}

/**
 * The nearest other published ticket of the environment (vectors of the same model and input) within
 * SAME_FIX_MAX_DISTANCE, unless that one was asked about this one already: recorded on this ticket
 * as the question (same_fix_ticket_id, same_fix = 'asked') for a person or the investigator.
 */
async function askSameFix(tx: Queryable, ticketId: string, at: Date): Promise<{ ticketId: string; distance: number } | undefined> {
  const { rows } = await tx.query<{ id: string; distance: number }>(
    `SELECT o.id, o.embedding <=> t.embedding AS distance
     FROM tickets t JOIN tickets o
       ON o.project_id = t.project_id AND o.environment_id IS NOT DISTINCT FROM t.environment_id AND o.id <> t.id AND o.embedding_model = t.embedding_model AND o.embedding_of = t.embedding_of
     WHERE t.id = $1 AND o.embedding IS NOT NULL AND o.published_at IS NOT NULL AND o.unpublished_at IS NULL
       AND o.state <> 'archived' AND o.same_fix_ticket_id IS DISTINCT FROM t.id
     ORDER BY distance, o.id
     LIMIT 1`,
    [ticketId],
  )
  const nearest = rows[0]
  if (!nearest || !(nearest.distance <= SAME_FIX_MAX_DISTANCE)) return undefined
  await tx.query("UPDATE tickets SET same_fix_ticket_id = $2, same_fix = 'asked', updated_at = $3, version = version + 1 WHERE id = $1", [ticketId, nearest.id, at])
  return { ticketId: nearest.id, distance: nearest.distance }
}
