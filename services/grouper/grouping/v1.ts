/**
 * Fingerprint version 1. With in-app frames: the error type plus the top five in-app frames as
 * normalised file and function. The message is left out then, because engines word one bug
 * differently ("Cannot read properties of undefined (reading 'x')" vs "x is undefined" vs
 * "undefined is not an object (evaluating 'a.x')"), and line numbers are left out for named
 * functions because they move with every deploy. Without in-app frames: the type plus the
 * normalised message. Once issues exist under this version, its output must never change.
 */
import { createHash } from 'node:crypto'
import { markInApp } from './in-app.js'
import { classifyNoise } from './noise.js'
import { normalizeFile, normalizeFunction, normalizeMessage, normalizeType } from './normalize.js'
import { parseStack } from './stack-parse.js'
import { titleLine } from './title.js'
import type { GroupingInput, GroupingResult, GroupingVersion, StackFrame } from './types.js'

const FRAMES_IN_FINGERPRINT = 5

/** Groups one error by the version 1 rules; never throws, whatever the input. */
export function groupV1(input: GroupingInput): GroupingResult {
  const message = text(input?.message)
  const frames = markInApp(parseStack(input?.stack, message), text(input?.url) || undefined)
  return groupFrames(1, input, frames, frames)
}

/**
 * The version 1 rules over given frames: frames are what the fingerprint and culprit read, shown
 * is what the result carries for display. Version 2 passes symbolicated frames as frames.
 */
export function groupFrames<V extends GroupingVersion>(version: V, input: GroupingInput, frames: StackFrame[], shown: StackFrame[]): GroupingResult & { version: V } {
  const rawType = text(input?.type).trim()
  const message = text(input?.message)
  const type = normalizeType(rawType)
  const inApp = framesBeforeScheduler(frames).filter((frame) => frame.inApp)
  const base = { version, title: titleLine(rawType, message.trim()), culprit: inApp[0] ? culpritOf(inApp[0]) : '', frames: shown }
  const verdict = classifyNoise(rawType, message, frames)
  if (verdict.kind === 'drop') return { ...base, fingerprint: hash(['drop', verdict.reason]), drop: verdict.reason }
  if (verdict.kind === 'fold') return { ...base, fingerprint: hash(['fold', verdict.key]) }
  const parts = inApp.length > 0
    ? ['frames', type, ...inApp.slice(0, FRAMES_IN_FINGERPRINT).map(frameKey)]
    : ['message', type, normalizeMessage(message)]
  return { ...base, fingerprint: hash(parts) }
}

// Firefox goes on past a callback into the code that scheduled it (a promise chain, a timer, an
// event listener); V8 stops there. Grouping on those frames would split one bug by browser.
export function framesBeforeScheduler(frames: StackFrame[]): StackFrame[] {
  const end = frames.findIndex((frame) => frame.asyncCause !== undefined && frame.asyncCause !== 'async')
  return end < 0 ? frames : frames.slice(0, end)
}

function frameKey(frame: StackFrame): string {
  const name = normalizeFunction(frame.function)
  // Anonymous functions have nothing else to tell two throw sites in one file apart. Never the
  // column: engines disagree on it, and minifiers move it with every change.
  return `${normalizeFile(frame.file)}|${name === '' ? `line:${frame.line ?? '?'}` : name}`
}

function culpritOf(frame: StackFrame): string {
  return `${frame.function || '<anonymous>'} (${normalizeFile(frame.file)})`
}

/** A fingerprint of parts: the first 128 bits of their SHA-256, hex. */
export function hash(parts: string[]): string {
  // JSON keeps part boundaries unambiguous whatever characters a part holds.
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 32)
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : ''
}
