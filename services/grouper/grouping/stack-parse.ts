/**
 * Parses error.stack text from V8 (Chrome, Edge, Node), SpiderMonkey (Firefox) and
 * JavaScriptCore (Safari) into frames, where index 0 is where the error was thrown. Lines that are
 * not frames (V8's leading message, which may span lines) are skipped. Stack text is untrusted, so
 * the parser never throws and does linear work per line: no backtracking-prone regular expressions.
 */
import type { StackFrame } from './types.js'

export const MAX_FRAMES = 250
// Far above any real stack (250 frames of long URLs), low enough that a hostile one stays cheap.
const MAX_STACK_CHARS = 512 * 1024
// Longer lines are minified source or data dumps quoted in a message, not frames.
const MAX_LINE = 4096
// A V8 header is "TypeError: " or "Uncaught TypeError: "; further than this, the match is elsewhere.
const MAX_HEADER_PREFIX = 200

const V8_LINE = /^\s*at\s/
const SCHEME = /^[a-z][a-z0-9+.-]*:/i
const LINE_COLUMN = /:(\d+)(?::(\d+))?$/

/**
 * Parses a stack into at most MAX_FRAMES frames, inApp left false (see in-app.ts). Pass the
 * error's message so a multi-line one cannot contribute frames to a V8 stack.
 */
export function parseStack(stack: unknown, message?: unknown): StackFrame[] {
  if (typeof stack !== 'string' || stack === '') return []
  const text = withoutHeader(stack.length > MAX_STACK_CHARS ? stack.slice(0, MAX_STACK_CHARS) : stack, message)
  const lines = text.split('\n')
  // V8 frames all start with "at "; once a stack has one, other lines are message text, even with an "@".
  const v8 = lines.some((line) => V8_LINE.test(line))
  const frames: StackFrame[] = []
  for (const raw of lines) {
    if (frames.length >= MAX_FRAMES) break
    if (raw.length > MAX_LINE) continue
    const line = raw.trim()
    const frame = v8 ? (V8_LINE.test(raw) ? parseV8Line(line) : undefined) : parseAtSignLine(line)
    if (frame) frames.push(frame)
  }
  return frames
}

function withoutHeader(stack: string, message: unknown): string {
  // Only a multi-line message can fake a frame line; single-line ones are skipped anyway.
  if (typeof message !== 'string' || !message.includes('\n')) return stack
  const at = stack.indexOf(message)
  if (at < 0 || at > MAX_HEADER_PREFIX) return stack
  if (!/^[\w$.\s]*:?\s*$/.test(stack.slice(0, at))) return stack
  return stack.slice(at + message.length)
}

// V8: "at fn (loc)", "at loc", "at async fn (loc)", "at new Foo (loc)", "at eval (eval at f (loc), <anonymous>:3:4)".
function parseV8Line(line: string): StackFrame | undefined {
  const rest = line.slice(2).trim()
  let name = ''
  let location = rest
  const open = rest.indexOf(' (')
  if (open >= 0 && rest.endsWith(')')) {
    name = rest.slice(0, open)
    location = rest.slice(open + 2, -1)
  } else if (rest.startsWith('async ')) {
    location = rest.slice('async '.length)
  }
  name = name.replace(/^async\s+/, '').replace(/^new\s+/, '')
  if (location.startsWith('eval at ')) return evalFrame(name, location)
  if (location === 'native' || /^index \d+$/.test(location)) return { function: name, file: location, inApp: false, native: true }
  return located(name, location)
}

// Code run by eval() or new Function() has no file of its own: attribute it to the call site.
function evalFrame(name: string, location: string): StackFrame {
  const innermost = location.slice(location.lastIndexOf('eval at '))
  const open = innermost.indexOf(' (')
  const end = open >= 0 ? /:\d+(?::\d+)?\)/.exec(innermost.slice(open)) : null
  if (open < 0 || !end) return { function: name, file: '<anonymous>', inApp: false }
  const site = innermost.slice(open + 2, open + end.index + end[0].length - 1)
  return located(name, site) ?? { function: name, file: '<anonymous>', inApp: false }
}

// SpiderMonkey and JavaScriptCore: "fn@loc", "@loc", "fn/<@loc", "async*fn@loc", "global code@loc", "[native code]".
function parseAtSignLine(line: string): StackFrame | undefined {
  if (line === '[native code]') return { function: '', file: line, inApp: false, native: true }
  const at = line.indexOf('@')
  // JavaScriptCore can omit "fn@" on anonymous frames; demand a full URL with a line so prose is not a frame.
  if (at < 0) return /^[a-z][a-z0-9+.-]*:\/\/\S*:\d+(?::\d+)?$/i.test(line) ? located('', line) : undefined
  const location = line.slice(at + 1)
  // Firefox prefixes the frame after an async boundary with its cause: "async*", "promise callback*".
  const star = line.lastIndexOf('*', at)
  const name = cleanAtSignName(line.slice(star + 1, at))
  const frame = atSignLocation(name, location)
  if (frame && star > 0) frame.asyncCause = line.slice(0, star).trim()
  return frame
}

function atSignLocation(name: string, location: string): StackFrame | undefined {
  if (location === '[native code]') return { function: name, file: location, inApp: false, native: true }
  // A message or prose with an "@" (an e-mail address) has no location-like right-hand side.
  if (!SCHEME.test(location) && !location.startsWith('/')) return undefined
  const evalAt = location.indexOf(' line ')
  if (evalAt >= 0) return firefoxEvalFrame(name, location, evalAt)
  return located(name, location)
}

function cleanAtSignName(raw: string): string {
  const name = raw.trim()
  return name === 'global code' || name === 'module code' || name === 'eval code' ? '' : name
}

// Firefox: "https://x/a.js line 2 > eval:1:5" means eval'd code called from line 2 of a.js.
function firefoxEvalFrame(name: string, location: string, evalAt: number): StackFrame {
  const line = /^ line (\d+) > (?:eval|Function)/.exec(location.slice(evalAt))
  return { function: name, file: location.slice(0, evalAt), line: toNumber(line?.[1]), inApp: false }
}

function located(name: string, location: string): StackFrame | undefined {
  if (location === '') return undefined
  const position = LINE_COLUMN.exec(location)
  if (!position) return { function: name, file: location, inApp: false }
  const file = location.slice(0, position.index)
  if (file === '') return undefined
  return { function: name, file, line: toNumber(position[1]), column: toNumber(position[2]), inApp: false }
}

function toNumber(digits: string | undefined): number | undefined {
  if (digits === undefined) return undefined
  const n = Number(digits)
  return Number.isSafeInteger(n) ? n : undefined
}
