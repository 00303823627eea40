/** What a worker needs from each consumer service it hosts. */

export interface QueueDepth {
  /** Entries a consumer could start now: undelivered, redelivered for retry, or delivered and unacked. */
  eligible: number
  /** Entries waiting out a retry backoff. */
  heldBack: number
  deadLettered: number
}

export interface HostedService {
  readonly name: string
  start(): Promise<void>
  /** Stops reading and finishes the batch in flight. */
  stop(): Promise<void>
  depth(): Promise<QueueDepth>
  /** When this process's consumer last completed a read-loop turn (ms epoch). */
  lastProgressAt(): number
  /** Smallest idle time of any consumer of the group across the fleet, in ms (Infinity if none). */
  fleetIdleMs(): Promise<number>
  /** What the service holds its work for, and since when (ms epoch), while something it depends on is down. */
  waitingFor(): { what: string; since: number } | undefined
  /** Further lines for /health (the investigator: running, slots, budgets). */
  details?(): Promise<string[]>
}

/** waitingFor of a service whose work needs the database: "database" while its pool's outage watch says it is down. */
export function waitingForDatabase(db: { readonly outage: { readonly downSince: number | undefined } }): HostedService['waitingFor'] {
  return () => {
    const since = db.outage.downSince
    return since === undefined ? undefined : { what: 'database', since }
  }
}
