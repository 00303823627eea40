/**
 * Confirmation (docs/known-problems.md, "Checks and the publish gate"): once a ticket's matched
 * recordings reach checks_next_at, a batch of up to CHECKS_PER_BATCH closed recordings of its
 * screens not checked for it yet (its matched ones included) is checked for its friction, each
 * check written with its counter in one transaction under the project's daily budget; then the
 * batch moves checks_next_at on and the publish gate runs. What the job kind `confirm` calls; its claim, lease and retries are the actor's.
 */
import { DEFAULT_PROJECT_DAILY_CHECKS } from '../../../shared/config/friction.js'
import { isDatabaseOutage } from '../../../shared/db/index.js'
import { ObjectStoreUnavailable } from '../../../shared/object-store.js'
import { walkChunks } from '../../recorder/read/chunks.js'
import { RecordingObserver } from '../friction/observe.js'
import { scanRecording, type ScanDeps } from '../friction/scan-recording.js'
import { advanceChecksNextAt, checksUsed, getChunks, getRecordingFindings, getRecordingsToCheck, getTicketForChecks, isScanned, recordCheck, type TicketForChecks } from './check-store.js'
import { publishGate, type GateOutcome } from './publish-gate.js'
import { CHECKS_EVERY, CHECKS_PER_BATCH } from './thresholds.js'
import { verdictOf, type Verdict } from './verdict.js'

export interface ConfirmDeps extends ScanDeps {
  /** The clock: a check's utc_day and the budget's day are its UTC date. */
  now?: () => Date
  /** Checks a project may run in one UTC day: the matcher passes FRICTION_PROJECT_DAILY_CHECKS (DEFAULT_PROJECT_DAILY_CHECKS when left out). */
  dailyBudget?: number
}

/**
 * - checked: the batch ran (it may have found fewer than CHECKS_PER_BATCH recordings to check);
 * - no_recordings: no recording is there to check yet; checks_next_at stays, so the ticket's next
 *   match (matched still ≥ checks_next_at) asks again;
 * - not_due: the ticket's matched count has not reached checks_next_at; nothing was done;
 * - budget_exhausted: the project's checks for the UTC day ran out; the rest waits for resumeAt;
 * - store_down: the object store could not be read; the rest waits for a retry;
 * - archived, gone: the ticket is archived or deleted; nothing was done.
 */
export type ConfirmStatus = 'checked' | 'no_recordings' | 'not_due' | 'budget_exhausted' | 'store_down' | 'archived' | 'gone'

export interface ConfirmOutcome {
  ticketId: string
  status: ConfirmStatus
  /** The checks this run recorded, in order. */
  checks: Array<{ recordingId: string; verdict: Verdict }>
  /** Recordings left unchecked this time (another worker scanning one, or its reading failed): eligible again later. */
  passedBy: string[]
  /** The ticket's checks_next_at after the run (undefined when it is gone). */
  checksNextAt: number | undefined
  /** Another batch is due already (matched ≥ checks_next_at): queue another confirm job. */
  dueAgain: boolean
  /** Match jobs queued by scanning recordings the scan had not read yet: the caller dispatches them. */
  matchJobs: string[]
  budget: { utcDay: string; used: number; limit: number }
  /** With budget_exhausted: the next UTC midnight, when checks may go on. */
  resumeAt: Date | undefined
  /** With store_down: the store's error. */
  storeDown: string | undefined
  /** What the publish gate did after the batch (undefined when no batch ran). */
  gate: GateOutcome | undefined
}

/** The UTC date of at, as ticket_checks.utc_day keeps it. */
export function utcDayOf(at: Date): string {
  return at.toISOString().slice(0, 10)
}

/** The next UTC midnight after at. */
export function nextUtcDay(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1))
}

/**
 * Runs ticketId's due batch of checks and the publish gate after it. Throws a database outage for
 * the caller to wait out; a failure reading one recording is logged and that recording passed by.
 */
export async function confirmTicket(deps: ConfirmDeps, ticketId: string): Promise<ConfirmOutcome> {
  const at = (deps.now ?? (() => new Date()))()
  const limit = checkedBudget(deps.dailyBudget ?? DEFAULT_PROJECT_DAILY_CHECKS)
  const utcDay = utcDayOf(at)
  const outcome: ConfirmOutcome = { ticketId, status: 'checked', checks: [], passedBy: [], checksNextAt: undefined, dueAgain: false, matchJobs: [], budget: { utcDay, used: 0, limit }, resumeAt: undefined, storeDown: undefined, gate: undefined }
  const ticket = await getTicketForChecks(deps.db, ticketId)
  if (!ticket) return { ...outcome, status: 'gone' }
  outcome.checksNextAt = ticket.checksNextAt
  if (ticket.state === 'archived') return { ...outcome, status: 'archived' }
  if (ticket.matched < ticket.checksNextAt) return { ...outcome, status: 'not_due' }
  outcome.budget.used = await checksUsed(deps.db, ticket.projectId, utcDay)
  if (outcome.budget.used >= limit) return { ...outcome, status: 'budget_exhausted', resumeAt: nextUtcDay(at) }

  for (const recordingId of await getRecordingsToCheck(deps.db, ticket, CHECKS_PER_BATCH)) {
    let verdict: Verdict | undefined
    try {
      verdict = await judgeRecording(deps, ticket, recordingId, outcome.matchJobs)
    } catch (error) {
      if (error instanceof ObjectStoreUnavailable) {
        outcome.status = 'store_down'
        outcome.storeDown = error.message
        deps.log.warn('object store unavailable: the ticket\'s checks wait for a retry', { ticket: ticketId, error: error.message })
        break
      }
      if (isDatabaseOutage(error)) throw error
      deps.log.error('checking a recording for a known problem failed; it stays eligible for a later batch', { ticket: ticketId, recording: recordingId, error })
    }
    if (verdict === undefined) {
      outcome.passedBy.push(recordingId)
      continue
    }
    const write = await recordCheck(deps.db, { ticket, recordingId, verdict, at, utcDay, budget: limit })
    if (write === 'gone') return { ...outcome, status: 'gone', checksNextAt: undefined }
    if (write === 'budget_exhausted') {
      outcome.status = 'budget_exhausted'
      outcome.resumeAt = nextUtcDay(at)
      break
    }
    if (write === 'recorded') {
      outcome.checks.push({ recordingId, verdict })
      outcome.budget.used++
    }
  }

  if (outcome.status === 'checked' && outcome.checks.length === 0 && outcome.passedBy.length === 0) outcome.status = 'no_recordings'
  const advanced = outcome.status === 'checked' && (await advanceChecksNextAt(deps.db, ticketId, ticket.checksNextAt, CHECKS_EVERY, at)) !== undefined
  outcome.gate = await publishGate({ db: deps.db, now: () => at }, ticketId)
  const after = await getTicketForChecks(deps.db, ticketId)
  outcome.checksNextAt = after?.checksNextAt
  outcome.dueAgain = advanced && after !== undefined && after.state !== 'archived' && after.matched >= after.checksNextAt
  return outcome
}

/**
 * The verdict on one recording, as a batch takes it (the matching corpus checks with it too);
 * undefined when it cannot be judged now (another worker holds it for its scan). A recording the scan has not read yet is scanned first, by the scan itself, so
 * its findings are stored once and matched like any other; the chunks are read again, with the
 * detectors' observe pass, only when its findings do not confirm the ticket.
 */
export async function judgeRecording(deps: ConfirmDeps, ticket: TicketForChecks, recordingId: string, matchJobs: string[]): Promise<Verdict | undefined> {
  if (!(await isScanned(deps.db, ticket.projectId, recordingId))) {
    const scan = await scanRecording(deps, ticket.projectId, recordingId)
    if (scan.status === 'scanned') matchJobs.push(...scan.matchJobs)
    else if (!(await isScanned(deps.db, ticket.projectId, recordingId))) return undefined
  }
  const findings = await getRecordingFindings(deps.db, ticket.id, ticket.projectId, recordingId)
  const fromFindings = verdictOf(ticket, findings, undefined)
  if (fromFindings === 'confirmed') return fromFindings
  const observer = new RecordingObserver()
  await walkChunks(deps.objects, await getChunks(deps.db, ticket.projectId, recordingId), (events) => observer.add(events))
  return verdictOf(ticket, findings, observer.finish())
}

function checkedBudget(budget: number): number {
  if (!Number.isInteger(budget) || budget < 0) throw new RangeError(`the daily check budget must be a whole number of checks, 0 or more, not ${budget}`)
  return budget
}
