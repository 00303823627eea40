/**
 * The process's metrics (prom-client), served as GET /metrics in Prometheus's text format by the
 * worker's health port and the ingress (docs/metrics.md lists every one; a test keeps the two in
 * step). Each stage declares its own counters and histograms beside its loop, in prom-client's one
 * registry per process (per thread: an ingress thread has its own, which bin/thread-metrics.ts
 * merges). Names start with svc_, use base units (seconds, bytes) and end counters in _total;
 * labels take only values from a short list the code fixes (a code, a group, a stage), never an
 * id, a URL or a message.
 */
import { isMainThread } from 'node:worker_threads'
import client from 'prom-client'

export const { Counter, Gauge, Histogram } = client

/** The registry every metric of this process (or ingress thread) registers in. */
export const registry = client.register

/** What GET /metrics answers with: Prometheus's text format 0.0.4. */
export const METRICS_CONTENT_TYPE = registry.contentType

/** What a registry holds, as plain data: what a thread sends the main thread to merge. */
export type MetricsJson = Awaited<ReturnType<typeof registry.getMetricsAsJSON>>

let processMetrics = false

/**
 * Adds prom-client's default metrics (process_resident_memory_bytes, process_cpu_seconds_total,
 * nodejs_eventloop_lag_seconds, …) once. Only the main thread: they describe the process, and an
 * ingress thread's copy would count its memory and CPU once more in the merged answer.
 */
export function collectProcessMetrics(): void {
  if (processMetrics || !isMainThread) return
  processMetrics = true
  client.collectDefaultMetrics({ register: registry })
}

/** This process's metrics in the text format. */
export function scrapeMetrics(): Promise<string> {
  return registry.metrics()
}

/**
 * The main thread's metrics and its threads' merged into one answer: counters and histograms
 * summed across threads (each counts only what it served), each gauge by its own aggregator. The
 * default metrics come from the main thread alone, so even the ones prom-client would leave out of
 * a cluster's sum (process_start_time_seconds) are kept as they are.
 */
export function mergeMetrics(main: MetricsJson, threads: readonly MetricsJson[]): Promise<string> {
  const own = main.map((metric) => (metric.aggregator === 'omit' ? { ...metric, aggregator: 'first' as const } : metric))
  return client.AggregatorRegistry.aggregate([own, ...threads]).metrics()
}

/**
 * Runs read, giving up after timeoutMs: a metric read from Redis at scrape time must not hang the
 * scrape when Redis is slow. Answers undefined on timeout or failure (the metric is then left out).
 */
export async function readWithin<T>(read: () => Promise<T>, timeoutMs: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), timeoutMs)
    timer.unref()
  })
  try {
    return await Promise.race([read().catch(() => undefined), timeout])
  } finally {
    clearTimeout(timer)
  }
}

/** One line of a histogram as prom-client's registry reads it. */
interface TallyRow {
  labels: Record<string, string | number>
  value: number
  metricName: string
}

/**
 * A histogram whose observe() allocates nothing and needs no label lookup: for the ingress's hot
 * path, where prom-client's observe builds a label object and a closure per call. Its series are
 * fixed when it is made (one per label value), and it answers the registry in prom-client's own
 * shape, so threads merge it like any histogram.
 */
export class TallyHistogram<Value extends string> {
  readonly type = 'histogram'
  readonly aggregator = 'sum'
  readonly #counts: Float64Array[]
  readonly #sums: Float64Array

  /** Registers the histogram; label is the one label's name, values its possible values, buckets the upper bounds in seconds. */
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly label: string,
    private readonly values: readonly Value[],
    private readonly buckets: readonly number[],
  ) {
    this.#counts = values.map(() => new Float64Array(buckets.length + 1))
    this.#sums = new Float64Array(values.length)
    registry.registerMetric(this as unknown as client.Metric)
  }

  /** Counts one observation for the value at index (its position in values). */
  observe(index: number, seconds: number): void {
    const counts = this.#counts[index]!
    let bucket = 0
    while (bucket < this.buckets.length && seconds > this.buckets[bucket]!) bucket++
    counts[bucket]! += 1
    this.#sums[index]! += seconds
  }

  /** What the registry reads: cumulative buckets, sum and count per label value. */
  get(): { name: string; help: string; type: 'histogram'; aggregator: 'sum'; values: TallyRow[] } {
    const values = this.values.flatMap((value, i): TallyRow[] => {
      const labels = { [this.label]: value }
      const counts = this.#counts[i]!
      let total = 0
      const rows: TallyRow[] = this.buckets.map((le, b) => ({ labels: { ...labels, le }, value: (total += counts[b]!), metricName: `${this.name}_bucket` }))
      total += counts[this.buckets.length]!
      rows.push({ labels: { ...labels, le: '+Inf' }, value: total, metricName: `${this.name}_bucket` })
      rows.push({ labels, value: this.#sums[i]!, metricName: `${this.name}_sum` })
      rows.push({ labels, value: total, metricName: `${this.name}_count` })
      return rows
    })
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values }
  }

  /** Forgets every observation (the registry's resetMetrics). */
  reset(): void {
    for (const counts of this.#counts) counts.fill(0)
    this.#sums.fill(0)
  }
}
