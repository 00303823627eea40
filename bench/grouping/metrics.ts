/**
 * How well a grouping matches the truth: pairwise precision (of the pairs of events put in one
 * issue, the share that are one defect) and recall (of the pairs that are one defect, the share put
 * in one issue), and the share of stack-carrying events whose throw site maps to the right file.
 */

export interface Scored {
  /** The defect the event comes from (ground truth). */
  defect: string
  /** The issue (or fingerprint) the grouping gave it. */
  group: string
}

export interface PairwiseScore {
  precision: number
  recall: number
  /** Pairs grouped together that are different defects, by defect pair: what merged wrongly. */
  merged: string[]
  /** Pairs of one defect put apart, by defect: what split. */
  split: string[]
}

/** Pairwise precision and recall over every pair of events. */
export function pairwise(events: readonly Scored[]): PairwiseScore {
  let together = 0
  let togetherRight = 0
  let sameDefect = 0
  const merged = new Set<string>()
  const split = new Set<string>()
  for (let i = 0; i < events.length; i++) {
    for (let j = i + 1; j < events.length; j++) {
      const a = events[i]!
      const b = events[j]!
      const sameGroup = a.group === b.group
      const same = a.defect === b.defect
      if (sameGroup) together++
      if (same) sameDefect++
      if (sameGroup && same) togetherRight++
      if (sameGroup && !same) merged.add([a.defect, b.defect].sort().join(' + '))
      if (!sameGroup && same) split.add(a.defect)
    }
  }
  return { precision: together === 0 ? 1 : togetherRight / together, recall: sameDefect === 0 ? 1 : togetherRight / sameDefect, merged: [...merged], split: [...split] }
}

/** "87.5%" */
export function percent(share: number): string {
  return `${(share * 100).toFixed(1).replace(/\.0$/, '')}%`
}
