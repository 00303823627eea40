/** Types shared by the grouping algorithm versions. */

export interface StackFrame {
  /** Function name as the engine wrote it; '' when anonymous. */
  function: string
  /** URL or path as written in the stack. */
  file: string
  line?: number
  column?: number
  inApp: boolean
  native?: boolean
}

export interface GroupingInput {
  type: string
  message: string
  stack: string
  /** Page URL, so frames from the page's own origin count as in-app. */
  url?: string
}

export interface GroupingResult {
  version: number
  /** Hex digest; unique per project together with the issue kind. */
  fingerprint: string
  /** "Type: message" as reported, trimmed and capped: what a person reads in the issue list. */
  title: string
  /** Top in-app frame as "function (file)", or ''. */
  culprit: string
  frames: StackFrame[]
  /** Why the event is dropped as noise; absent when it is kept. */
  drop?: string
}
