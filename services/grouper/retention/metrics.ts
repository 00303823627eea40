/** The retention pass's metrics (docs/retention.md), declared beside it. */
import { Counter, Histogram } from '../../../shared/metrics.js'

export const rowsDeleted = new Counter({ name: 'svc_retention_rows_deleted_total', help: 'Events the retention pass deleted row by row (a shorter per-project retention, or events_legacy); dropped weeks are not counted here.' })
export const partitionsDropped = new Counter({ name: 'svc_retention_partitions_dropped_total', help: 'Whole partitions of events the retention pass dropped once every project\'s retention had passed their upper bound.' })
export const partitionsCreated = new Counter({ name: 'svc_retention_partitions_created_total', help: 'Weekly partitions of events the retention pass made ahead.' })
export const passSeconds = new Histogram({
  name: 'svc_retention_pass_seconds',
  help: 'How long a retention pass took, from its lock to its last batch.',
  buckets: [0.1, 1, 10, 60, 300, 1800, 7200],
})
