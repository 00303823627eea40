/**
 * Noise rules learned by public trackers: some errors say nothing about the application (drop),
 * and stale-deploy chunk-load errors are one problem however many chunks fail (fold).
 */
import { isExtensionFrame } from './in-app.js'
import type { StackFrame } from './types.js'

export type NoiseVerdict = { kind: 'keep' } | { kind: 'drop'; reason: string } | { kind: 'fold'; key: string }

const CHUNK_LOAD = [
  /Failed to fetch dynamically imported module/i,
  /error loading dynamically imported module/i,
  /Importing a module script failed/i,
  /Unable to preload CSS/i,
  /Loading (CSS )?chunk [\w-]+ failed/i,
  /ChunkLoadError/,
]

/** Classifies an error by its type, message and parsed frames. */
export function classifyNoise(type: string, message: string, frames: readonly StackFrame[]): NoiseVerdict {
  if (/ResizeObserver loop/i.test(message)) return { kind: 'drop', reason: 'resize-observer-loop' }
  if (/^Script error\.?$/i.test(message.trim()) && frames.length === 0) return { kind: 'drop', reason: 'cross-origin-script-error' }
  const real = frames.filter((f) => !f.native)
  if (real.length > 0 && real.every(isExtensionFrame)) return { kind: 'drop', reason: 'browser-extension' }
  if (CHUNK_LOAD.some((pattern) => pattern.test(message) || pattern.test(type))) return { kind: 'fold', key: 'chunk-load' }
  return { kind: 'keep' }
}
