/** Decides which frames are the application's own code. Source maps will refine this later. */
import type { StackFrame } from './types.js'

const FOREIGN_SCHEMES = /^(chrome-extension|moz-extension|safari-extension|safari-web-extension|webkit-masked-url|ms-browser-extension|edge-extension):/i

/** True when a frame is from a browser extension. */
export function isExtensionFrame(frame: StackFrame): boolean {
  return FOREIGN_SCHEMES.test(frame.file)
}

/** Marks each frame's inApp flag and returns the frames. */
export function markInApp(frames: StackFrame[], _pageUrl?: string): StackFrame[] {
  for (const frame of frames) {
    frame.inApp =
      !frame.native &&
      frame.file !== '' &&
      frame.file !== '<anonymous>' &&
      frame.file !== 'native' &&
      !isExtensionFrame(frame) &&
      !/\/node_modules\//.test(frame.file)
  }
  return frames
}
