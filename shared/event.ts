/** The error event as the SDK sends it (schemas/error-event.json) and as it travels the events stream. */

export interface ErrorEvent {
  timestamp: string
  error: { type: string; message: string; stack: string }
  breadcrumbs: unknown[]
  context: { url: string; user_agent: string }
  sdk_version: string
  platform: string
  environment?: string
  release?: string
  session_id?: string
  user?: { id?: string; email?: string; username?: string }
  /** File URL → debug id of the stamped files in the stack: their maps are found by id. */
  debug_ids?: Record<string, string>
  [extra: string]: unknown
}

/** One accepted event on the events stream: who sent it, when, and the body exactly as received. */
export interface EventEnvelope {
  /** Event id handed back in the 202 answer; the grouper's idempotency key. */
  id: string
  projectId: string
  keyId: string
  /** Milliseconds since the epoch at the ingress. */
  receivedAt: number
  /** The validated JSON body, verbatim (decompressed). */
  body: string
}

/** Names of an envelope's stream entry fields, in the order envelopeValues gives their values. */
export const ENVELOPE_FIELDS = Object.freeze(['id', 'project', 'key', 'at', 'body'] as const)

/** An envelope's field values, in ENVELOPE_FIELDS order. */
export function envelopeValues(envelope: EventEnvelope): string[] {
  return [envelope.id, envelope.projectId, envelope.keyId, String(envelope.receivedAt), envelope.body]
}

/** Stream entry fields of an envelope as name, value pairs; flat strings so XADD takes them as they are. */
export function envelopeFields(envelope: EventEnvelope): string[] {
  const values = envelopeValues(envelope)
  return ENVELOPE_FIELDS.flatMap((name, i) => [name, values[i]!])
}

/** Reads an envelope back from stream entry fields; returns undefined when a field is missing. */
export function envelopeFromFields(fields: Record<string, string>): EventEnvelope | undefined {
  const { id, project, key, at, body } = fields
  if (!id || !project || !key || !at || body === undefined) return undefined
  return { id, projectId: project, keyId: key, receivedAt: Number(at), body }
}
