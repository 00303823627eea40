/** What the events, actors and environments tables need of one event. */
import { createHash } from 'node:crypto'
import type { ErrorEvent, EventEnvelope } from '../../shared/event.js'
import { admissionFacts } from './real-user.js'

export interface EventFacts {
  environment: string | undefined
  release: string | null
  sessionId: string | null
  userKey: string | null
  occurredAt: Date
  /** How the event counts towards admission (real-user.ts): issue_actors.seen_kinds bits. */
  seenKinds: number
  /** The event's own time when a real user's, current one; null otherwise. */
  realAt: Date | null
}

export function factsOf(envelope: EventEnvelope, event: ErrorEvent): EventFacts {
  return {
    environment: event.environment,
    release: event.release ?? null,
    sessionId: event.session_id ?? null,
    userKey: userKey(envelope, event),
    occurredAt: occurredAt(envelope, event),
    ...admissionFacts(event.context?.user_agent, event.timestamp, envelope.receivedAt),
  }
}

/** The reported time, unless the client's clock puts it in the future: then the receive time. */
function occurredAt(envelope: EventEnvelope, event: ErrorEvent): Date {
  const reported = Date.parse(event.timestamp)
  return new Date(Number.isFinite(reported) && reported <= envelope.receivedAt + 60_000 ? reported : envelope.receivedAt)
}

/** Keys computed lately: a user sends many events, and a SHA-256 per event cost a few percent of the worker's time per event. */
const userKeys = new Map<string, string>()
const MAX_USER_KEYS = 10_000

/** A stable, non-reversible per-project user identity (raw ids and emails are not kept as keys). */
function userKey(envelope: EventEnvelope, event: ErrorEvent): string | null {
  const user = event.user
  const identity = user?.id ?? user?.email ?? user?.username
  if (!identity) return null
  const plain = `${envelope.projectId}:${identity}`
  let key = userKeys.get(plain)
  if (key === undefined) {
    key = createHash('sha256').update(plain).digest('base64url').slice(0, 22)
    if (userKeys.size >= MAX_USER_KEYS) userKeys.clear()
    userKeys.set(plain, key)
  }
  return key
}
