/**
 * A finding's subject as a vector (what is specific to it, not its narrative's template:
 * narrative.ts subjectOf): computed once with the configured embeddings plugin and kept on the
 * finding (embedding, embedding_model, embedding_of), outside the environment's lock, so a slow
 * provider never holds up the other matchers of the environment.
 */
import type { EntityManager } from '@mikro-orm/postgresql'
import { EMBEDDING_DIMENSIONS, type EmbeddingsPlugin } from '../../../shared/plugins/embeddings-types.js'
import type { FrictionFinding } from '../store/entities.js'

/** What matching needs of an embeddings plugin (createEmbedder's answer). */
export type Embedder = Pick<EmbeddingsPlugin, 'model' | 'embed'>

/** Why a finding could not be matched: a stable code and a message saying what to do. */
export class MatchError extends Error {
  override name = 'MatchError'
  constructor(
    readonly code: 'embedding_malformed',
    message: string,
  ) {
    super(message)
  }
}

/**
 * Embeds finding's subject with embedder and stores it (flushing em), unless it has a vector of
 * its subject already (one of its narrative, from before migration 081, is replaced).
 * EmbeddingsUnavailable from the plugin passes through (the job is retried later).
 */
export async function embedFinding(em: EntityManager, finding: FrictionFinding, embedder: Embedder): Promise<void> {
  if (finding.embedding && finding.embeddingOf === 'subject') return
  const vectors = await embedder.embed([finding.subject])
  finding.embedding = checkedVector(vectors, embedder.model)
  finding.embeddingModel = embedder.model
  finding.embeddingOf = 'subject'
  await em.flush()
}

/** The one vector of vectors, if it is one a cosine distance can be taken of; else MatchError. */
export function checkedVector(vectors: readonly number[][], model: string): number[] {
  const fix = `check the embeddings plugin of model ${model}: it must answer one vector of ${EMBEDDING_DIMENSIONS} finite numbers, not all zero, per text`
  if (vectors.length !== 1) throw new MatchError('embedding_malformed', `The embeddings plugin answered ${vectors.length} vectors for one text; ${fix}.`)
  const vector = vectors[0]!
  if (!Array.isArray(vector) || vector.length !== EMBEDDING_DIMENSIONS) {
    throw new MatchError('embedding_malformed', `The embeddings plugin answered a vector of ${Array.isArray(vector) ? vector.length : 'no'} dimensions; ${fix}.`)
  }
  let norm = 0
  for (const value of vector) {
    if (typeof value !== 'number' || !Number.isFinite(value)) throw new MatchError('embedding_malformed', `The embeddings plugin answered a vector with a value that is not a finite number; ${fix}.`)
    norm += value * value
  }
  // A zero vector has no direction: its cosine distance to anything is NaN.
  if (norm === 0) throw new MatchError('embedding_malformed', `The embeddings plugin answered a zero vector; ${fix}.`)
  return [...vector]
}
