/** What the events, actors and environments tables need of one event. */
import type { ErrorEvent, EventEnvelope } from '../../shared/domain/event.js'
import { userKey } from '../../shared/domain/user-key.js'
import { admissionFacts } from './real-user.js'

export interface EventFacts {
  environment: string | undefined
  release: string | null
  sessionId: string | null
  userKey: string | null
  /** The session recording the event happened in (docs/recordings.md), when it names one as a UUID. */
  recordingId: string | null
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
    userKey: userKey(envelope.projectId, event.user),
    recordingId: typeof event.recording_id === 'string' && UUID.test(event.recording_id) ? event.recording_id : null,
    occurredAt: occurredAt(envelope, event),
    ...admissionFacts(event.context?.user_agent, event.timestamp, envelope.receivedAt),
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** The reported time, unless the client's clock puts it in the future: then the receive time. */
function occurredAt(envelope: EventEnvelope, event: ErrorEvent): Date {
  const reported = Date.parse(event.timestamp)
  return new Date(Number.isFinite(reported) && reported <= envelope.receivedAt + 60_000 ? reported : envelope.receivedAt)
}
