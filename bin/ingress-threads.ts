/**
 * `svc ingress` on several threads, all listening on one port: a single JavaScript thread tops out
 * well below what uWS can take in, and the kernel spreads connections across listeners.
 */
import { Worker } from 'node:worker_threads'
import type { Logger } from '../shared/log.js'

export type ThreadMessage = { type: 'listening'; port: number } | { type: 'failed'; message: string }

export interface IngressThreads {
  port: number
  /** Settles when a thread dies on its own: the process should then stop. */
  failed: Promise<string>
  stop(): Promise<void>
}

// A larger young generation: an ingress thread allocates a body, a parsed event and a queue entry
// per request, and with V8's default most of its garbage-collection time went to scavenges.
const YOUNG_GENERATION_MB = 48

/** Starts count threads on port (0 picks a free one, which the rest then share). */
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
            worker.postMessage('stop')
          }),
      ),
    )
  }
  try {
    for (let i = 0; i < count; i++) {
      const worker = new Worker(new URL('./ingress-thread.js', import.meta.url), {
        workerData: { port },
        resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
      })
      workers.push(worker)
      const message = await new Promise<ThreadMessage>((resolve, reject) => {
        worker.once('message', resolve)
        worker.once('error', reject)
        worker.once('exit', (code) => reject(new Error(`ingress thread ${i} exited with ${code} before listening`)))
      })
      worker.removeAllListeners()
      if (message.type === 'failed') throw new Error(message.message)
      port = message.port
      worker.on('error', (error) => log.error('ingress thread failed', { thread: i, error }))
      worker.once('exit', (code) => {
        if (!stopping) reportFailure(`ingress thread ${i} exited with ${code}`)
      })
    }
  } catch (error) {
    await Promise.all(workers.map((worker) => worker.terminate()))
    throw error
  }
  log.info('ingress threads listening', { threads: count, port })
  return { port, failed, stop }
}
