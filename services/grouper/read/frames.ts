/**
 * A stored event's frames as other actors read them (events.grouping's frames, written by the
 * grouper): their shape, and the page origin the grouper's in-app decision compares a frame's file
 * with, so the investigator tells the app's own code the same way.
 */
export type { StackFrame } from '../grouping/types.js'
export { pageOrigin } from '../grouping/in-app.js'
