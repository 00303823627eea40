/**
 * A receiver of the generic signed webhook on 127.0.0.1, as a tool consuming it would be: every
 * post is verified with the standardwebhooks library's verify and the receiver's copy of the
 * secret, and one that fails (bad signature, tampered body, old timestamp, missing headers) is
 * refused with 401. It answers a verified post as told (2xx, an HTTP status, or a redirect) and
 * records every post with its raw body and headers.
 */
import { randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Webhook } from 'standardwebhooks'

/** How a webhook answers a verified post: 'ok' (204), another status, or a redirect. */
export type SignedAnswer = 'ok' | number | { readonly redirectTo: string }

/** One post that reached the receiver. */
export interface SignedPost {
  readonly path: string
  readonly headers: Readonly<Record<string, string>>
  readonly rawBody: string
  /** Whether verify() accepted it; why not, when it did not. */
  readonly verified: boolean
  readonly refusal: string
}

/** A running receiver and its controls. */
export interface SignedWebhookLoopback {
  /** A new webhook URL (/hooks/<token>) that answers a verified post as told. */
  webhook(answer?: SignedAnswer): string
  /** Every post received, in order. */
  readonly received: readonly SignedPost[]
  /** The text of each verified message posted to url, in order. */
  textsPostedTo(url: string): string[]
  close(): Promise<void>
}

/** Starts a receiver on a free port that verifies with secret (whsec_…). */
export async function startSignedWebhookLoopback(secret: string): Promise<SignedWebhookLoopback> {
  const verifier = new Webhook(secret)
  const hooks = new Map<string, SignedAnswer>()
  const received: SignedPost[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname
      const rawBody = Buffer.concat(chunks).toString('utf8')
      const headers = Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, String(value)]))
      let refusal = ''
      try {
        verifier.verify(rawBody, headers)
      } catch (error) {
        refusal = (error as Error).message
      }
      received.push({ path, headers, rawBody, verified: refusal === '', refusal })
      if (refusal !== '') {
        res.writeHead(401, { 'content-type': 'text/plain' })
        return res.end(`signature refused: ${refusal}`)
      }
      const answer = hooks.get(path) ?? 404
      if (typeof answer === 'object') {
        res.writeHead(307, { location: answer.redirectTo })
        return res.end()
      }
      // A body that echoes the request, as a careless receiver might: a plugin must never repeat it.
      res.writeHead(answer === 'ok' ? 204 : answer, { 'content-type': 'text/plain' })
      res.end(answer === 'ok' ? undefined : `no thanks for ${req.url}`)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    webhook(answer = 'ok') {
      const path = `/hooks/${randomBytes(16).toString('hex')}`
      hooks.set(path, answer)
      return `${origin}${path}`
    },
    received,
    textsPostedTo: (url) =>
      received.filter((post) => post.path === new URL(url).pathname && post.verified).map((post) => String((JSON.parse(post.rawBody) as { text?: unknown }).text)),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
