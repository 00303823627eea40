/**
 * The digest as a kind of leased job (shared/jobs/): a digest's row is the job, each claim runs
 * its current step (steps.ts), and a step either ends the digest or hands it on to the next one,
 * due later on the digester's clock. A step that fails is retried by the runtime; a write or check
 * that fails on its last attempt leaves the digest undelivered with the failure's code (its items
 * return in the next day's window).
 */
import type { Redis } from 'ioredis'
import { isDatabaseOutage } from '../../shared/db/index.js'
import { jobStream, type DueTable, type JobKind } from '../../shared/jobs/index.js'
import type { StreamKeys } from '../../shared/redis.js'
import { claimDigest, DIGEST_ACTIVE_STATES, type DigestEnd, type DigestRecord } from './job-record.js'
import { checkStep, deliverStep, writeStep, type StepDeps } from './steps.js'
import { Digest } from './store/entities.js'

/** The digest stream's one message: { digest: <id> }. */
export const DIGEST_ENTRY = jobStream('digest')

/** Digests as rows dispatched when due: a step waits for its not_before on the digester's clock. */
export function digestsDue(keys: StreamKeys): DueTable {
  return { table: 'digests', queuedState: 'queued', stream: keys.digests, entryOf: () => DIGEST_ENTRY }
}

export interface DigestJobDeps extends StepDeps {
  redis: Redis
  keys: StreamKeys
}

/** The job kind of digests, for the runner and the lapsed-lease sweep. */
export function digestJob(deps: DigestJobDeps): JobKind<Digest, DigestRecord, Digest, DigestEnd> {
  return {
    what: 'digest',
    entity: Digest,
    activeStates: DIGEST_ACTIVE_STATES,
    runningState: 'running',
    queuedState: 'queued',
    claim: claimDigest,
    stopped: (code, message) => ({ state: 'undelivered', code, message }),
    prepare(row) {
      // An entry that came early (a stale or repeated one): the sweep dispatches the step once it is due.
      if (row.notBefore.getTime() > deps.clock.now().getTime()) return Promise.resolve(undefined)
      return Promise.resolve({ subject: row })
    },
    work(record, row, _grant, signal) {
      switch (row.step) {
        case 'write':
          return writeStep(deps, record, signal)
        case 'check':
          return checkStep(deps, record, signal)
        case 'deliver':
          return deliverStep(deps, record, signal)
      }
    },
    requeued: () => Promise.resolve(),
    dispatch: (id) => DIGEST_ENTRY.dispatch(deps.redis, deps.keys.digests, id),
    failureCode: (error) => (isDatabaseOutage(error) ? 'database_unavailable' : 'digest_failed'),
  }
}
