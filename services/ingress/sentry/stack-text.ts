/**
 * A Sentry exception's frames as the error.stack text our own SDK sends: V8's form, the throw site
 * first. Sentry lists frames oldest first (the throw site last), so they are reversed; the grouper
 * then parses them as it parses our SDK's stacks, and the same bug gets the same fingerprint from
 * either SDK. Frame text is the sender's: newlines and parentheses that would make one frame read
 * as two, or shift a location, are replaced.
 */

/** The grouper reads at most this many frames (grouping/stack-parse.ts MAX_FRAMES). */
const MAX_FRAMES = 250
const MAX_FUNCTION = 512
const MAX_FILE = 2048
/** The schema's cap on error.stack. */
const MAX_STACK = 262_144

/** The frame fields read from a Sentry stack frame. */
interface SentryFrame {
  function?: unknown
  abs_path?: unknown
  filename?: unknown
  lineno?: unknown
  colno?: unknown
}

/** error.stack text for an exception: "Type: message" and one "    at fn (file:line:col)" line per frame. */
export function stackText(type: string, message: string, frames: unknown): string {
  if (!Array.isArray(frames) || frames.length === 0) return ''
  const lines = [message ? `${type}: ${message}` : type]
  let size = lines[0]!.length
  for (let i = frames.length - 1; i >= 0 && lines.length <= MAX_FRAMES; i--) {
    const line = frameLine(frames[i] as SentryFrame | null)
    if (line === undefined) continue
    size += line.length + 1
    if (size > MAX_STACK) break
    lines.push(line)
  }
  return lines.length > 1 ? lines.join('\n') : ''
}

function frameLine(frame: SentryFrame | null): string | undefined {
  if (typeof frame !== 'object' || frame === null) return undefined
  const file = clean(text(frame.abs_path) || text(frame.filename), MAX_FILE)
  // "?" is the Sentry SDKs' name for an anonymous function.
  const name = clean(text(frame.function) === '?' ? '' : text(frame.function), MAX_FUNCTION)
  const line = position(frame.lineno)
  const column = position(frame.colno)
  const location = `${file || '<anonymous>'}${line ? `:${line}${column ? `:${column}` : ''}` : ''}`
  return name ? `    at ${name} (${location})` : `    at ${location}`
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : ''
}

function position(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : undefined
}

/** One line of text, without the characters that delimit a V8 frame's parts. */
function clean(value: string, max: number): string {
  return value.slice(0, max).replace(/[\r\n\u2028\u2029]+/g, ' ').replace(/[()]/g, (c) => (c === '(' ? '[' : ']'))
}
