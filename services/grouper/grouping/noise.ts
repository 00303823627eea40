/**
 * Noise rules learned by public trackers: some errors say nothing about the application (drop),
 * and stale-deploy chunk-load errors are one problem however many chunks fail (fold).
 */
import { isExtensionFile, isUnlocatedFrame } from './in-app.js'
import type { StackFrame } from './types.js'

export const DROP_REASONS = {
  /** The browser's own layout warning, reported as an error; harmless and very frequent. */
  resizeObserverLoop: 'resize-observer-loop',
  /** A cross-origin script threw and the browser hid everything but this text. */
  scriptErrorWithoutStack: 'cross-origin-script-error',
  /** Thrown by a browser extension's code running in the page, not by the application. */
  browserExtension: 'browser-extension',
} as const

export type DropReason = (typeof DROP_REASONS)[keyof typeof DROP_REASONS]

/** The one group every stale-deploy chunk-load error folds into (per project, added by the caller). */
export const CHUNK_LOAD_KEY = 'chunk-load'

export type NoiseVerdict = { kind: 'keep' } | { kind: 'drop'; reason: DropReason } | { kind: 'fold'; key: typeof CHUNK_LOAD_KEY }

// A tab still running the previous deploy asks for chunks the new deploy deleted. Each engine and
// bundler words that differently; the chunk name in the message would split it into one issue per chunk.
const CHUNK_LOAD = [
  /Failed to fetch dynamically imported module/i, // V8
  /error loading dynamically imported module/i, // SpiderMonkey
  /Importing a module script failed/i, // JavaScriptCore
  /Unable to preload CSS/i, // Vite
  /Loading (?:CSS )?chunk [\w-]+ failed/i, // webpack
  /ChunkLoadError/, // webpack's error type
]

/** Classifies an error by its type, message and parsed frames (inApp already decided). */
export function classifyNoise(type: string, message: string, frames: readonly StackFrame[]): NoiseVerdict {
  if (/ResizeObserver loop/i.test(message)) return { kind: 'drop', reason: DROP_REASONS.resizeObserverLoop }
  if (/^Script error\.?$/i.test(message.trim()) && frames.length === 0) {
    return { kind: 'drop', reason: DROP_REASONS.scriptErrorWithoutStack }
  }
  // Engine-internal frames ("[native code]", "Array.map (<anonymous>)") are interleaved with
  // extension frames and say nothing about who threw, so only located frames are judged.
  const located = frames.filter((frame) => !isUnlocatedFrame(frame))
  if (located.length > 0 && located.every((frame) => isExtensionFile(frame.file) && !frame.inApp)) {
    return { kind: 'drop', reason: DROP_REASONS.browserExtension }
  }
  if (CHUNK_LOAD.some((pattern) => pattern.test(message) || pattern.test(type))) return { kind: 'fold', key: CHUNK_LOAD_KEY }
  return { kind: 'keep' }
}
