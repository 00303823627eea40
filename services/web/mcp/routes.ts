/**
 * POST /mcp: the tool server on the ingress port (spec "Tool-server connection"). uWS hands the
 * request over; this reads the body with its cap, checks the bearer api key and the key's rate,
 * then answers through the official SDK's web-standard Streamable HTTP transport in stateless JSON
 * mode (a fresh McpServer and transport per request, no session, no stream) and writes its
 * Response back. GET and DELETE (the transport's stream and session ends) answer 405.
 */
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import type { Redis } from 'ioredis'
import type uWS from 'uWebSockets.js'
import type { ToolServerLimits } from '../../../shared/config/tool-server.js'
import { isDatabaseOutage, type Db } from '../../../shared/db/index.js'
import { exchange, readBodyText, send, sendError, type Exchange } from '../../../shared/http/exchange.js'
import { BodyError } from '../../../shared/http/errors.js'
import type { KeyAuthenticator } from '../../../shared/key-auth.js'
import type { Logger } from '../../../shared/log.js'
import type { Orm } from '../../../shared/db/orm.js'
import { isRedisConnectionError, type StreamKeys } from '../../../shared/redis.js'
import { ToolServerError } from './errors.js'
import { countRequest } from './metrics.js'
import { countToolRequest } from './rate-limit.js'
import { createToolServer } from './server.js'
import { TOOLS } from './tools/index.js'

export interface ToolServerDeps {
  db: Db
  orm: Orm
  redis: Redis
  keys: StreamKeys
  log: Logger
  /** The process's key authenticator (shared with ingestion: one cache, one revocation watch). */
  auth: KeyAuthenticator
  limits: ToolServerLimits
  baseUrl: string
  investigationLeaseMs: number
  track(work: Promise<void>): void
}

/** The version clients see at initialisation: the tool table's, bumped when a tool's contract changes. */
const TOOLS_VERSION = '1.0.0'
/** Seconds a client waits after an outage answer. */
const OUTAGE_RETRY_SECONDS = 5

/** What the answer needs from the request; uWS frees req at the first await. */
interface McpRequest {
  authorization: string
  headers: Array<[string, string]>
  gzipped: boolean
}

const FORWARDED = ['content-type', 'accept', 'mcp-protocol-version', 'mcp-session-id', 'last-event-id']

/** The bearer token of an Authorization header, or undefined. */
export function bearerToken(header: string): string | undefined {
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header)
  return match?.[1]
}

/** Registers POST /mcp, and 405 for the transport's other methods. */
export function registerToolServerRoutes(app: uWS.TemplatedApp, deps: ToolServerDeps): void {
  app.post('/mcp', (res, req) => {
    const ex = exchange(res)
    const request: McpRequest = {
      authorization: req.getHeader('authorization'),
      headers: FORWARDED.map((name): [string, string] => [name, req.getHeader(name)]).filter(([, value]) => value !== ''),
      gzipped: req.getHeader('content-encoding').toLowerCase() === 'gzip',
    }
    // A declared length over the cap is refused before a byte is read.
    if (Number(req.getHeader('content-length')) > deps.limits.maxBodyBytes) return refuse(ex, new ToolServerError('request_too_large'))
    const body = readBodyText(ex, deps.limits.maxBodyBytes, request.gzipped)
    body.catch(() => {}) // awaited below; a refusal before then must not be unhandled
    deps.track(answer(ex, deps, () => serve(ex, deps, request, body)))
  })
  for (const method of ['get', 'del', 'put', 'patch'] as const) {
    app[method]('/mcp', (res) => refuse(exchange(res), new ToolServerError('method_not_allowed', { extra: { allow: 'POST' } })))
  }
}

async function serve(ex: Exchange, deps: ToolServerDeps, request: McpRequest, body: Promise<string>): Promise<void> {
  const auth = await deps.auth.authenticate(bearerToken(request.authorization), 'api')
  if (!auth.ok) {
    const retryAfter = auth.code === 'key_check_unavailable' ? OUTAGE_RETRY_SECONDS : undefined
    return refuse(ex, new ToolServerError(auth.code, { retryAfter }))
  }
  await countToolRequest(deps.redis, deps.keys, auth.keyId, deps.limits.callsPerKeyPerMinute)
  const text = await body
  const ctx = { db: deps.db, orm: deps.orm, redis: deps.redis, keys: deps.keys, log: deps.log, baseUrl: deps.baseUrl, investigationLeaseMs: deps.investigationLeaseMs, projectId: auth.projectId, keyId: auth.keyId }
  const server = createToolServer(ctx, TOOLS, TOOLS_VERSION)
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true, maxRequestBodySize: deps.limits.maxBodyBytes })
  try {
    await server.connect(transport)
    const response = await transport.handleRequest(new Request('http://localhost/mcp', { method: 'POST', headers: request.headers, body: text }))
    const answerText = response.status === 202 || response.status === 204 ? undefined : await response.text()
    send(ex, response.status, answerText === '' ? undefined : answerText)
    countRequest('answered')
  } finally {
    await server.close()
  }
}

/** Runs the exchange, turning every failure into a catalogued answer; nothing escapes. */
async function answer(ex: Exchange, deps: ToolServerDeps, run: () => Promise<void>): Promise<void> {
  try {
    await run()
  } catch (error) {
    if (error instanceof ToolServerError) return refuse(ex, error)
    if (error instanceof BodyError) return refuse(ex, new ToolServerError(error.reason === 'too_large' ? 'request_too_large' : 'not_gzip'))
    if (isDatabaseOutage(error) || isRedisConnectionError(error)) return refuse(ex, new ToolServerError('unavailable', { retryAfter: OUTAGE_RETRY_SECONDS }))
    deps.log.error('tool server request failed', { error })
    refuse(ex, new ToolServerError('internal_error'))
  }
}

/** Answers a refusal and counts it by code. */
function refuse(ex: Exchange, error: ToolServerError): void {
  countRequest(error.code)
  sendError(ex, error)
}
