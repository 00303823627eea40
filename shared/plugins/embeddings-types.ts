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
  /** One vector per text, in order: EMBEDDING_DIMENSIONS numbers of unit length. Throws EmbeddingsUnavailable when the provider cannot answer now. */
  embed(texts: readonly string[]): Promise<number[][]>
}

/** The provider cannot answer now (down, refusing the key, rate-limited): the job is retried later. */
export class EmbeddingsUnavailable extends Error {
  override name = 'EmbeddingsUnavailable'
  constructor(message: string, readonly retryAfterMs?: number) {
    super(message)
  }
}
