/**
 * How a project's releases are ordered (docs/issues.md, "Releases"): by semver where both names
 * parse as a version (an optional `name@` prefix and `v` are allowed, as release tools write
 * them: `web@1.4.0`, `v2.0.1`), else by when the service first saw each. The grouper decides
 * regressions by it; the investigator decides which release came after a merged fix.
 */
import semver from 'semver'

/** A release with when the project first sent it. */
export interface ReleaseSeen {
  name: string
  firstSeen: Date
}

/** The version a release name carries, or null when it is not semver. */
export function releaseVersion(name: string): semver.SemVer | null {
  const bare = name.slice(name.lastIndexOf('@') + 1)
  return semver.parse(bare.startsWith('v') ? bare.slice(1) : bare)
}

/** Negative when a came before b, positive when after, 0 for the same release. */
export function compareReleases(a: ReleaseSeen, b: ReleaseSeen): number {
  if (a.name === b.name) return 0
  const va = releaseVersion(a.name)
  const vb = releaseVersion(b.name)
  if (va && vb) {
    const order = semver.compare(va, vb)
    if (order !== 0) return order
  }
  return a.firstSeen.getTime() - b.firstSeen.getTime() || (a.name < b.name ? -1 : 1)
}
