/**
 * Parses error.stack text from V8 (Chrome, Edge, Node), SpiderMonkey (Firefox) and
 * JavaScriptCore (Safari) into frames, where index 0 is where the error was thrown. Lines that are
 * not frames (the message, which may span lines) are skipped; it never throws.
 */
import type { StackFrame } from './types.js'

export const MAX_FRAMES = 250
const MAX_LINE = 2000

// V8: "    at fn (file:1:2)", "    at file:1:2", "at async fn (...)", "at new Foo (...)".
const V8_FRAME = /^\s*at (?:(.+?) \()?(.*?)(?::(\d+))?(?::(\d+))?\)?$/
const V8_EVAL = /\(eval at /
// SpiderMonkey and JavaScriptCore: "fn@file:1:2", "@file:1:2", "fn/<@file:1:2", "global code@file:1:2".
const GECKO_FRAME = /^\s*(.*?)@(.*?)(?::(\d+))?(?::(\d+))?\s*$/

/** Parses a stack string into at most MAX_FRAMES frames (inApp left false: see in-app.ts). */
export function parseStack(stack: string): StackFrame[] {
  const frames: StackFrame[] = []
  if (typeof stack !== 'string' || stack === '') return frames
  for (const rawLine of stack.split('\n')) {
    if (frames.length >= MAX_FRAMES) break
    const line = rawLine.length > MAX_LINE ? rawLine.slice(0, MAX_LINE) : rawLine
    const frame = /^\s*at /.test(line) ? parseV8(line) : parseGecko(line)
    if (frame) frames.push(frame)
  }
  return frames
}

function parseV8(line: string): StackFrame | undefined {
  if (V8_EVAL.test(line)) {
    // "at eval (eval at outer (https://x/a.js:1:2), <anonymous>:3:4)": attribute it to the outer site.
    const outer = /\(eval at ([^\s(]*) \(([^()]*?)(?::(\d+))?(?::(\d+))?\)/.exec(line)
    const name = /^\s*at (?:async )?(\S+)/.exec(line)?.[1] ?? ''
    return { function: name === 'eval' ? (outer?.[1] ?? 'eval') : name, file: outer?.[2] ?? '<anonymous>', line: num(outer?.[3]), column: num(outer?.[4]), inApp: false }
  }
  const match = V8_FRAME.exec(line)
  if (!match) return undefined
  let name = (match[1] ?? '').replace(/^async /, '').replace(/^new /, '')
  let location = match[2] ?? ''
  if (match[1] === undefined && location.includes(' (')) {
    // "at fn (native)"-style leftovers the regex did not split.
    const split = /^(.*) \((.*)$/.exec(location)
    if (split) [name, location] = [split[1]!, split[2]!]
  }
  if (location === 'native' || location === '<anonymous>' || location === 'index 0') {
    return { function: name, file: location, inApp: false, native: location === 'native' }
  }
  if (match[1] === undefined && /^async\s/.test(location)) location = location.replace(/^async\s+/, '')
  return { function: name, file: location, line: num(match[3]), column: num(match[4]), inApp: false }
}

function parseGecko(line: string): StackFrame | undefined {
  const trimmed = line.trim()
  if (trimmed === '[native code]') return { function: '', file: '[native code]', inApp: false, native: true }
  const match = GECKO_FRAME.exec(line)
  if (!match) return undefined
  const file = match[2] ?? ''
  // A message line can contain "@" (an email in the message): require a location that looks like one.
  if (!/^[a-z][a-z0-9+.-]*:|^\/|^\[native code\]$|^<anonymous>$/i.test(file)) return undefined
  let name = (match[1] ?? '').replace(/^async\*/, '')
  // Firefox marks closures as "outer/<" or "outer/inner<"; the outer name is what a person recognises.
  name = name.replace(/\/<+$/, '').replace(/<$/, '')
  if (name === 'global code' || name === 'module code') name = ''
  if (file === '[native code]') return { function: name, file, inApp: false, native: true }
  return { function: name, file, line: num(match[3]), column: num(match[4]), inApp: false }
}

function num(value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  const n = Number(value)
  return Number.isFinite(n) ? n : undefined
}
