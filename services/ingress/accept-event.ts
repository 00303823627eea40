/** The ingestion use case, free of HTTP: authenticate, validate, queue. */
import type { Logger } from '../../shared/log.js'
import { isRedisConnectionError } from '../../shared/redis.js'
import { IngestError, type IngestErrorCode } from './errors.js'
import { storedEventId } from './event-id.js'
import type { BacklogMonitor } from './backlog-monitor.js'
import type { EventQueue } from './event-queue.js'
import type { KeyAuthenticator } from '../../shared/key-auth.js'
import type { ErrorEvent } from '../../shared/domain/event.js'
import { checkEvent, parseEvent } from './validate-event.js'

export interface IngestDeps {
  auth: KeyAuthenticator
  queue: EventQueue
  backlog: Pick<BacklogMonitor, 'full'>
  log: Logger
}

/** A verified ingest key: its id, its project and the project's own cap (null: the default). */
export interface IngestKey {
  keyId: string
  projectId: string
  projectEventsPerMinute: number | null
  /** The project's number in its Sentry DSN. */
  dsnNumber: string
}

/** Seconds a client waits before trying again when its key cannot be checked (the database is restarting). */
export const KEY_CHECK_RETRY_AFTER = 5

/** Checks a presented key is an ingest key; throws IngestError otherwise, worded by messages where a route gives its own. */
export async function requireIngestKey(deps: IngestDeps, token: string | undefined, messages: Readonly<Partial<Record<IngestErrorCode, string>>> = {}): Promise<IngestKey> {
  const result = await deps.auth.authenticate(token, 'ingest')
  if (!result.ok) throw new IngestError(result.code, { message: messages[result.code], retryAfter: result.code === 'key_check_unavailable' ? KEY_CHECK_RETRY_AFTER : undefined })
  return result
}

/** Accepts one event body for a key; resolves with the event id once it is on the stream. */
export function acceptEvent(deps: IngestDeps, key: IngestKey, text: string): Promise<string> {
  return new Promise((resolve, reject) => acceptEventThen(deps, key, text, (error, id) => (error ? reject(error) : resolve(id))))
}

/**
 * acceptEvent without promises, for the events route's hot path: throws IngestError at once for a
 * body it refuses (invalid_json, invalid_event, backlog_full); otherwise done is called once Redis
 * answered, with the id, or with the IngestError to answer (unavailable, rate_limited,
 * project_quota_exceeded). done must not throw.
 */
export function acceptEventThen(deps: IngestDeps, key: IngestKey, text: string, done: (error: IngestError | undefined, id: string) => void): void {
  submitEvent(deps, key, parseEvent(text), text, done)
}

/**
 * acceptEvent for an event built here rather than received as text (a translated Sentry event):
 * checked against the schema as an object, so its text is written once and never parsed back.
 */
export function acceptBuiltEvent(deps: IngestDeps, key: IngestKey, built: unknown): Promise<string> {
  return new Promise((resolve, reject) => {
    const event = checkEvent(built)
    submitEvent(deps, key, event, JSON.stringify(event), (error, id) => (error ? reject(error) : resolve(id)))
  })
}

/** Queues an event that passed the schema, with its text as the stream keeps it; see acceptEventThen. */
function submitEvent(deps: IngestDeps, key: IngestKey, event: ErrorEvent, text: string, done: (error: IngestError | undefined, id: string) => void): void {
  if (deps.backlog.full) throw new IngestError('backlog_full', { retryAfter: 5 })
  const id = storedEventId(key.projectId, event.event_id)
  deps.queue.submit({ id, projectId: key.projectId, keyId: key.keyId, receivedAt: Date.now(), body: text }, key.projectEventsPerMinute, (error, result) => {
    if (error) {
      // Redis being down is logged once by its connection's watch, not once per event.
      if (!isRedisConnectionError(error)) deps.log.error('events stream write failed', { error })
      done(new IngestError('unavailable', { retryAfter: 5 }), id)
    } else if (!result!.ok) done(new IngestError(result!.reason === 'project_quota' ? 'project_quota_exceeded' : 'rate_limited', { retryAfter: result!.retryAfter }), id)
    else done(undefined, id)
  })
}
