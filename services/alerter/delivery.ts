/**
 * An alert delivery as a kind of leased job (shared/jobs/): the row is claimed (which ends its
 * gathering: new firings open the next delivery), its message composed once from the firings it
 * folds and stored before the first post, then posted. A post the chat takes ends it delivered; a
 * webhook the chat refuses marks the project's chat broken (the digester's command) and ends it
 * broken; an outage (5xx, unreachable) hands it back, due after a backoff that doubles up to a cap,
 * until giveUpMs after its first post, when it is marked failed.
 */
import type { EntityManager } from '@mikro-orm/postgresql'
import type { Redis } from 'ioredis'
import type { AlertSettings } from '../../shared/config/alerts.js'
import { isDatabaseOutage, type Queryable } from '../../shared/db/index.js'
import { jobStream, LeasedJobRecord, leasedClaim, type DueTable, type JobKind } from '../../shared/jobs/index.js'
import type { ChatPlugin } from '../../shared/plugins/types.js'
import type { StreamKeys } from '../../shared/redis.js'
import { markChatBroken } from '../digester/commands.js'
import { issueAlertFacts } from '../grouper/read/alert-facts.js'
import { composeAlert, type FiringLine } from './message.js'
import { AlertDelivery, type DeliveryState } from './store/entities.js'

/** The alerts stream's one message: { alert: <delivery id> }. */
export const ALERT_ENTRY = jobStream('alert')

/** Deliveries as rows dispatched when due: the gather delay's end, then each retry's time. */
export function deliveriesDue(keys: StreamKeys): DueTable {
  return { table: 'alert_deliveries', queuedState: 'pending', stream: keys.alerts, entryOf: () => ALERT_ENTRY }
}

/** How a run ended: back to pending, due later (an outage), or an end state. */
export type DeliveryEnd =
  | { state: 'pending'; notBefore: Date; error: string; sent: boolean }
  | { state: Exclude<DeliveryState, 'pending' | 'sending'>; error: string; sent: boolean }

const FINAL_STATES = ['delivered', 'failed', 'broken'] as const

export class DeliveryRecord extends LeasedJobRecord<AlertDelivery> {
  protected override readonly queuedState: string = 'pending'

  get delivery(): AlertDelivery {
    return this.row
  }

  /** Stores the composed message once, before any post, so every retry sends the same text. */
  storeMessage(message: string): Promise<void> {
    return this.write((_, row) => {
      row.message = message
      row.updatedAt = new Date()
    })
  }

  /** Ends the run once: a post counted, and the end state or the next try's time. */
  finish(end: DeliveryEnd, _durationMs: number): Promise<void> {
    return this.write((_: EntityManager, row) => {
      const now = new Date()
      if (end.sent) {
        row.sends += 1
        row.firstSentAt ??= now
      }
      row.state = end.state
      row.error = end.error.slice(0, 2000)
      row.updatedAt = now
      row.leaseUntil = null
      if (end.state === 'delivered') row.deliveredAt = now
      if (end.state === 'pending') {
        row.notBefore = end.notBefore
        // A wait through an outage is not a failed run: the next claim starts its attempts afresh.
        row.attempts = 0
      }
    })
  }
}

const claimDelivery = leasedClaim({ entity: AlertDelivery, finalStates: FINAL_STATES, runningState: 'sending', record: DeliveryRecord })

export interface DeliveryDeps {
  db: Queryable
  redis: Redis
  keys: StreamKeys
  chat: ChatPlugin | undefined
  baseUrl: string
  settings: AlertSettings
}

/** The job kind of alert deliveries, for the runner and the lapsed-lease sweep. */
export function deliveryJob(deps: DeliveryDeps): JobKind<AlertDelivery, DeliveryRecord, AlertDelivery, DeliveryEnd> {
  return {
    what: 'alert delivery',
    entity: AlertDelivery,
    activeStates: ['pending', 'sending'],
    runningState: 'sending',
    queuedState: 'pending',
    claim: claimDelivery,
    stopped: (code, message) => ({ state: 'failed', error: `${code}: ${message}`, sent: false }),
    prepare(row) {
      // An early entry (a repeated dispatch): the sweep dispatches the row once it is due.
      if (row.notBefore.getTime() > Date.now()) return Promise.resolve(undefined)
      return Promise.resolve({ subject: row })
    },
    work: (record, _row, _grant, signal) => deliver(deps, record, signal),
    requeued: () => Promise.resolve(),
    dispatch: (id) => ALERT_ENTRY.dispatch(deps.redis, deps.keys.alerts, id),
    failureCode: (error) => (isDatabaseOutage(error) ? 'database_unavailable' : 'alert_failed'),
  }
}

/** One run: the message (composed at the first claim), the chat's state, the post and its outcome. */
async function deliver(deps: DeliveryDeps, record: DeliveryRecord, signal: AbortSignal): Promise<DeliveryEnd> {
  const delivery = record.delivery
  const { rows } = await deps.db.query<{ name: string; url: string; connected: boolean }>(
    `SELECT name, chat_webhook_url AS url, chat_connected_at IS NOT NULL AND chat_broken_at IS NULL AS connected FROM projects WHERE id = $1`,
    [delivery.projectId],
  )
  const project = rows[0]
  if (delivery.message === null) {
    const message = await composeFor(deps, delivery.id, project?.name ?? 'your project')
    // Its firings all gone (their issues deleted with their project's data): nothing to say.
    if (message === undefined) return { state: 'failed', error: 'no firing is left to deliver', sent: false }
    await record.storeMessage(message)
  }
  // A chat disconnected or found broken since the firings: they stay recorded, nothing is posted.
  if (!deps.chat || !project || !project.connected || project.url === '') return { state: 'broken', error: 'the project\'s chat is not connected, or is broken', sent: false }
  if (signal.aborted) throw new Error('the alerter is stopping')
  const result = await deps.chat.send(project.url, { text: record.delivery.message! })
  if (result.ok) return { state: 'delivered', error: '', sent: true }
  if (result.rejected) {
    await markChatBroken(deps.db, delivery.projectId, project.url, result.error)
    return { state: 'broken', error: result.error, sent: true }
  }
  const firstSent = delivery.firstSentAt?.getTime() ?? Date.now()
  if (Date.now() - firstSent >= deps.settings.giveUpMs) return { state: 'failed', error: `${delivery.sends + 1} posts failed; the last: ${result.error}`, sent: true }
  const wait = Math.min(deps.settings.retryBaseMs * 2 ** delivery.sends, deps.settings.retryCapMs)
  return { state: 'pending', notBefore: new Date(Date.now() + wait), error: result.error, sent: true }
}

/** The message of a delivery's firings, in the order they fired. */
async function composeFor(deps: DeliveryDeps, deliveryId: string, projectName: string): Promise<string | undefined> {
  const { rows } = await deps.db.query<{ project_id: string; issue_id: string; kind: FiringLine['kind']; detail: FiringLine['detail'] }>(
    'SELECT project_id, issue_id, kind, detail FROM alert_firings WHERE delivery_id = $1 ORDER BY fired_at, issue_id, kind',
    [deliveryId],
  )
  if (rows.length === 0) return undefined
  const facts = await issueAlertFacts(deps.db, rows.map((row) => row.issue_id))
  const lines = rows.map((row) => ({ projectId: row.project_id, issueId: row.issue_id, kind: row.kind, detail: row.detail, title: facts.get(row.issue_id)?.title ?? '' }))
  return composeAlert(projectName, deps.baseUrl, lines)
}
