/**
 * Decides which frames are the application's own code. For now every located frame is, except
 * browser extensions, engine internals and installed packages; source maps and an attached
 * repository will refine this later.
 */
import type { StackFrame } from './types.js'

const EXTENSION_SCHEMES = /^(?:chrome-extension|moz-extension|safari-extension|safari-web-extension|webkit-masked-url|ms-browser-extension|edge-extension):/i
const ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i

/** True when a file is served by a browser extension (or masked by Safari because it is one). */
export function isExtensionFile(file: string): boolean {
  return EXTENSION_SCHEMES.test(file)
}

/** True when a frame has no real location: engine internals and code without a file. */
export function isUnlocatedFrame(frame: Pick<StackFrame, 'file' | 'native'>): boolean {
  return frame.native === true || frame.file === '' || frame.file === '<anonymous>'
}

/**
 * True when a frame is the application's own code. A frame from the page's own origin always is,
 * so an app that is itself an extension (its page on chrome-extension://) keeps its frames.
 */
export function isInAppFrame(frame: Pick<StackFrame, 'file' | 'native'>, pageUrl?: string): boolean {
  if (isUnlocatedFrame(frame)) return false
  if (frame.file.includes('/node_modules/')) return false
  const page = pageOrigin(pageUrl)
  if (page !== undefined && pageOrigin(frame.file) === page) return true
  return !isExtensionFile(frame.file)
}

/** Returns copies of the frames with inApp decided for the given page. */
export function markInApp(frames: readonly StackFrame[], pageUrl?: string): StackFrame[] {
  return frames.map((frame) => ({ ...frame, inApp: isInAppFrame(frame, pageUrl) }))
}

/** The scheme and host of a URL, lower-cased; undefined for anything else. */
export function pageOrigin(url: unknown): string | undefined {
  if (typeof url !== 'string') return undefined
  // Not new URL(): it reports the origin of extension URLs as "null", which would match them all.
  return ORIGIN.exec(url)?.[0].toLowerCase()
}
