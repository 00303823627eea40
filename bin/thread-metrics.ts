/**
 * /metrics for `svc ingress` on several threads. Each thread counts what it serves in its own
 * registry (an event adds to plain numbers, never a message), and a scrape reaches whichever thread
 * the kernel gave its connection to. That thread asks the main thread, which collects every
 * thread's registry over its message port, merges them with its own (the process metrics:
 * memory, CPU, file descriptors) and answers; a thread that does not answer within COLLECT_MS
 * fails the scrape, so Prometheus shows the ingress as down rather than its counters going back.
 */
import type { MessagePort, Worker } from 'node:worker_threads'
import { collectProcessMetrics, mergeMetrics, readWithin, registry, type MetricsJson } from '../shared/metrics.js'
import { SECOND } from '../shared/time.js'

/** The messages of the exchange, beside the threads' start and stop orders (ingress-threads.ts). */
type MetricsMessage =
  | { type: 'metrics:scrape'; id: number }
  | { type: 'metrics:answer'; id: number; text?: string; error?: string }
  | { type: 'metrics:collect'; id: number }
  | { type: 'metrics:collected'; id: number; metrics: MetricsJson }

/** How long the main thread waits for each thread's registry. */
const COLLECT_MS = 2 * SECOND

/** True for a message of this exchange, which the start and stop orders' readers pass over. */
export function isMetricsMessage(message: unknown): boolean {
  return typeof (message as { type?: unknown } | undefined)?.type === 'string' && (message as { type: string }).type.startsWith('metrics:')
}

/** Main thread: answers each thread's scrape with every thread's metrics and the process's, merged. */
export function serveThreadMetrics(workers: readonly Worker[]): void {
  collectProcessMetrics()
  let next = 0
  const waiting = new Map<number, (metrics: MetricsJson) => void>()
  const collect = async (worker: Worker, i: number): Promise<MetricsJson> => {
    const id = next++
    const metrics = await readWithin(
      () =>
        new Promise<MetricsJson>((resolve) => {
          waiting.set(id, resolve)
          worker.postMessage({ type: 'metrics:collect', id } satisfies MetricsMessage)
        }),
      COLLECT_MS,
    )
    waiting.delete(id)
    if (!metrics) throw new Error(`ingress thread ${i} did not answer within ${COLLECT_MS / SECOND} s`)
    return metrics
  }
  const merged = async (): Promise<string> => {
    const [own, threads] = await Promise.all([registry.getMetricsAsJSON(), Promise.all(workers.map(collect))])
    return mergeMetrics(own, threads)
  }
  for (const worker of workers) {
    worker.on('message', (message: MetricsMessage) => {
      if (message?.type === 'metrics:collected') waiting.get(message.id)?.(message.metrics)
      if (message?.type !== 'metrics:scrape') return
      merged().then(
        (text) => worker.postMessage({ type: 'metrics:answer', id: message.id, text } satisfies MetricsMessage),
        (error: Error) => worker.postMessage({ type: 'metrics:answer', id: message.id, error: error.message } satisfies MetricsMessage),
      )
    })
  }
}

/** Ingress thread: hands its registry to the main thread when asked; answers the scrape function its /metrics calls. */
export function threadMetrics(port: MessagePort): () => Promise<string> {
  let next = 0
  const asked = new Map<number, (answer: { text?: string; error?: string }) => void>()
  port.on('message', (message: MetricsMessage) => {
    if (message?.type === 'metrics:collect') {
      void registry.getMetricsAsJSON().then((metrics) => port.postMessage({ type: 'metrics:collected', id: message.id, metrics } satisfies MetricsMessage))
    }
    if (message?.type === 'metrics:answer') asked.get(message.id)?.(message)
  })
  return async () => {
    const id = next++
    // The main thread answers within COLLECT_MS, or says which thread did not; this only guards against its loss.
    const answer = await readWithin(
      () =>
        new Promise<{ text?: string; error?: string }>((resolve) => {
          asked.set(id, resolve)
          port.postMessage({ type: 'metrics:scrape', id } satisfies MetricsMessage)
        }),
      COLLECT_MS * 2,
    )
    asked.delete(id)
    if (answer?.text === undefined) throw new Error(answer?.error ?? 'the main thread did not answer')
    return answer.text
  }
}
