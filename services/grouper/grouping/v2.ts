/**
 * Fingerprint version 2: the version 1 rules over symbolicated frames. A frame a source map places
 * is keyed by its original file and function, so one bug keeps one issue across deploys that
 * rename the bundle, and an original file under node_modules is library code. A stack with
 * nothing symbolicated gets exactly the version 1 fingerprint, so events keep joining the issues
 * version 1 made. Once issues exist under this version, its output must never change.
 */
import { markInApp } from './in-app.js'
import { parseStack } from './stack-parse.js'
import type { GroupingInput, GroupingResult, StackFrame } from './types.js'
import { groupFrames } from './v1.js'

/** Groups one error by the version 2 rules; never throws, whatever the input. */
export function groupV2(input: GroupingInput): GroupingResult {
  const shown = input?.frames ?? parseFrames(input)
  const keyed = shown.map((frame) =>
    frame.original
      ? { ...frame, file: frame.original.file, function: frame.original.function ?? frame.function, line: frame.original.line, inApp: frame.inApp && !frame.original.file.includes('node_modules/') }
      : frame,
  )
  return groupFrames(2, input, keyed, shown)
}

/** The stack's frames with in-app decided for the page: what the symbolicator takes. */
export function parseFrames(input: Pick<GroupingInput, 'stack' | 'message' | 'url'>): StackFrame[] {
  const url = typeof input?.url === 'string' && input.url !== '' ? input.url : undefined
  return markInApp(parseStack(input?.stack, typeof input?.message === 'string' ? input.message : ''), url)
}
