/**
 * The matcher's embedder: the configured embeddings plugin behind one interface. A CPU-bound
 * plugin (embeddings-local) computes in a piscina pool of SVC_EMBEDDINGS_POOL_THREADS worker
 * threads, so hashing or a model's arithmetic never holds the event loop that renews job leases;
 * one that calls an endpoint (embeddings-openai) stays on the main thread, since a thread that only
 * waits on a socket buys nothing the event loop does not already do. Every answer is checked here:
 * one unit vector of EMBEDDING_DIMENSIONS numbers per text, whatever the plugin.
 */
import { Piscina } from 'piscina'
import type { EmbeddingsConfig, LogLevel } from '../../../shared/config/index.js'
import type { Logger } from '../../../shared/log.js'
import { EMBEDDING_DIMENSIONS, EmbeddingsUnavailable, type EmbeddingsPlugin } from '../../../shared/plugins/embeddings-types.js'
import { loadEmbeddingsPlugin } from '../../../shared/plugins/loader.js'
import type { PoolAnswer, PoolWorkerData } from './worker.js'

export interface Embedder {
  /** The model's name, stored beside every vector (friction_findings.embedding_model). */
  readonly model: string
  /** One unit vector of EMBEDDING_DIMENSIONS numbers per text, in order; throws EmbeddingsUnavailable when none can be had now. */
  embed(texts: readonly string[]): Promise<number[][]>
  /** Stops the pool's threads (if any); embed must not be called afterwards. */
  close(): Promise<void>
}

/**
 * Texts per pool task: large enough that a task's hand-over (a message each way) is small beside
 * its work, small enough that a backfill's batch spreads over every thread.
 */
export const POOL_TASK_TEXTS = 32

/** How long a pool thread without work stays up before it ends. */
const POOL_IDLE_MS = 60_000

/** How far from 1 a vector's length may be (float rounding of a provider's own normalisation). */
const UNIT_TOLERANCE = 1e-3

/**
 * The embedder config selects, or undefined with SVC_EMBEDDINGS_PLUGIN=none (matching then runs
 * without embeddings). A plugin that cannot load stops start-up with a PluginError naming the
 * variable to fix; a CPU-bound one is also proven to load and answer in a pool thread first.
 */
export async function createEmbedder(config: { readonly embeddings: EmbeddingsConfig; readonly logLevel: LogLevel }, log: Logger): Promise<Embedder | undefined> {
  const plugin = await loadEmbeddingsPlugin(config, log)
  if (plugin === undefined) return undefined
  const choice = config.embeddings.plugin!
  if (plugin.cpuBound !== true) {
    log.info('embeddings: computed by the provider, requests from the main thread', { model: plugin.model })
    return mainThreadEmbedder(plugin)
  }
  const threads = config.embeddings.poolThreads
  const workerData: PoolWorkerData = { name: choice.name, settings: choice.settings, logLevel: config.logLevel }
  const pool = new Piscina({
    // worker.js: a tsx shim beside the sources, the compiled worker.ts in the compiled tree and dist/.
    filename: new URL('./worker.js', import.meta.url).href,
    // Threads start on demand and end after a minute without work: an idle worker holds none (each
    // costs about 20 MB resident), and a burst of findings pays one thread start, not one per text.
    minThreads: 0,
    maxThreads: threads,
    idleTimeout: POOL_IDLE_MS,
    workerData,
  })
  const runTask = async (texts: readonly string[]): Promise<number[][]> => {
    const answer = (await pool.run(texts)) as PoolAnswer
    if (!(answer instanceof Float64Array)) throw new EmbeddingsUnavailable(answer.message, answer.retryAfterMs)
    if (answer.length !== texts.length * EMBEDDING_DIMENSIONS) throw new EmbeddingsUnavailable(`${plugin.model} answered a task with the wrong number of numbers. This is a bug in the plugin.`)
    return Array.from({ length: texts.length }, (_, index) => Array.from(answer.subarray(index * EMBEDDING_DIMENSIONS, (index + 1) * EMBEDDING_DIMENSIONS)))
  }
  const embed = async (texts: readonly string[]): Promise<number[][]> => {
    const tasks: Promise<number[][]>[] = []
    for (let start = 0; start < texts.length; start += POOL_TASK_TEXTS) tasks.push(runTask(texts.slice(start, start + POOL_TASK_TEXTS)))
    const work = Promise.all(tasks).then((parts) => parts.flat())
    return checked(plugin, texts, work.catch((error: unknown) => Promise.reject(poolFailure(error, plugin.model))))
  }
  try {
    // A thread that cannot load the plugin (a module that only works on the main thread) fails here, at start-up.
    await embed(['embeddings pool start-up check'])
  } catch (error) {
    await pool.destroy()
    throw error
  }
  log.info('embeddings: computed in the matcher\'s worker threads', { model: plugin.model, threads })
  return { model: plugin.model, embed, close: () => pool.destroy() }
}

/** The embedder of a plugin that waits on the network: its own embed, on the calling thread, its answers checked. */
export function mainThreadEmbedder(plugin: EmbeddingsPlugin): Embedder {
  return { model: plugin.model, embed: (texts) => checked(plugin, texts, plugin.embed(texts)), close: async () => {} }
}

/** A thread that died or could not start: the message, never a stack, and the job waits. */
function poolFailure(error: unknown, model: string): EmbeddingsUnavailable {
  if (error instanceof EmbeddingsUnavailable) return error
  return new EmbeddingsUnavailable(`${model}: a pool thread failed (${error instanceof Error ? error.message : String(error)}).`)
}

/** The vectors of work, once they prove to be one unit vector of EMBEDDING_DIMENSIONS numbers per text. */
async function checked(plugin: EmbeddingsPlugin, texts: readonly string[], work: Promise<number[][]>): Promise<number[][]> {
  const vectors = await work
  const wrong = (what: string): never => {
    throw new EmbeddingsUnavailable(`${plugin.model} answered ${what}; an embeddings plugin answers one unit vector of ${EMBEDDING_DIMENSIONS} numbers per text. This is a bug in the plugin.`)
  }
  if (!Array.isArray(vectors) || vectors.length !== texts.length) wrong(`${Array.isArray(vectors) ? vectors.length : 'no'} vectors for ${texts.length} texts`)
  for (const vector of vectors) {
    if (!Array.isArray(vector) || vector.length !== EMBEDDING_DIMENSIONS) wrong(`a vector of ${Array.isArray(vector) ? vector.length : 'no'} numbers`)
    let sum = 0
    for (const value of vector) sum += value * value
    if (!(Math.abs(Math.sqrt(sum) - 1) <= UNIT_TOLERANCE)) wrong('a vector that is not of unit length')
  }
  return vectors
}
