/** Reading a stored body back as an event, in a form PostgreSQL can hold. */
import type { ErrorEvent } from '../../shared/domain/event.js'
import { storableText } from '../../shared/domain/untrusted-text.js'

/**
 * The body as an event, or undefined when it is not one (the ingress validated it; a hand-made
 * entry may not be). JSON allows what PostgreSQL cannot store (NUL in text, lone surrogates in
 * jsonb), so a body that escapes either is rewritten with U+FFFD in their place; any other body is
 * kept byte for byte.
 */
export function readEvent(text: string): { event: ErrorEvent; body: string } | undefined {
  let event: ErrorEvent
  try {
    event = JSON.parse(text) as ErrorEvent
  } catch {
    return undefined
  }
  if (typeof event?.error !== 'object' || event.error === null || typeof event.context !== 'object' || event.context === null) return undefined
  if (!UNSTORABLE_ESCAPE.test(text)) return { event, body: text }
  const clean = storable(event) as ErrorEvent
  return { event: clean, body: JSON.stringify(clean) }
}

// \u0000 or a surrogate escape, not itself escaped: the only ways a parsed body can hold either.
const UNSTORABLE_ESCAPE = /(?<!\\)(?:\\\\)*\\u(?:0000|[dD][89a-fA-F])/

function storable(value: unknown): unknown {
  if (typeof value === 'string') return storableText(value)
  if (Array.isArray(value)) return value.map(storable)
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [key, inner] of Object.entries(value)) out[storable(key) as string] = storable(inner)
    return out
  }
  return value
}
