/**
 * What an embeddings plugin offers the matcher: unit-length vectors of one fixed size for texts
 * (friction narratives), so pgvector's cosine distance compares them. Vectors of different models
 * are never compared: each is stored with its model's name.
 */

/** Every vector has this many dimensions (the tables' vector(384) columns). */
export const EMBEDDING_DIMENSIONS = 384

export interface EmbeddingsPlugin {
  /** The model's name as stored beside each vector, e.g. "openai:text-embedding-3-small" or "local:hashed-ngrams-v1". */
  readonly model: string
  /**
   * True when embed() computes on the thread that calls it (a model run in-process): the matcher
   * then runs the plugin in its piscina worker threads, off the event loop. False or absent when
   * embed() waits on the network: it stays on the main thread, where waiting costs nothing.
   */
  readonly cpuBound?: boolean
  /**
   * One vector per text, in order: EMBEDDING_DIMENSIONS numbers of unit length. A blank text gets
   * blankTextVector(); an empty list gets an empty list. Throws EmbeddingsUnavailable when the
   * provider cannot answer now.
   */
  embed(texts: readonly string[]): Promise<number[][]>
}

/** The provider cannot answer now (down, refusing the key, rate-limited): the job is retried later. */
export class EmbeddingsUnavailable extends Error {
  override name = 'EmbeddingsUnavailable'
  constructor(message: string, readonly retryAfterMs?: number) {
    super(message)
  }
}

/**
 * The vector of a blank text (nothing but white space): (1, 0, …, 0). Every plugin answers it, so a
 * blank narrative never costs a request; the matcher does not match blank narratives anyway.
 */
export function blankTextVector(): number[] {
  const vector = new Array<number>(EMBEDDING_DIMENSIONS).fill(0)
  vector[0] = 1
  return vector
}

/**
 * The first EMBEDDING_DIMENSIONS numbers of vector scaled to unit length (a model that answers
 * more dimensions keeps its leading ones, as Matryoshka-trained models are meant to be cut), or
 * undefined when they are fewer, not finite, or all zero.
 */
export function toUnitVector(vector: ArrayLike<number>): number[] | undefined {
  if (vector.length < EMBEDDING_DIMENSIONS) return undefined
  let sum = 0
  for (let i = 0; i < EMBEDDING_DIMENSIONS; i++) {
    const value = vector[i]!
    if (!Number.isFinite(value)) return undefined
    sum += value * value
  }
  if (sum === 0) return undefined
  const norm = Math.sqrt(sum)
  const unit = new Array<number>(EMBEDDING_DIMENSIONS)
  for (let i = 0; i < EMBEDDING_DIMENSIONS; i++) unit[i] = vector[i]! / norm
  return unit
}
