/**
 * `svc ingress` on several threads, all listening on one port: a single JavaScript thread tops out
 * well below what uWS can take in, and the kernel spreads connections across listeners.
 */
import { Worker } from 'node:worker_threads'
import type { Logger } from '../shared/log.js'
import { isMetricsMessage, serveThreadMetrics } from './thread-metrics.js'

export type ThreadMessage = { type: 'prepared' } | { type: 'listening'; port: number } | { type: 'failed'; message: string }
export type ParentMessage = { type: 'listen'; port: number } | { type: 'stop' }

export interface IngressThreads {
  port: number
  /** Settles when a thread dies on its own: the process should then stop. */
  failed: Promise<string>
  stop(): Promise<void>
}

// A larger young generation: an ingress thread allocates a body, a parsed event and a queue entry
// per request, and with V8's default most of its garbage-collection time went to scavenges.
const YOUNG_GENERATION_MB = 48

/** The next message a thread sends; a thread that exits first is a failure. */
function nextMessage(worker: Worker, i: number): Promise<ThreadMessage> {
  return new Promise<ThreadMessage>((resolve, reject) => {
    const onExit = (code: number): void => reject(new Error(`ingress thread ${i} exited with ${code} before listening`))
    worker.once('error', reject)
    worker.once('exit', onExit)
    const onMessage = (message: ThreadMessage): void => {
      if (isMetricsMessage(message)) return // a scrape's exchange (thread-metrics.ts), not this answer
      worker.off('message', onMessage)
      worker.off('error', reject)
      worker.off('exit', onExit)
      if (message.type === 'failed') reject(new Error(message.message))
      else resolve(message)
    }
    worker.on('message', onMessage)
  })
}

/**
 * Starts count threads on port (0 picks a free one, which the rest then share). All threads
 * prepare in parallel and bind together: a client that connected while one thread listened
 * alone would keep its keep-alive connections on that thread for good.
 */
export async function startIngressThreads(count: number, port: number, log: Logger): Promise<IngressThreads> {
  const workers: Worker[] = []
  let reportFailure: (reason: string) => void = () => {}
  const failed = new Promise<string>((resolve) => (reportFailure = resolve))
  let stopping = false
  const stop = async (): Promise<void> => {
    stopping = true
    await Promise.all(
      workers.map(
        (worker) =>
          new Promise<void>((resolve) => {
            worker.once('exit', () => resolve())
            worker.postMessage({ type: 'stop' } satisfies ParentMessage)
          }),
      ),
    )
  }
  const listen = async (worker: Worker, i: number, on: number): Promise<number> => {
    const listening = nextMessage(worker, i)
    worker.postMessage({ type: 'listen', port: on } satisfies ParentMessage)
    return ((await listening) as { port: number }).port
  }
  try {
    for (let i = 0; i < count; i++) {
      workers.push(new Worker(new URL('./ingress-thread.js', import.meta.url), { resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } }))
    }
    serveThreadMetrics(workers)
    await Promise.all(workers.map((worker, i) => nextMessage(worker, i)))
    // A free port is picked by the first thread; a fixed one is bound by all at once.
    let bound = 0
    if (port === 0) {
      port = await listen(workers[0]!, 0, 0)
      bound = 1
    }
    await Promise.all(workers.slice(bound).map((worker, j) => listen(worker, bound + j, port)))
    workers.forEach((worker, i) => {
      worker.on('error', (error) => log.error('ingress thread failed', { thread: i, error }))
      worker.once('exit', (code) => {
        if (!stopping) reportFailure(`ingress thread ${i} exited with ${code}`)
      })
    })
  } catch (error) {
    await Promise.all(workers.map((worker) => worker.terminate()))
    throw error
  }
  log.info('ingress threads listening', { threads: count, port })
  return { port, failed, stop }
}
