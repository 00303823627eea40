/**
 * The team's triage of an issue (docs/issues.md): its state beside the pipeline's status, who
 * changed it, and what a change asks for. The grouper owns issues and issue_history; others ask
 * through `commands/triage.ts`.
 */

/** An issue's triage state. */
export type Triage = 'open' | 'resolved' | 'ignored'

/** Who changed an issue: a person (a user's id), an agent (the api key's id) or the service (the part that did it). */
export interface TriageActor {
  kind: 'person' | 'agent' | 'service'
  /** The user's id, the api key's id, or the service part's name ('grouper', 'pull-request-follower', …). */
  id: string
  /** What a page shows for it: a user's e-mail, "agent (key k_…)", "the service". */
  label: string
}

/** What a person or an agent asks of one or more issues. */
export type TriageChange =
  /** now: any event received after this brings it back; next_release: only an event of a release later than the newest one seen. */
  | { action: 'resolve'; mode: 'now' | 'next_release' }
  /** For good (nothing set), until a time, or until the issue gains this many more events or users. */
  | { action: 'ignore'; until?: Date; moreEvents?: number; moreUsers?: number }
  | { action: 'reopen' }

/** One issue a change moved (issues already in the asked state, or of another project, are left out). */
export interface TriageMoved {
  id: string
  from: Triage
  to: Triage
}

/** One line of an issue's history. */
export interface HistoryEntry {
  at: Date
  actorKind: TriageActor['kind']
  actorId: string
  actorLabel: string
  action: 'resolve' | 'ignore' | 'reopen' | 'regress' | 'unignore' | 'merge' | 'merged' | 'unmerge' | 'unmerged' | 'pull_request' | 'assign' | 'unassign'
  fromState: string
  toState: string
  reason: string
  detail: Record<string, unknown>
}
