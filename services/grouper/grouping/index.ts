/** Grouping algorithms by version: an issue keeps the version it was created with. */
import type { GroupingInput, GroupingResult } from './types.js'
import { groupV1 } from './v1.js'

export type { GroupingInput, GroupingResult, StackFrame } from './types.js'

export const CURRENT_GROUPING_VERSION = 1

const VERSIONS: Readonly<Record<number, (input: GroupingInput) => GroupingResult>> = { 1: groupV1 }

/** Groups an error with the given algorithm version (default: current). */
export function groupEvent(input: GroupingInput, version = CURRENT_GROUPING_VERSION): GroupingResult {
  const algorithm = VERSIONS[version]
  if (!algorithm) throw new Error(`Unknown grouping version ${version}; known: ${Object.keys(VERSIONS).join(', ')}.`)
  return algorithm(input)
}
