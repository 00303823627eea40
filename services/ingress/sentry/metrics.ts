/**
 * The Sentry endpoints' own count (docs/metrics.md): envelope items taken and dropped, by type.
 * Events themselves are counted with ours (svc_ingress_events_*), as they take the same path.
 * The type is the sender's text, so only the types Sentry documents get a label of their own.
 */
import { Counter } from '../../../shared/metrics.js'

/** Item types the Sentry SDKs send that this ingress does not keep. */
export const DROPPED_TYPES = [
  'session', 'sessions', 'transaction', 'replay_event', 'replay_recording', 'replay_video', 'client_report', 'attachment', 'profile', 'profile_chunk',
  'check_in', 'statsd', 'metric_meta', 'span', 'log', 'otel_log', 'feedback', 'user_report', 'raw_security', 'unknown',
] as const

type DroppedType = (typeof DROPPED_TYPES)[number]

const dropped = Object.fromEntries(DROPPED_TYPES.map((type) => [type, 0])) as Record<DroppedType, number>

new Counter({
  name: 'svc_ingress_sentry_items_dropped_total',
  help: 'Envelope items taken (the request answered 200) but not kept, by item type; types Sentry does not document count as unknown.',
  labelNames: ['type'],
  collect() {
    this.reset()
    for (const type of DROPPED_TYPES) this.inc({ type }, dropped[type])
  },
})

/** Counts an item taken and dropped; a type Sentry does not document counts as unknown. */
export function countDroppedItem(type: string): void {
  const known = (DROPPED_TYPES as readonly string[]).includes(type) ? (type as DroppedType) : 'unknown'
  dropped[known]++
}
