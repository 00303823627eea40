/**
 * One thread of the matcher's embeddings pool (piscina): it loads the configured CPU-bound
 * embeddings plugin once, by the same name and settings the main thread checked, and embeds the
 * texts of each task. Vectors go back as one Float64Array whose buffer is moved, not copied; a
 * failure goes back as a value, since an error crossing threads loses its class and retry-after.
 */
import { move, workerData } from 'piscina'
import type { LogLevel } from '../../../shared/config/index.js'
import { createLogger } from '../../../shared/log.js'
import { EMBEDDING_DIMENSIONS, EmbeddingsUnavailable } from '../../../shared/plugins/embeddings-types.js'
import { loadPlugin } from '../../../shared/plugins/loader.js'

/** What the pool hands every thread (structured-cloned). */
export interface PoolWorkerData {
  readonly name: string
  readonly settings: Readonly<Record<string, unknown>>
  readonly logLevel: LogLevel
}

/** A task's answer: texts.length × EMBEDDING_DIMENSIONS numbers in a row, or why there are none. */
export type PoolAnswer = Float64Array | { readonly message: string; readonly retryAfterMs: number | undefined }

const data = workerData as PoolWorkerData
const log = createLogger(data.logLevel, { plugin: data.name, thread: 'embeddings-pool' })
const plugin = await loadPlugin('embeddings', data.name, data.settings, { log })

/** The piscina task: the vectors of texts, in order. */
export default async function embed(texts: readonly string[]): Promise<PoolAnswer> {
  let vectors: number[][]
  try {
    vectors = await plugin.embed(texts)
  } catch (error) {
    const retryAfterMs = error instanceof EmbeddingsUnavailable ? error.retryAfterMs : undefined
    return { message: error instanceof Error ? error.message : String(error), retryAfterMs }
  }
  // Shapes are checked on the main thread; a wrong one still must not be packed out of place here.
  if (vectors.length !== texts.length || vectors.some((vector) => vector.length !== EMBEDDING_DIMENSIONS)) {
    return { message: `${plugin.model} answered ${vectors.length} vectors for ${texts.length} texts, or vectors of other than ${EMBEDDING_DIMENSIONS} dimensions. This is a bug in the plugin.`, retryAfterMs: undefined }
  }
  const packed = new Float64Array(texts.length * EMBEDDING_DIMENSIONS)
  vectors.forEach((vector, index) => packed.set(vector, index * EMBEDDING_DIMENSIONS))
  // Moved: the buffer changes threads without a copy.
  return move(packed) as Float64Array
}
