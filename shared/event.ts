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

/** Stream entry fields of an envelope; flat strings so XADD takes them without a second encoding. */
export function envelopeFields(envelope: EventEnvelope): string[] {
  return ['id', envelope.id, 'project', envelope.projectId, 'key', envelope.keyId, 'at', String(envelope.receivedAt), 'body', envelope.body]
}

/** Reads an envelope back from stream entry fields; returns undefined when a field is missing. */
export function envelopeFromFields(fields: Record<string, string>): EventEnvelope | undefined {
  const { id, project, key, at, body } = fields
  if (!id || !project || !key || !at || body === undefined) return undefined
  return { id, projectId: project, keyId: key, receivedAt: Number(at), body }
}
