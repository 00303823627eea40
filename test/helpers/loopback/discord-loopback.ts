/**
 * A Discord stand-in on 127.0.0.1 answering as Discord's incoming webhooks do
 * (POST /api/webhooks/<id>/<token>): 204 for a good post; JSON errors { message, code } otherwise:
 * 404 code 10015 for an unknown webhook, 401 code 50027 for a wrong token, 403, 429 with
 * retry_after, 5xx, or a redirect. Like Discord it refuses a content that is empty or longer than
 * 2,000 characters (400 code 50035), and it records every post, so tests can prove what arrived.
 */
import { randomBytes, randomInt } from 'node:crypto'
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** How a webhook answers a post; acceptFirst takes that many posts, then answers as then. */
export type DiscordAnswer =
  | 'ok'
  | 'unknown_webhook'
  | 'invalid_token'
  | 'forbidden'
  | 'rate_limited'
  | 'server_error'
  | { readonly redirectTo: string }
  | { readonly acceptFirst: number; readonly then: DiscordAnswer }

/** One post that reached the receiver. */
export interface DiscordPost {
  readonly path: string
  readonly contentType: string
  readonly body: { content?: unknown; allowed_mentions?: unknown; [field: string]: unknown }
}

/** A running receiver and its controls. */
export interface DiscordLoopback {
  /** A new webhook URL (/api/webhooks/<id>/<token>, as Discord shows it) that answers as told. */
  webhook(answer?: DiscordAnswer): string
  /** Every post received, in order, whatever its path. */
  readonly received: readonly DiscordPost[]
  /** The contents posted to url, in order. */
  contentsPostedTo(url: string): string[]
  close(): Promise<void>
}

const ERRORS = {
  unknown_webhook: [404, { message: 'Unknown Webhook', code: 10015 }],
  invalid_token: [401, { message: 'Invalid Webhook Token', code: 50027 }],
  forbidden: [403, { message: 'Missing Access', code: 50001 }],
  rate_limited: [429, { message: 'You are being rate limited.', retry_after: 1.5, global: false }],
  server_error: [502, { message: 'Bad Gateway', code: 0 }],
} as const

/** Starts a receiver on a free port. */
export async function startDiscordLoopback(): Promise<DiscordLoopback> {
  const hooks = new Map<string, DiscordAnswer>()
  const taken = new Map<string, number>()
  const received: DiscordPost[] = []
  const json = (res: ServerResponse, status: number, body: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/json' })
    res.end(JSON.stringify(body))
  }
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname
      let body: DiscordPost['body'] = {}
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as DiscordPost['body']
      } catch {
        return json(res, 400, { message: 'The request body contains invalid JSON.', code: 50109 })
      }
      received.push({ path, contentType: String(req.headers['content-type'] ?? ''), body })
      // Discord answers an unknown webhook path as it does a deleted webhook.
      let answer = hooks.get(path) ?? 'unknown_webhook'
      if (typeof answer === 'object' && 'acceptFirst' in answer) {
        const count = taken.get(path) ?? 0
        answer = count < answer.acceptFirst ? 'ok' : answer.then
      }
      if (typeof answer === 'object' && 'redirectTo' in answer) {
        res.writeHead(301, { location: answer.redirectTo })
        return res.end()
      }
      if (typeof answer === 'object') return json(res, 500, { message: 'nested scenario', code: 0 })
      if (answer !== 'ok') return json(res, ERRORS[answer][0], ERRORS[answer][1])
      const content = body.content
      if (typeof content !== 'string' || content.length === 0) return json(res, 400, { message: 'Cannot send an empty message', code: 50006 })
      if (content.length > 2000) return json(res, 400, { message: 'Invalid Form Body', code: 50035, errors: { content: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH' }] } } })
      taken.set(path, (taken.get(path) ?? 0) + 1)
      res.writeHead(204)
      res.end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    webhook(answer = 'ok') {
      // A snowflake id and a 68-character token, as Discord's are.
      const path = `/api/webhooks/${randomInt(1e8, 1e9)}${randomInt(1e8, 1e9)}/${randomBytes(51).toString('base64url')}`
      hooks.set(path, answer)
      return `${origin}${path}`
    },
    received,
    contentsPostedTo: (url) => received.filter((post) => post.path === new URL(url).pathname && typeof post.body.content === 'string').map((post) => String(post.body.content)),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
