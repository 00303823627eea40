/**
 * The setup-session API (/api/v1/agent/...): seven routes that read the request, call the setup
 * domain (services/web/setup/) and map its result or AgentError to the spec's statuses.
 */
import type uWS from 'uWebSockets.js'
import { isDatabaseOutage } from '../../../shared/db/index.js'
import { BodyError } from '../../../shared/http/errors.js'
import { clientAddress, exchange, readBodyText, send, sendError, type Exchange } from '../../../shared/http/exchange.js'
import { readQuery } from '../../../shared/http/request-text.js'
import { attachRepository, completeSession, connectChat, recordProgress } from './actions.js'
import { AgentError } from './errors.js'
import { pollAnswer } from './facts.js'
import { holdPoll, holdState } from './long-poll.js'
import { authenticateSession, registerSession, type SessionRow, type SetupDeps } from './sessions.js'
import { BODIES, parseBody } from './validate.js'
import { parseUntil, parseWait } from './wait-param.js'
import type { WakeHub } from './wake-hub.js'

/** Control bodies are small (reference: 64 KiB). */
const MAX_BODY_BYTES = 64 * 1024

export interface AgentRouteDeps {
  setup: SetupDeps
  hub: WakeHub
  /** Counts a request in flight, so a graceful stop lets it answer. */
  track(work: Promise<void>): void
  /** Trusted proxies in front (SVC_TRUSTED_PROXY_HOPS): where the client address is read from. */
  proxyHops: number
}

interface Request {
  pollId: string
  token: string | undefined
  query: URLSearchParams
  contentType: string
  declaredLength: number
  address: string
}

/** Headers and parameters, read before the first await (uWS frees req afterwards). */
function readRequest(res: uWS.HttpResponse, req: uWS.HttpRequest, withId: boolean, proxyHops: number): Request {
  return {
    pollId: withId ? req.getParameter(0) ?? '' : '',
    token: req.getHeader('x-svc-poll-token') || undefined,
    query: readQuery(req.getQuery()),
    contentType: req.getHeader('content-type'),
    declaredLength: Number(req.getHeader('content-length') || 0),
    address: clientAddress(res, req.getHeader('x-forwarded-for'), proxyHops),
  }
}

/** Registers the seven setup-session routes on app. */
export function registerAgentRoutes(app: uWS.TemplatedApp, deps: AgentRouteDeps): void {
  const { setup } = deps

  /** A POST route with a JSON body; the body reader starts before any await, as uWS requires. */
  const post = (path: string, withId: boolean, run: (ex: Exchange, request: Request, body: Promise<string>) => Promise<void>): void => {
    app.post(path, (res, req) => {
      const ex = exchange(res)
      const request = readRequest(res, req, withId, deps.proxyHops)
      const body = readBodyText(ex, MAX_BODY_BYTES, false)
      body.catch(() => {}) // observed inside run, unless the request fails first
      deps.track(answer(ex, setup, () => {
        if (request.declaredLength > MAX_BODY_BYTES) throw new AgentError('payload_too_large')
        const type = request.contentType.split(';', 1)[0]!.trim().toLowerCase()
        if (type !== 'application/json' && !(request.declaredLength === 0 && type === '')) throw new AgentError('unsupported_media_type')
        return run(ex, request, body)
      }))
    })
  }
  const session = (request: Request): Promise<SessionRow> => authenticateSession(setup, request.pollId, request.token)

  post('/api/v1/agent/setup', false, async (ex, request, body) => {
    const input = parseBody(await body, BODIES.setup)
    const answer = await registerSession(setup, { projectName: input.project_name, agentName: input.agent_name, gitRemote: input.git_remote }, request.address)
    send(ex, 200, JSON.stringify(answer))
  })

  app.get('/api/v1/agent/poll/:poll_id', (res, req) => {
    const ex = exchange(res)
    const request = readRequest(res, req, true, deps.proxyHops)
    deps.track(answer(ex, setup, async () => {
      const wait = parseWait(request.query.get('wait'))
      const current = await holdPoll(setup, deps.hub, await session(request), { waitSeconds: wait, onAbort: (fn) => (ex.onAbort = fn) })
      if (current) send(ex, 200, JSON.stringify(await pollAnswer(setup, current, request.token!)))
    }))
  })

  app.get('/api/v1/agent/poll/:poll_id/state', (res, req) => {
    const ex = exchange(res)
    const request = readRequest(res, req, true, deps.proxyHops)
    deps.track(answer(ex, setup, async () => {
      const wait = parseWait(request.query.get('wait'))
      const until = parseUntil(request.query.get('until'))
      const facts = await holdState(setup, deps.hub, await session(request), { waitSeconds: wait, onAbort: (fn) => (ex.onAbort = fn) }, until === 'event')
      if (facts) send(ex, 200, JSON.stringify(facts))
    }))
  })

  post('/api/v1/agent/poll/:poll_id/progress', true, async (ex, request, body) => {
    const current = await session(request)
    await recordProgress(setup, current, parseBody(await body, BODIES.progress))
    send(ex, 204, undefined)
  })

  post('/api/v1/agent/poll/:poll_id/codehost', true, async (ex, request, body) => {
    const current = await session(request)
    send(ex, 200, JSON.stringify(await attachRepository(setup, current, parseBody(await body, BODIES.codehost).repo)))
  })

  post('/api/v1/agent/poll/:poll_id/chat', true, async (ex, request, body) => {
    const current = await session(request)
    send(ex, 200, JSON.stringify(await connectChat(setup, current, parseBody(await body, BODIES.chat).webhook_url)))
  })

  post('/api/v1/agent/poll/:poll_id/complete', true, async (ex, request, body) => {
    const current = await session(request)
    parseBody(await body, BODIES.complete)
    send(ex, 200, JSON.stringify(await completeSession(setup, current)))
  })

  app.any('/api/v1/agent/*', (res) => sendError(exchange(res), new AgentError('not_found')))
}

/** Runs a route, turning every failure into a catalogued answer; nothing escapes. */
async function answer(ex: Exchange, setup: SetupDeps, run: () => Promise<void>): Promise<void> {
  try {
    await run()
  } catch (error) {
    if (error instanceof AgentError) return sendError(ex, error)
    if (error instanceof BodyError) {
      return sendError(ex, new AgentError(error.reason === 'too_large' ? 'payload_too_large' : 'invalid_json', error.reason === 'not_gzip' ? { message: error.message } : {}))
    }
    const outage = isOutage(error)
    if (!outage) setup.log.error('setup-session route failed', { error })
    sendError(ex, new AgentError(outage ? 'unavailable' : 'internal_error', outage ? { retryAfter: 5 } : {}))
  }
}

/** PostgreSQL or Redis unreachable: the client may retry; nothing was changed. */
function isOutage(error: unknown): boolean {
  return isDatabaseOutage(error) || (error as Error | undefined)?.message?.includes('Connection is closed') === true
}
