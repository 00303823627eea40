/**
 * POST /api/v1/codehost/webhook: the code-host app's webhook (docs/fixes.md, "Following a pull
 * request to its end"). The signature (X-Hub-Signature-256) is checked by the official
 * @octokit/webhooks library against CODEHOST_WEBHOOK_SECRET before anything is read; a
 * pull_request delivery with action closed is handed to the investigator, which owns fixes; every
 * other event is acknowledged with 202 and ignored. Refusals are catalogued (errors.ts).
 */
import { Webhooks } from '@octokit/webhooks'
import type uWS from 'uWebSockets.js'
import { isDatabaseOutage } from '../../../shared/db/index.js'
import type { Orm } from '../../../shared/db/orm.js'
import { BodyError } from '../../../shared/http/errors.js'
import { exchange, readBodyText, send, sendError, type Exchange } from '../../../shared/http/exchange.js'
import type { Logger } from '../../../shared/log.js'
import { takeClosedPullRequest, type ClosedPullRequestDelivery } from '../../investigator/commands.js'
import { WebhookError } from './errors.js'

export const WEBHOOK_PATH = '/api/v1/codehost/webhook'

export interface WebhookDeps {
  orm: Orm
  log: Logger
  /** CODEHOST_WEBHOOK_SECRET; unset refuses every delivery. */
  secret: string | undefined
  track(work: Promise<void>): void
}

/** A pull_request payload is tens of KiB; GitHub's own cap is 25 MB. */
const MAX_BODY_BYTES = 1024 * 1024
/** GitHub's delivery ids are GUIDs; anything of this shape is taken as one. */
const DELIVERY_ID = /^[A-Za-z0-9-]{1,100}$/

/** What the answer needs from the request; uWS frees req at the first await. */
interface WebhookRequest {
  signature: string
  event: string
  deliveryId: string
}

/** Registers the webhook route. */
export function registerCodehostWebhookRoutes(app: uWS.TemplatedApp, deps: WebhookDeps): void {
  const webhooks = deps.secret === undefined ? undefined : new Webhooks({ secret: deps.secret })
  app.post(WEBHOOK_PATH, (res, req) => {
    const ex = exchange(res)
    const request: WebhookRequest = { signature: req.getHeader('x-hub-signature-256'), event: req.getHeader('x-github-event'), deliveryId: req.getHeader('x-github-delivery') }
    if (!webhooks) return sendError(ex, new WebhookError('webhook_not_configured'))
    if (Number(req.getHeader('content-length')) > MAX_BODY_BYTES) return sendError(ex, new WebhookError('request_too_large'))
    const body = readBodyText(ex, MAX_BODY_BYTES, false)
    body.catch(() => {}) // awaited below
    deps.track(
      serve(ex, deps, webhooks, request, body).catch((error: unknown) => {
        if (error instanceof WebhookError) return sendError(ex, error)
        if (error instanceof BodyError) return sendError(ex, new WebhookError('request_too_large'))
        if (isDatabaseOutage(error)) return sendError(ex, new WebhookError('unavailable', { retryAfter: 30 }))
        deps.log.error('code-host webhook failed', { delivery: request.deliveryId, error })
        sendError(ex, new WebhookError('internal_error'))
      }),
    )
  })
}

async function serve(ex: Exchange, deps: WebhookDeps, webhooks: Webhooks, request: WebhookRequest, body: Promise<string>): Promise<void> {
  const text = await body
  if (!(await signedBy(webhooks, text, request.signature))) throw new WebhookError('signature_invalid')
  if (!DELIVERY_ID.test(request.deliveryId)) throw new WebhookError('delivery_missing')
  const payload = parse(text)
  if (request.event !== 'pull_request' || payload.action !== 'closed') return send(ex, 202, JSON.stringify({ status: 'ignored' }))
  const delivery = closedPullRequest(request, payload)
  const taken = await takeClosedPullRequest(deps.orm, delivery)
  if (!taken.taken) throw new WebhookError(taken.refusal === 'replayed' ? 'delivery_replayed' : taken.refusal)
  deps.log.info('code-host webhook taken', { delivery: delivery.deliveryId, repo: delivery.repo, number: delivery.number, fix: taken.fixId, outcome: taken.outcome })
  send(ex, 200, JSON.stringify({ status: taken.fixId === null ? 'not_followed' : taken.outcome }))
}

/** Whether signature (sha256=…) is the body's HMAC under the secret; a missing one is not. */
async function signedBy(webhooks: Webhooks, text: string, signature: string): Promise<boolean> {
  if (signature === '' || text === '') return false
  return webhooks.verify(text, signature).catch(() => false)
}

function parse(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text)
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>
  } catch {
    // answered below
  }
  throw new WebhookError('payload_invalid')
}

/** The fields of a pull_request closed payload the investigator needs (GitHub's names). */
function closedPullRequest(request: WebhookRequest, payload: Record<string, unknown>): ClosedPullRequestDelivery {
  const pull = payload.pull_request as Record<string, unknown> | undefined
  const repo = (payload.repository as Record<string, unknown> | undefined)?.full_name
  if (!pull || typeof repo !== 'string' || !/^[\w.-]+\/[\w.-]+$/.test(repo) || !Number.isSafeInteger(pull.number) || (pull.number as number) < 1) throw new WebhookError('payload_invalid')
  const at = (value: unknown): Date | null => (typeof value === 'string' && !Number.isNaN(Date.parse(value)) ? new Date(value) : null)
  const merged = pull.merged === true
  return {
    deliveryId: request.deliveryId,
    event: request.event,
    action: 'closed',
    repo,
    number: pull.number as number,
    merged,
    mergedAt: merged ? at(pull.merged_at) : null,
    closedAt: at(pull.closed_at),
    mergeSha: merged && typeof pull.merge_commit_sha === 'string' ? pull.merge_commit_sha.slice(0, 64) : '',
  }
}
