/**
 * embeddings-openai: vectors from OpenAI's embeddings API, or any OpenAI-compatible endpoint
 * (baseUrl), with the official openai SDK. It asks for 384 dimensions; a model that does not take
 * the dimensions parameter (a 400) is asked again without it, and its longer vectors are cut to
 * their leading 384 and renormalised from then on. Texts go 64 to a request (batchSize). The SDK
 * never retries: an EmbeddingsUnavailable sends the matcher's job back to wait, 429's Retry-After
 * included. The calls wait on the network, so this plugin stays on the main thread (cpuBound unset).
 */
import OpenAI from 'openai'
import { blankTextVector, EMBEDDING_DIMENSIONS, type EmbeddingsPlugin } from '../../shared/plugins/embeddings-types.js'
import type { PluginModule } from '../../shared/plugins/types.js'
import { explainFailure, isBadRequest, type FailureContext } from './failures.js'
import { readEmbeddings } from './reply.js'

/** Settings after the loader applied the schema's defaults. */
interface OpenAiEmbeddingsSettings {
  readonly apiKey: string
  readonly model: string
  readonly baseUrl: string | undefined
  readonly timeoutMs: number
  readonly batchSize: number
}

const DEFAULT_BASE_URL = 'https://api.openai.com/v1'

/**
 * A narrative is a sentence or two; this cap only bounds what untrusted text can cost. Even at
 * one token a character, 64 of them stay under OpenAI's 8,192 tokens an input and 300,000 a request.
 */
export const MAX_TEXT_CHARS = 2000

const configSchema = {
  type: 'object',
  properties: {
    apiKey: { type: 'string', minLength: 1, description: 'API key (sent only in the Authorization header). A local server that needs none takes any value.' },
    model: { type: 'string', minLength: 1, default: 'text-embedding-3-small', description: 'Embeddings model, e.g. text-embedding-3-small, or the name a compatible server knows (nomic-embed-text).' },
    baseUrl: { type: 'string', format: 'uri', description: `The API root the SDK appends /embeddings to, usually ending in /v1; default ${DEFAULT_BASE_URL}.` },
    timeoutMs: { type: 'integer', minimum: 1, maximum: 600_000, default: 30_000, description: 'How long one request may take, answer included, in milliseconds.' },
    batchSize: { type: 'integer', minimum: 1, maximum: 2048, default: 64, description: 'Texts per request (OpenAI takes up to 2048).' },
  },
  required: ['apiKey'],
  additionalProperties: false,
} as const

/** The plugin module the loader imports: manifest plus factory. */
const plugin: PluginModule<'embeddings'> = {
  manifest: { name: 'embeddings-openai', kind: 'embeddings', version: '1.0.0', configSchema },
  create(settings, context): EmbeddingsPlugin {
    const { apiKey, model: modelName, baseUrl, timeoutMs, batchSize } = settings as unknown as OpenAiEmbeddingsSettings
    const model = `openai:${modelName}`
    const failure: FailureContext = { model, origin: new URL(baseUrl ?? DEFAULT_BASE_URL).origin, timeoutMs }
    const client = new OpenAI({
      apiKey,
      // All explicit (null where unused), so OPENAI_BASE_URL, OPENAI_ORG_ID and the like in the
      // environment can neither redirect the key nor add headers.
      baseURL: baseUrl ?? DEFAULT_BASE_URL,
      organization: null,
      project: null,
      adminAPIKey: null,
      maxRetries: 0,
      timeout: timeoutMs,
      // The SDK's log lines may show request details; ours say what matters and nothing secret.
      logLevel: 'off',
    })
    // Until a model refuses it: then its vectors are cut here instead.
    let askDimensions = true

    const request = async (input: string[], dimensions: boolean): Promise<number[][]> => {
      const body = {
        model: modelName,
        input,
        // Floats, not the SDK's default base64: every compatible server speaks them.
        encoding_format: 'float' as const,
        ...(dimensions ? { dimensions: EMBEDDING_DIMENSIONS } : {}),
      }
      // The deadline covers the body too; the SDK's own timeout stops at the headers.
      const reply: unknown = await client.embeddings.create(body, { signal: AbortSignal.timeout(timeoutMs) })
      return readEmbeddings(reply, input.length, model)
    }

    const embedBatch = async (input: string[]): Promise<number[][]> => {
      try {
        return await request(input, askDimensions)
      } catch (error) {
        if (!(askDimensions && isBadRequest(error))) throw explainFailure(error, failure)
      }
      // A 400 with dimensions asked: models that cannot shorten their vectors (text-embedding-ada-002,
      // most local ones) refuse the parameter. Asked again without it, a success settles it.
      try {
        const vectors = await request(input, false)
        askDimensions = false
        context.log.info('embeddings-openai: the model does not take dimensions; its vectors are cut to their leading dimensions and renormalised', { model })
        return vectors
      } catch (error) {
        throw explainFailure(error, failure)
      }
    }

    return {
      model,
      async embed(texts) {
        const vectors: number[][] = new Array<number[]>(texts.length)
        // Blank texts cost no request (OpenAI refuses empty input): they get the fixed blank vector.
        const asked: number[] = []
        texts.forEach((text, index) => {
          if (text.trim() === '') vectors[index] = blankTextVector()
          else asked.push(index)
        })
        for (let start = 0; start < asked.length; start += batchSize) {
          const indexes = asked.slice(start, start + batchSize)
          const answered = await embedBatch(indexes.map((index) => cut(texts[index]!)))
          indexes.forEach((index, position) => (vectors[index] = answered[position]!))
        }
        context.log.debug('embeddings-openai: embedded', { model, texts: texts.length, requests: Math.ceil(asked.length / batchSize) })
        return vectors
      },
    }
  },
}

export default plugin

/** The first MAX_TEXT_CHARS characters of text, never half a surrogate pair (JSON would carry it as a lone escape). */
function cut(text: string): string {
  if (text.length <= MAX_TEXT_CHARS) return text
  const end = /[\uD800-\uDBFF]/.test(text[MAX_TEXT_CHARS - 1]!) ? MAX_TEXT_CHARS - 1 : MAX_TEXT_CHARS
  return text.slice(0, end)
}
