/** Types shared by the grouping algorithm versions. */

/** Versions this build can compute; an issue keeps the version it was created with. */
export type GroupingVersion = 1 | 2

export interface StackFrame {
  /**
   * Function name as the engine wrote it, minus engine markers ("async ", "new ", "async*");
   * '' when anonymous. Engine-specific spellings ("Cart.render", "render/<") are kept for display
   * and reconciled only when fingerprinting (see normalizeFunction).
   */
  function: string
  /** URL or path as written in the stack. */
  file: string
  line?: number
  column?: number
  /** The application's own code, as opposed to libraries, extensions and engine internals. */
  inApp: boolean
  /** Engine-internal frame ("[native code]", "native"): no source to show. */
  native?: boolean
  /**
   * SpiderMonkey only: the stack continues here across an async boundary, and this says which
   * ("async" for await, like V8's "at async"; "promise callback", "setTimeout handler" for the code
   * that scheduled the callback, which V8 does not report).
   */
  asyncCause?: string
  /** Where a source map puts this frame in the original code (symbolication). */
  original?: { file: string; line: number; column: number; function?: string }
  /** Why the frame kept its minified position, when symbolication was tried and could not place it. */
  unresolved?: 'no_position' | 'no_debug_id' | 'map_missing' | 'no_mapping' | 'map_unparseable'
}

export interface GroupingInput {
  type: string
  message: string
  stack: string
  /** Page URL, so frames from the page's own origin count as in-app. */
  url?: string
  /** Frames already parsed and symbolicated (parseFrames, then the symbolicator); version 2 reads them. */
  frames?: StackFrame[]
}

export interface GroupingResult {
  version: GroupingVersion
  /** Hex digest; unique per project together with the issue kind. */
  fingerprint: string
  /** "Type: message" as reported, trimmed and capped: what a person reads in the issue list. */
  title: string
  /** Top in-app frame as "function (file)" with the file normalised, or ''. */
  culprit: string
  frames: StackFrame[]
  /** Why the event is dropped as noise; absent when it is kept. */
  drop?: string
}
