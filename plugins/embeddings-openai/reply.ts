/**
 * Reading an embeddings reply. An OpenAI-compatible server may answer 200 with anything, so the
 * reply is checked field by field, and every vector comes out as EMBEDDING_DIMENSIONS numbers of
 * unit length: a longer one is cut to its leading dimensions and renormalised.
 */
import { EMBEDDING_DIMENSIONS, EmbeddingsUnavailable, toUnitVector } from '../../shared/plugins/embeddings-types.js'

/** The unit vectors of a reply to count inputs, in input order; throws EmbeddingsUnavailable for anything else. */
export function readEmbeddings(body: unknown, count: number, model: string): number[][] {
  const bad = (what: string): never => {
    throw new EmbeddingsUnavailable(`${model} answered with a reply that is not an embeddings list (${what}). Check EMBEDDINGS_BASE_URL points at an embeddings API.`)
  }
  const data = isObject(body) && Array.isArray(body.data) ? (body.data as unknown[]) : bad('no data list')
  if (data.length !== count) bad(`${data.length} embeddings for ${count} texts`)
  const vectors = new Array<number[] | undefined>(count)
  data.forEach((item, position) => {
    if (!isObject(item)) return bad('an item that is not an object')
    // A lenient server may leave index out: its items are then in input order.
    const index = item.index === undefined ? position : item.index
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= count || vectors[index] !== undefined) return bad('indexes that do not match the texts')
    const embedding = item.embedding
    if (!Array.isArray(embedding) || !embedding.every((n) => typeof n === 'number')) return bad('an embedding that is not a list of numbers')
    const unit = toUnitVector(embedding as number[])
    if (unit === undefined) {
      if (embedding.length < EMBEDDING_DIMENSIONS) {
        throw new EmbeddingsUnavailable(`${model} answered vectors of ${embedding.length} dimensions; matching needs at least ${EMBEDDING_DIMENSIONS}. Choose a model with at least ${EMBEDDING_DIMENSIONS} (EMBEDDINGS_MODEL).`)
      }
      return bad('a vector that is all zeros or not finite')
    }
    vectors[index] = unit
  })
  return vectors as number[][]
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
