/**
 * An OpenAI-compatible embeddings endpoint on 127.0.0.1 (POST /v1/embeddings) for embeddings-openai's
 * tests: the real openai SDK talks HTTP to it. Each text's vector is derived from the text (a
 * SHA-256 stream), 1536 numbers of unit length as text-embedding-3-small has, and cut to the
 * request's dimensions and renormalised as OpenAI does; so answers are deterministic and tell texts
 * apart. A script makes it answer otherwise: an error status, a hang, a body that is not embeddings,
 * vectors of another length, or a refusal of the dimensions parameter as older models give.
 */
import { createHash } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** One request as received. */
export interface EmbeddingsRequest {
  readonly headers: Readonly<Record<string, string | undefined>>
  readonly rawBody: string
  readonly model: string
  readonly input: readonly string[]
  readonly dimensions: number | undefined
  readonly encodingFormat: string | undefined
}

/** How the server answers one request; undefined answers it normally. */
export type EmbeddingsStep =
  | undefined
  /** An error status with OpenAI's error body (or body); retryAfter in seconds, retryAfterMs as OpenAI sends it. */
  | { readonly status: number; readonly body?: unknown; readonly retryAfter?: string; readonly retryAfterMs?: number }
  | { readonly hang: true }
  /** 200 with this text as the body. */
  | { readonly garbage: string }
  /** Vectors of this many numbers whatever was asked (a model that ignores dimensions, or a short one). */
  | { readonly nativeDimensions: number }
  /** 400 when dimensions is asked for, as text-embedding-ada-002 and most local models answer; else normal. */
  | { readonly refuseDimensions: true }

export type EmbeddingsScript = (request: EmbeddingsRequest, index: number) => EmbeddingsStep

export interface EmbeddingsServer {
  /** http://127.0.0.1:<port>/v1, the API root the SDK appends /embeddings to. */
  readonly baseUrl: string
  readonly requests: EmbeddingsRequest[]
  script(fn: EmbeddingsScript): void
  /** The vector the server gives text at dimensions numbers (for comparing with a plugin's answer). */
  vectorOf(text: string, dimensions: number): number[]
  close(): Promise<void>
}

const NATIVE_DIMENSIONS = 1536

export async function startEmbeddingsServer(): Promise<EmbeddingsServer> {
  let script: EmbeddingsScript = () => undefined
  const requests: EmbeddingsRequest[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => answer(req, res, Buffer.concat(chunks).toString('utf8')))
  })
  const answer = (req: IncomingMessage, res: ServerResponse, rawBody: string): void => {
    const send = (status: number, body: unknown, headers: Record<string, string> = {}): void => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(typeof body === 'string' ? body : JSON.stringify(body))
    }
    if (req.method !== 'POST' || req.url !== '/v1/embeddings') return send(404, { error: { message: 'Not found', type: 'invalid_request_error', code: 'unknown_url' } })
    let parsed: Record<string, unknown>
    try {
      parsed = JSON.parse(rawBody) as Record<string, unknown>
    } catch {
      return send(400, { error: { message: 'We could not parse the JSON body of your request.', type: 'invalid_request_error' } })
    }
    const input = typeof parsed.input === 'string' ? [parsed.input] : Array.isArray(parsed.input) ? (parsed.input as string[]) : []
    const request: EmbeddingsRequest = {
      headers: Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : value])),
      rawBody,
      model: String(parsed.model),
      input,
      dimensions: typeof parsed.dimensions === 'number' ? parsed.dimensions : undefined,
      encodingFormat: typeof parsed.encoding_format === 'string' ? parsed.encoding_format : undefined,
    }
    requests.push(request)
    const step = script(request, requests.length - 1)
    if (step !== undefined && 'hang' in step) return // answered never; close() drops the connection
    if (step !== undefined && 'status' in step) {
      const headers: Record<string, string> = {}
      if (step.retryAfter !== undefined) headers['retry-after'] = step.retryAfter
      if (step.retryAfterMs !== undefined) headers['retry-after-ms'] = String(step.retryAfterMs)
      return send(step.status, step.body ?? { error: { message: `Scripted failure ${step.status}`, type: step.status === 429 ? 'requests' : 'server_error', code: step.status === 429 ? 'rate_limit_exceeded' : null } }, headers)
    }
    if (step !== undefined && 'garbage' in step) return send(200, step.garbage)
    if (input.length === 0 || input.some((text) => typeof text !== 'string' || text === '')) {
      // OpenAI refuses empty strings in input.
      return send(400, { error: { message: "'$.input' is invalid.", type: 'invalid_request_error', code: null } })
    }
    if (step !== undefined && 'refuseDimensions' in step && request.dimensions !== undefined) {
      return send(400, { error: { message: 'This model does not support specifying dimensions.', type: 'invalid_request_error', param: 'dimensions', code: null } })
    }
    const dimensions = step !== undefined && 'nativeDimensions' in step ? step.nativeDimensions : (request.dimensions ?? NATIVE_DIMENSIONS)
    const data = input.map((text, index) => ({ object: 'embedding', index, embedding: vectorOf(text, dimensions) }))
    send(200, { object: 'list', data, model: request.model, usage: { prompt_tokens: input.length, total_tokens: input.length } })
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    script: (fn) => (script = fn),
    vectorOf,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** The text's full 1536-number vector (a SHA-256 stream of it, centred), cut to dimensions and scaled to unit length. */
function vectorOf(text: string, dimensions: number): number[] {
  const full: number[] = []
  for (let block = 0; full.length < Math.max(dimensions, NATIVE_DIMENSIONS); block++) {
    const bytes = createHash('sha256').update(`${block}\0${text}`).digest()
    for (const byte of bytes) full.push(byte - 127.5)
  }
  const cut = full.slice(0, dimensions)
  const norm = Math.sqrt(cut.reduce((sum, value) => sum + value * value, 0))
  return cut.map((value) => value / norm)
}
