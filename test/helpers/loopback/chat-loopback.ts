/**
 * A chat-webhook receiver on 127.0.0.1 that answers as Slack's incoming webhooks do: 200 "ok" for
 * a good post, 403 "invalid_token" or 404 "no_service" for a revoked or unknown webhook, 500 for an
 * outage, or a redirect. It records every post, so tests can prove what arrived and what did not.
 */
import { randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

/** How a webhook on this receiver answers a post. */
export type ChatAnswer = 'ok' | 'invalid_token' | 'no_service' | 'server_error' | { readonly redirectTo: string }

/** One post that reached the receiver. */
export interface ReceivedPost {
  readonly path: string
  readonly contentType: string
  readonly body: unknown
}

/** A running receiver and its controls. */
export interface ChatLoopback {
  /** http://127.0.0.1:<port> */
  readonly origin: string
  /** A new webhook URL (Slack's /services/T…/B…/<secret> shape) that answers as told. */
  webhook(answer?: ChatAnswer): string
  /** Changes how an existing webhook answers from now on (a chat outage that ends, a webhook revoked later). */
  setAnswer(webhookUrl: string, answer: ChatAnswer): void
  /** Every post received, in order, whatever its path. */
  readonly received: readonly ReceivedPost[]
  close(): Promise<void>
}

const STATUS = { ok: [200, 'ok'], invalid_token: [403, 'invalid_token'], no_service: [404, 'no_service'], server_error: [500, 'server_error'] } as const

/** Starts a receiver on a free port. */
export async function startChatLoopback(): Promise<ChatLoopback> {
  const hooks = new Map<string, ChatAnswer>()
  const received: ReceivedPost[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname
      const text = Buffer.concat(chunks).toString('utf8')
      let body: unknown = text
      try {
        body = JSON.parse(text)
      } catch {
        // kept as text: a test may check that a non-JSON post arrived
      }
      received.push({ path, contentType: String(req.headers['content-type'] ?? ''), body })
      // Slack answers an unknown webhook path as it does a deleted one.
      const answer = hooks.get(path) ?? 'no_service'
      if (typeof answer === 'object') {
        res.writeHead(302, { location: answer.redirectTo })
        return res.end()
      }
      const [status, reply] = STATUS[answer]
      res.writeHead(status, { 'content-type': 'text/html' })
      res.end(reply)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    origin,
    webhook(answer = 'ok') {
      const path = `/services/T${randomBytes(5).toString('hex').toUpperCase()}/B${randomBytes(5).toString('hex').toUpperCase()}/${randomBytes(12).toString('hex')}`
      hooks.set(path, answer)
      return `${origin}${path}`
    },
    setAnswer(webhookUrl, answer) {
      hooks.set(new URL(webhookUrl).pathname, answer)
    },
    received,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
