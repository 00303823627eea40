/**
 * The job runtime: leased jobs on rows of an actor's own tables, dispatched by stream entries. An
 * actor describes a kind of job (job-kind.ts) and writes its work; claiming, leases and their
 * keepers, the fleet's slots, the daily budget, settlement of failures and retries, the lapsed-lease
 * sweep, the fleet-wide periodic sweeper and the hosted service come from here.
 */
export { addEntries, jobStream, type JobStream } from './job-stream.js'
export { dispatchDueRows, dispatchRows, type DueOptions, type DueTable } from './due-rows.js'
export { consumeJobs, leasedKind, type ConsumeOptions, type ConsumerLoop, type LeasedRuns, type StreamedKind } from './consume.js'
export type { ClaimOptions, JobClaim, JobGrant, JobKind, JobRecord, JobRow } from './job-kind.js'
export { LeasedJobRecord, LeasedRecord, RunTakenOver } from './leased-record.js'
export { claimRow, leasedClaim, type ClaimSpec, type LeasedClaim } from './claim.js'
export { leasedProperties, type Dispatched } from './leased-columns.js'
export { FleetSlots } from './slots.js'
export { keepRenewing, waitForSlot } from './keepers.js'
export { settleJobError, type FailedJob } from './settle.js'
export { JobStop } from './stop.js'
export { runJob, type Delivery, type RunnerDeps } from './runner.js'
export { sweepLapsed, type LapsedOptions } from './lapsed.js'
export { PeriodicSweeper, type SweepPass, type SweeperOptions } from './sweeper.js'
export { JobHost, type HostConsumerOptions, type HostedConsumer, type HostedParts, type JobActorDeps, type JobHostDeps } from './hosted.js'
