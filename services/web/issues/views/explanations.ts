/**
 * What the grouper's stored codes mean, in words a person acts on: why an issue is noise, why an
 * event has no frames of the application's own, and why a frame kept its minified position. The
 * codes are the grouper's (services/grouper/grouping/noise.ts, stack-note.ts, types.ts); a code
 * this build does not know is shown as it is.
 */

export interface Explanation {
  /** A few words, for a badge or a heading. */
  label: string
  /** What it means and what to do. */
  text: string
}

const NOISE: Readonly<Record<string, Explanation>> = {
  'resize-observer-loop': {
    label: 'ResizeObserver loop',
    text: 'The browser reports a ResizeObserver loop as an error, but nothing broke: layout settled in the next frame. These events are kept and counted, and hidden from the issue list by default.',
  },
  'cross-origin-script-error': {
    label: 'cross-origin "Script error."',
    text: 'A script from another origin threw, and the browser hid its message and stack behind "Script error.". Serve that script with an Access-Control-Allow-Origin header and load it with crossorigin="anonymous" to see the real error.',
  },
  'browser-extension': {
    label: 'browser extension',
    text: 'Every located frame belongs to a browser extension running in the page, not to your application. There is nothing to fix in your code.',
  },
}

const STACK_NOTES: Readonly<Record<string, Explanation>> = {
  not_an_error: {
    label: 'No stack: not an Error',
    text: 'A string or another value that is not an Error was thrown, or a promise was rejected with one, so there is no stack. Throw or reject with new Error(...) to get one.',
  },
  cross_origin: {
    label: 'No stack: cross-origin script',
    text: 'The browser hid an error from a script of another origin behind "Script error.". Serve that script with an Access-Control-Allow-Origin header and load it with crossorigin="anonymous".',
  },
  no_stack: {
    label: 'No stack',
    text: 'The error arrived with an empty stack (its stack property was replaced, or the error was built without one). Create it with new Error(...) where the problem is detected.',
  },
  unparsed: {
    label: 'Stack not understood',
    text: 'No parser understood this stack, so no frames could be read; it is shown below as it was sent. If it comes from a common browser, report it with the stack text.',
  },
  native_only: {
    label: 'Only browser-internal frames',
    text: 'Every frame is inside the JavaScript engine ([native code]) with no file or line. The breadcrumbs show what the page did just before.',
  },
  no_app_frames: {
    label: 'No frames of your code',
    text: 'Every frame is in a library or a browser extension. The library frames below show which call failed; the breadcrumbs show what led to it.',
  },
}

const UNRESOLVED: Readonly<Record<string, string>> = {
  map_missing: 'No source map uploaded for this file and release — upload maps with svc-sourcemaps.',
  no_debug_id: 'The file carries no debug id and the event no release, so no source map could be looked up. Set release in the SDK or stamp the build with svc-sourcemaps, then upload its maps.',
  no_mapping: 'The source map has no mapping for this line and column: it is probably from another build of this file. Upload the maps of the build that is deployed.',
  map_unparseable: 'The uploaded source map could not be read as a source map. Upload it again from the build output.',
  no_position: 'The frame has no line and column (engine-internal or eval code), so no source map can place it.',
}

/** Why an issue is noise; undefined when it is not. */
export function noiseExplanation(reason: string): Explanation | undefined {
  if (!reason) return undefined
  return own(NOISE, reason) ?? { label: reason, text: 'The grouping rules marked these events as noise: they are kept and counted, and hidden from the issue list by default.' }
}

/** Why an event has no frames of the application's own. */
export function stackNoteExplanation(note: string): Explanation {
  return own(STACK_NOTES, note) ?? { label: note, text: 'The grouper noted this about the stack.' }
}

/** Why a frame kept its minified position; undefined when no reason was stored. */
export function unresolvedExplanation(reason: string | undefined): string | undefined {
  if (!reason) return undefined
  return own(UNRESOLVED, reason) ?? `Not symbolicated (${reason}).`
}

// Codes come from stored JSON: "constructor" must not find Object.prototype's.
function own<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined
}
