/**
 * The HTTP plumbing the loopback GitHub's REST parts share: routes matched by pattern, request
 * bodies read (JSON or form), answers written as GitHub writes them, and the app JWT checked as
 * GitHub checks it.
 */
import { verify, type KeyObject } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'

/** A REST answer: status and JSON body. */
export type Reply = { status: number; body: unknown }

export const NOT_FOUND: Reply = { status: 404, body: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' } }

/** The route of routes ("GET repos/:/:") that method and parts match, literal segments exactly and ":" anything. */
export function routeOf<R extends string>(routes: readonly R[], method: string, parts: readonly string[]): R | undefined {
  return routes.find((route) => {
    const [verb, path] = route.split(' ') as [string, string]
    const pattern = path.split('/')
    return verb === method && pattern.length === parts.length && pattern.every((segment, i) => segment === ':' || segment === parts[i])
  })
}

/** The request's body: JSON, or a form; {} when empty. */
export async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  const text = Buffer.concat(chunks).toString('utf8')
  if (text === '') return {}
  if (String(req.headers['content-type']).includes('json')) return JSON.parse(text) as Record<string, unknown>
  return Object.fromEntries(new URLSearchParams(text))
}

export function send(res: ServerResponse, reply: Reply): void {
  res.writeHead(reply.status, { 'content-type': 'application/json; charset=utf-8', 'x-ratelimit-remaining': '4999' })
  res.end(JSON.stringify(reply.body))
}

/** Checks an RS256 JWT against the app's public key: signature, issuer and lifetime as GitHub does. */
export function verifyAppJwt(token: string, publicKey: KeyObject, appId: string): boolean {
  const [header, payload, signature] = token.split('.')
  if (!header || !payload || !signature) return false
  const ok = verify('sha256', Buffer.from(`${header}.${payload}`), publicKey, Buffer.from(signature, 'base64url'))
  if (!ok) return false
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { iss?: unknown; iat?: number; exp?: number }
  const now = Math.floor(Date.now() / 1000)
  // GitHub refuses tokens that expire more than ten minutes ahead or were issued in the future.
  return String(claims.iss) === appId && typeof claims.exp === 'number' && claims.exp > now && claims.exp <= now + 660 && (claims.iat ?? 0) <= now + 60
}
