/** Grouping algorithms by version: an issue keeps the version it was created with. */
import type { GroupingInput, GroupingResult, GroupingVersion } from './types.js'
import { groupV1 } from './v1.js'
import { groupV2 } from './v2.js'
import { groupV3 } from './v3.js'
import { groupV4 } from './v4.js'

export { parseFrames } from './v2.js'
export { isFetchFailure, lastFailedRequest } from './request.js'

export type { GroupingInput, GroupingResult, GroupingVersion, SourceStatement, StackFrame } from './types.js'

/** The version new projects group with; a project moves to it with `svc grouping-upgrade` (docs/grouping.md). */
export const CURRENT_GROUPING_VERSION: GroupingVersion = 4

const VERSIONS: Readonly<Record<GroupingVersion, (input: GroupingInput) => GroupingResult>> = { 1: groupV1, 2: groupV2, 3: groupV3, 4: groupV4 }

/** Every version this build can compute, oldest first. */
export const GROUPING_VERSIONS: readonly GroupingVersion[] = Object.keys(VERSIONS).map(Number).filter(isKnownVersion)

/** Groups an error with the given algorithm version (default: current); refuses unknown versions. */
export function groupEvent(input: GroupingInput, version: number = CURRENT_GROUPING_VERSION): GroupingResult {
  const algorithm = isKnownVersion(version) ? VERSIONS[version] : undefined
  // A stored version this build does not know means it was written by a newer build: guessing
  // with another algorithm would open duplicate issues, so stop instead.
  if (!algorithm) throw new Error(`Unknown grouping version ${version} (this build knows ${Object.keys(VERSIONS).join(', ')}); run the build that wrote it.`)
  return algorithm(input)
}

/** True when this build can compute fingerprints of the given version. */
export function isKnownVersion(version: number): version is GroupingVersion {
  return Object.hasOwn(VERSIONS, version)
}
