/**
 * Parses and validates an event body with the schema compiled once at load. A failure names the
 * first field at fault in dotted form (error.type), so the sender knows what to fix.
 */
import { Ajv, type ErrorObject } from 'ajv'
import { readFileSync } from 'node:fs'
import type { ErrorEvent } from '../../shared/domain/event.js'
import { IngestError } from './errors.js'

const schema = JSON.parse(readFileSync(new URL('../../schemas/error-event.json', import.meta.url), 'utf8')) as object
// unicode: false counts maxLength in UTF-16 units (String#length) instead of walking every string
// for code points: as a size cap that is at least as strict, and the walk was a tenth of the
// ingress's time on 2 KB events.
// Ajv marks the option deprecated at every compile; that one notice is dropped, nothing else.
const logger = {
  log: console.log,
  warn: (...args: unknown[]) => (String(args[0]).includes('option unicode') ? undefined : console.warn(...args)),
  error: console.error,
}
const validate = new Ajv({ allErrors: false, strict: true, unicode: false, logger }).compile<ErrorEvent>(schema)

/** Returns the event, or throws IngestError invalid_json / invalid_event. */
export function parseEvent(body: string): ErrorEvent {
  let value: unknown
  try {
    value = JSON.parse(body)
  } catch {
    throw new IngestError('invalid_json')
  }
  return checkEvent(value)
}

/** Returns a value already parsed (a translated Sentry event) as an event, or throws IngestError invalid_event. */
export function checkEvent(value: unknown): ErrorEvent {
  if (validate(value)) return value
  const error = validate.errors?.[0]
  const { field, message } = describe(error)
  throw new IngestError('invalid_event', { field, message })
}

function describe(error: ErrorObject | undefined): { field: string; message: string } {
  if (!error) return { field: '', message: 'The event does not match the schema.' }
  const path = error.instancePath.slice(1).replaceAll('/', '.')
  if (error.keyword === 'required') {
    const missing = (error.params as { missingProperty: string }).missingProperty
    const field = path ? `${path}.${missing}` : missing
    return { field, message: `Field ${field} is required. Add it and send the event again.` }
  }
  const field = path || '(body)'
  const what = error.keyword === 'pattern' ? 'has the wrong format' : (error.message ?? 'is invalid')
  const hint = field === 'timestamp' ? ' (ISO 8601 UTC, e.g. 2026-01-01T12:00:00.000Z)' : ''
  return { field, message: `Field ${field} ${what}${hint}. Fix it and send the event again.` }
}
