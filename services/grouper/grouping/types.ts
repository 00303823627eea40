/** Types shared by the grouping algorithm versions. */

/** Versions this build can compute; an issue keeps the version it was created with. */
export type GroupingVersion = 1 | 2 | 3 | 4

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
  /**
   * Where a source map puts this frame in the original code (symbolication): file as the map names
   * it, the function named at the caller's call site, and the source lines around it when the map
   * carries sourcesContent.
   */
  original?: { file: string; line: number; column: number; function?: string; context?: SourceContext }
  /** Why the frame kept its minified position, when symbolication was tried and could not place it. */
  unresolved?: UnresolvedReason
  /**
   * Not in the stack as sent: put back from the source. tail_call: JavaScriptCore dropped the
   * frame of a function whose `return` called the native function that threw (tail-call.ts).
   */
  recovered?: 'tail_call'
}

/** Why a frame kept its minified position (docs/grouping.md lists what each means). */
export type UnresolvedReason = 'no_position' | 'no_debug_id' | 'map_missing' | 'no_mapping' | 'map_unparseable'

/** Source lines around a frame's original line, from the map's sourcesContent. */
export interface SourceContext {
  pre: string[]
  line: string
  post: string[]
  /** How many earlier lines of the file read the same (whitespace folded): 0 for the first. */
  earlier: number
}

/** The original statement a position lies in (symbolication/source-statement.ts): what version 4 keys a site by. */
export interface SourceStatement {
  /** Its text without comments, whitespace folded; a compound statement's part around the position (`if (x)`). */
  text: string
  /** How many earlier statements of the file read the same: 0 for the first. */
  earlier: number
  /** Its first line (1-based). */
  line: number
}

/**
 * Why an event has no frames, or none of the application's own (docs/grouping.md):
 * not_an_error: a string or other value was thrown, which carries no stack;
 * cross_origin: the browser hid a script of another origin behind "Script error.";
 * no_stack: an Error whose stack was empty;
 * unparsed: a stack no parser understood;
 * native_only: only engine-internal frames, without a location;
 * no_app_frames: located frames, but all of libraries or extensions.
 */
export type StackNote = 'not_an_error' | 'cross_origin' | 'no_stack' | 'unparsed' | 'native_only' | 'no_app_frames'

export interface GroupingInput {
  type: string
  message: string
  stack: string
  /** What was thrown when it was not an Error (the SDK's error.thrown). */
  thrown?: string
  /** For a fetch() that got no answer: the request that failed, from the breadcrumbs (request.ts). */
  failedRequest?: string
  /** Page URL, so frames from the page's own origin count as in-app. */
  url?: string
  /** Frames already parsed and symbolicated (parseFrames, then the symbolicator); version 2 reads them. */
  frames?: StackFrame[]
  /** The original statement a symbolicated frame lies in (the symbolicator's statementOf); version 4 keys a site by it. */
  statementOf?: (frame: StackFrame) => SourceStatement | undefined
}

export interface GroupingResult {
  version: GroupingVersion
  /** Hex digest; unique per project together with the issue kind. */
  fingerprint: string
  /** "Type: message" as reported, trimmed and capped: what a person reads in the issue list. */
  title: string
  /**
   * The title with every id masked, as titles read before they kept the ids the code wrote
   * (versions 3 and 4): an issue stored with it takes title from this event (docs/grouping.md).
   */
  maskedTitle?: string
  /** Top in-app frame as "function (file)" with the file normalised, or ''. */
  culprit: string
  frames: StackFrame[]
  /**
   * Why the event is noise (versions 1 and 2 called it drop): it is still stored, in an issue of
   * its own marked as noise and hidden from the issue list by default.
   */
  drop?: string
  /** Why the event has no frames or none of the application's (versions 3 and 4). */
  stackNote?: StackNote
  /** The frame the fingerprint and culprit were read from (versions 3 and 4); not stored on its own. */
  site?: StackFrame
  /**
   * How well the event tells its issue's story in source terms (versions 3 and 4): an issue takes the
   * title and culprit of its best event, so uploading maps later improves both.
   */
  quality?: number
}
