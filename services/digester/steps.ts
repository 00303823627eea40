/**
 * The three steps of a digest, each a plain function of the digest's row that answers how the step
 * ended (job-record.ts writes it): write (window, pick, freeze, write the text), check (a few
 * minutes later: each item's written paragraph or its mechanical line, composed into the payload,
 * which is stored before any delivery and never rewritten), deliver (the payload to the project's
 * chat, with backoff; a chat that refuses the webhook is marked broken).
 */
import type { EntityManager } from '@mikro-orm/postgresql'
import type { Queryable } from '../../shared/db/index.js'
import type { ModelPlugin } from '../../shared/plugins/model-types.js'
import type { ChatPlugin } from '../../shared/plugins/types.js'
import { DAY, HOUR, MINUTE } from '../../shared/time.js'
import { checkWritten } from './text/check.js'
import { countCheckedItems } from './metrics.js'
import type { Clock } from './clock.js'
import { composeMessage, mechanicalLine } from './text/compose.js'
import type { DigestEnd, DigestRecord } from './job-record.js'
import { pickItems } from './pick.js'
import { Digest, DigestItem } from './store/entities.js'
import { writeDigest } from './text/write.js'

/** The digester's version, stored with what it wrote: the check may run on a later one (spec Versioning 7). */
export const DIGESTER_VERSION = 'digest-v1'
/** Window when no digest came before (spec: fallback 24 h), and its longest (7 days). */
const FALLBACK_WINDOW = 24 * HOUR
const LONGEST_WINDOW = 7 * DAY
/** Deliveries tried before a digest is left undelivered: 1, 2, 4, 8, 16 minutes apart (about half an hour in all). */
export const MAX_DELIVERIES = 6
const DELIVERY_BACKOFF = MINUTE
const DELIVERY_BACKOFF_CAP = 30 * MINUTE

export interface StepDeps {
  db: Queryable
  clock: Clock
  chat: ChatPlugin | undefined
  model: ModelPlugin | undefined
  baseUrl: string
  checkDelayMs: number
}

/**
 * Where a digest's window starts: the end of the latest window of the project's digests that were
 * delivered (or kept, or had nothing to say) or are on their way; without one, the start of the
 * earliest undelivered one (its items were never sent), else 24 hours back; never more than 7 days back.
 */
async function windowStartOf(db: Queryable, digest: Digest, now: Date): Promise<Date> {
  const { rows } = await db.query<{ sent_end: Date | null; lost_start: Date | null }>(
    `SELECT max(window_end) FILTER (WHERE state <> 'undelivered') AS sent_end, min(window_start) FILTER (WHERE state = 'undelivered') AS lost_start
       FROM digests WHERE project_id = $1 AND id <> $2 AND window_end IS NOT NULL`,
    [digest.projectId, digest.id],
  )
  const start = rows[0]?.sent_end ?? rows[0]?.lost_start ?? new Date(now.getTime() - FALLBACK_WINDOW)
  return new Date(Math.min(Math.max(start.getTime(), now.getTime() - LONGEST_WINDOW), now.getTime()))
}

/** Write: picks the window's entries, freezes their facts and writes the text; the check is due checkDelay later (longer on a retried write). */
export async function writeStep(deps: StepDeps, record: DigestRecord, signal: AbortSignal): Promise<DigestEnd> {
  const digest = record.digest
  const now = deps.clock.now()
  const windowStart = await windowStartOf(deps.db, digest, now)
  const { items, windowEnd } = await pickItems(deps.db, digest.projectId, windowStart, now, deps.baseUrl)
  const window = (_: EntityManager, row: Digest): void => {
    row.windowStart = windowStart
    row.windowEnd = windowEnd
    row.writtenAt = now
    row.writtenVersion = DIGESTER_VERSION
    row.writeAttempts = row.attempts
  }
  if (items.length === 0) return { state: 'empty', apply: window }
  const facts = items.map((item, i) => ({ ...item, position: i + 1, mechanical: mechanicalLine(item) }))
  const written = await writeDigest(deps.model, facts, signal)
  // A retry day (the write needed more than one attempt) leaves the check longer to come: 10, 20, 30 minutes.
  const notBefore = new Date(now.getTime() + deps.checkDelayMs * Math.max(1, record.attempt))
  return {
    state: 'queued',
    step: 'check',
    notBefore,
    apply: (tx, row) => {
      window(tx, row)
      row.writtenBy = written.by
      row.writtenText = written.text
      row.error = written.note
      for (const fact of facts) {
        const item = Object.assign(new DigestItem(), { digestId: row.id, position: fact.position, subject: fact.subject, issueId: fact.issueId, ticketId: fact.ticketId, title: fact.title, outcome: fact.outcome, users: fact.users, prUrl: fact.prUrl, links: fact.links, completedAt: fact.completedAt, mechanical: fact.mechanical })
        tx.persist(item)
      }
    },
  }
}

/** Check: every item's verdict and the payload, stored once (a check that already composed it goes straight on to delivery). */
export async function checkStep(deps: StepDeps, record: DigestRecord, signal: AbortSignal): Promise<DigestEnd> {
  if (record.digest.payload === null) {
    const items = await record.items()
    const verdicts = checkWritten(record.digest.writtenText, items)
    const { rows } = await deps.db.query<{ name: string }>('SELECT name FROM projects WHERE id = $1', [record.digest.projectId])
    const lines = items.map((item, i) => {
      const verdict = verdicts[i]!
      return verdict.ok ? verdict.text : item.mechanical
    })
    const payload = composeMessage(rows[0]?.name ?? 'your project', localDate(record.digest.localDate), lines)
    const checkedAt = deps.clock.now()
    await record.write((tx, row) => {
      items.forEach((item, i) => {
        const verdict = verdicts[i]!
        const held = tx.merge(item)
        held.checkResult = verdict.ok ? 'written' : 'mechanical'
        held.checkReason = verdict.ok ? '' : verdict.reason
      })
      row.payload = payload
      row.checkedAt = checkedAt
    })
    const written = verdicts.filter((verdict) => verdict.ok).length
    countCheckedItems(written, verdicts.length - written)
  }
  return deliverStep(deps, record, signal)
}

/** Deliver: the stored payload, as it is, to the project's chat; kept on the dashboard when there is none. */
export async function deliverStep(deps: StepDeps, record: DigestRecord, signal: AbortSignal): Promise<DigestEnd> {
  const digest = record.digest
  const { rows } = await deps.db.query<{ url: string; connected: boolean }>(
    `SELECT chat_webhook_url AS url, chat_connected_at IS NOT NULL AND chat_broken_at IS NULL AS connected FROM projects WHERE id = $1`,
    [digest.projectId],
  )
  const chat = rows[0]
  if (!deps.chat || !chat || !chat.connected || chat.url === '') return { state: 'kept' }
  if (signal.aborted) throw new Error('the digester is stopping')
  const result = await deps.chat.send(chat.url, { text: digest.payload! })
  const attempts = digest.deliveryAttempts + 1
  const counted = (_: EntityManager, row: Digest): void => {
    row.deliveryAttempts = attempts
  }
  if (result.ok) {
    const at = deps.clock.now()
    return { state: 'delivered', apply: (tx, row) => {
      counted(tx, row)
      row.deliveredAt = at
      row.error = ''
    } }
  }
  if (result.rejected) {
    // Only the webhook that refused is marked: a person may have connected a new one meanwhile.
    await deps.db.query(`UPDATE projects SET chat_broken_at = now(), chat_error = $3 WHERE id = $1 AND chat_webhook_url = $2`, [digest.projectId, chat.url, result.error.slice(0, 500)])
    return { state: 'undelivered', code: 'chat_rejected', message: result.error, apply: counted }
  }
  if (attempts >= MAX_DELIVERIES) return { state: 'undelivered', code: 'chat_unavailable', message: `${attempts} deliveries failed; the last: ${result.error}`, apply: counted }
  const backoff = Math.min(DELIVERY_BACKOFF * 2 ** (attempts - 1), DELIVERY_BACKOFF_CAP)
  return {
    state: 'queued',
    step: 'deliver',
    notBefore: new Date(deps.clock.now().getTime() + backoff),
    apply: (tx, row) => {
      counted(tx, row)
      row.error = result.error.slice(0, 2000)
    },
  }
}

/** A date column as YYYY-MM-DD, however the driver handed it over. */
export function localDate(value: string | Date): string {
  return typeof value === 'string' ? value.slice(0, 10) : value.toISOString().slice(0, 10)
}
