/**
 * Fingerprint version 1. With in-app frames: the error type plus the top five in-app frames as
 * normalised file and function (the line only for anonymous functions, never the column). The
 * message is left out then, because engines word one bug differently ("Cannot read properties of
 * undefined (reading 'x')" vs "x is undefined" vs "undefined is not an object"). Without in-app
 * frames: the type plus the normalised message.
 */
import { createHash } from 'node:crypto'
import { markInApp } from './in-app.js'
import { classifyNoise } from './noise.js'
import { normalizeFile, normalizeMessage } from './normalize.js'
import { parseStack } from './stack-parse.js'
import type { GroupingInput, GroupingResult, StackFrame } from './types.js'

const VERSION = 1
const FRAMES_IN_FINGERPRINT = 5
const TITLE_MAX = 200

/** Groups one error by the version 1 rules. */
export function groupV1(input: GroupingInput): GroupingResult {
  const type = (typeof input.type === 'string' && input.type.trim()) || 'Error'
  const message = typeof input.message === 'string' ? input.message : ''
  const frames = markInApp(parseStack(input.stack), input.url)
  const title = `${type}: ${message.trim()}`.slice(0, TITLE_MAX)
  const inApp = frames.filter((f) => f.inApp)
  const culprit = inApp[0] ? describe(inApp[0]) : ''
  const verdict = classifyNoise(type, message, frames)
  const base = { version: VERSION, title, culprit, frames }
  if (verdict.kind === 'drop') return { ...base, fingerprint: hash(['drop', verdict.reason]), drop: verdict.reason }
  if (verdict.kind === 'fold') return { ...base, fingerprint: hash(['fold', verdict.key]) }
  const parts = inApp.length > 0
    ? ['frames', type, ...inApp.slice(0, FRAMES_IN_FINGERPRINT).map(frameKey)]
    : ['message', type, normalizeMessage(message)]
  return { ...base, fingerprint: hash(parts) }
}

function frameKey(frame: StackFrame): string {
  const where = normalizeFile(frame.file)
  return frame.function ? `${where}|${frame.function}` : `${where}|line:${frame.line ?? '?'}`
}

function describe(frame: StackFrame): string {
  return `${frame.function || '<anonymous>'} (${normalizeFile(frame.file)})`
}

function hash(parts: string[]): string {
  return createHash('sha256').update(parts.join('\n')).digest('hex').slice(0, 32)
}
