/** Why an event has no frames, or none of the application's own: stored with it and shown on its page. */
import { isUnlocatedFrame } from './in-app.js'
import type { GroupingInput, StackFrame, StackNote } from './types.js'

/** The note for an event whose in-app frames are inApp; undefined when it has some. */
export function stackNote(input: GroupingInput, frames: readonly StackFrame[], inApp: readonly StackFrame[]): StackNote | undefined {
  if (inApp.length > 0) return undefined
  const message = typeof input?.message === 'string' ? input.message.trim() : ''
  const stack = typeof input?.stack === 'string' ? input.stack.trim() : ''
  if ((typeof input?.thrown === 'string' && input.thrown !== '') || /^Non-Error (?:thrown|promise rejection)/i.test(message)) return 'not_an_error'
  if (/^Script error\.?$/i.test(message) && frames.length === 0) return 'cross_origin'
  if (stack === '') return 'no_stack'
  if (frames.length === 0) return 'unparsed'
  if (frames.every(isUnlocatedFrame)) return 'native_only'
  return 'no_app_frames'
}
