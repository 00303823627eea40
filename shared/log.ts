/**
 * JSON-lines logging to stderr. Every line passes through redact(), so a key or token that slips
 * into a message or field never reaches the log.
 */
import type { LogLevel } from './config/index.js'

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 }

/** Key-shaped strings: svc_pk_/svc_sk_/svc_ak_ keys, svc_pt_ poll tokens, and anything after a bearer or token label. */
const SECRET_PATTERNS: readonly RegExp[] = [
  /svc_[a-z]k_[A-Za-z0-9]+_[A-Za-z0-9]+/g,
  /svc_pt_[A-Za-z0-9_-]+/g,
  /(bearer\s+)[^\s"',]+/gi,
  /(postgres(?:ql)?:\/\/[^:/\s]+:)[^@\s]+@/gi,
  /(redis:\/\/[^:/\s]*:)[^@\s]+@/gi,
  /https:\/\/hooks\.[a-z.]+\/[^\s"']+/gi,
]

/** Masks secrets in text. */
export function redact(text: string): string {
  let out = text
  for (const pattern of SECRET_PATTERNS) {
    out = out.replace(pattern, (_match, keep?: string) => (typeof keep === 'string' ? `${keep}[redacted]` : '[redacted]'))
  }
  return out
}

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void
  info(msg: string, fields?: Record<string, unknown>): void
  warn(msg: string, fields?: Record<string, unknown>): void
  error(msg: string, fields?: Record<string, unknown>): void
  child(fields: Record<string, unknown>): Logger
}

/** Creates a logger writing at or above level; write is injectable for tests. */
export function createLogger(
  level: LogLevel,
  base: Record<string, unknown> = {},
  write: (line: string) => void = (line) => process.stderr.write(line),
): Logger {
  const emit = (at: LogLevel, msg: string, fields?: Record<string, unknown>): void => {
    if (ORDER[at] < ORDER[level]) return
    const record = { t: new Date().toISOString(), level: at, msg, ...base, ...fields }
    write(redact(JSON.stringify(record, errorReplacer)) + '\n')
  }
  return {
    debug: (msg, fields) => emit('debug', msg, fields),
    info: (msg, fields) => emit('info', msg, fields),
    warn: (msg, fields) => emit('warn', msg, fields),
    error: (msg, fields) => emit('error', msg, fields),
    child: (fields) => createLogger(level, { ...base, ...fields }, write),
  }
}

function errorReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack }
  return value
}
