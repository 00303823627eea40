/**
 * git's smart HTTP protocol for test servers, served by git itself: each request runs the real
 * `git http-backend` CGI against a bare repository, so clients talk to the same server code a
 * git host runs. Fetches (upload-pack) always; pushes (receive-pack) when the caller says the
 * request may write. Who may read or write is the calling server's decision.
 */
import { spawn } from 'node:child_process'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { basename, dirname } from 'node:path'

/** The repository-relative part of a smart-HTTP request for fetch and clone. */
export const UPLOAD_PACK = /^\/(info\/refs|git-upload-pack)$/

/** Whether a smart-HTTP request (rest: the path after the repository, search: its query) is part of a push. */
export function isPush(rest: string, search: string): boolean {
  return rest === '/git-receive-pack' || (rest === '/info/refs' && new URLSearchParams(search).get('service') === 'git-receive-pack')
}

/** The password of an HTTP Basic Authorization header, or undefined when the header is not Basic. */
export function basicPassword(header: string | undefined): string | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header ?? '')
  if (!match) return undefined
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  return colon < 0 ? undefined : decoded.slice(colon + 1)
}

/**
 * Answers one smart-HTTP request for the bare repository at bareDir; rest is the path after the
 * repository (/info/refs, /git-upload-pack or /git-receive-pack). Fetching any commit by sha is
 * allowed, as GitHub does; pushing only with options.write (any ref, forced or not).
 */
export function serveGitHttp(req: IncomingMessage, res: ServerResponse, bareDir: string, rest: string, options: { write?: boolean } = {}): void {
  const url = new URL(req.url ?? '/', 'http://loopback')
  const service = url.searchParams.get('service')
  const push = options.write === true && isPush(rest, url.search)
  const read = UPLOAD_PACK.test(rest) && (rest !== '/info/refs' || service === 'git-upload-pack')
  if (!push && !read) {
    res.writeHead(403, { 'content-type': 'text/plain' }).end(options.write ? 'not a git request\n' : 'read-only: fetch and clone only\n')
    return
  }
  const header = (name: string): string => String(req.headers[name] ?? '')
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    // The CGI serves PATH_INFO below GIT_PROJECT_ROOT, so any folder can be served by its parent.
    GIT_PROJECT_ROOT: dirname(bareDir),
    PATH_INFO: `/${basename(bareDir)}${rest}`,
    GIT_HTTP_EXPORT_ALL: '1',
    REQUEST_METHOD: req.method ?? 'GET',
    QUERY_STRING: url.search.slice(1),
    CONTENT_TYPE: header('content-type'),
    // git sends large requests chunked, without a length: http-backend then reads to the end.
    ...(req.headers['content-length'] !== undefined ? { CONTENT_LENGTH: header('content-length') } : {}),
    HTTP_CONTENT_ENCODING: header('content-encoding'),
    HTTP_GIT_PROTOCOL: header('git-protocol'),
    REMOTE_ADDR: req.socket.remoteAddress ?? '127.0.0.1',
    // Nothing of the machine's or the user's git settings: only these.
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_COUNT: '3',
    GIT_CONFIG_KEY_0: 'uploadpack.allowAnySHA1InWant',
    GIT_CONFIG_VALUE_0: 'true',
    GIT_CONFIG_KEY_1: 'uploadpack.allowReachableSHA1InWant',
    GIT_CONFIG_VALUE_1: 'true',
    // http-backend refuses receive-pack to an anonymous request unless told: the caller checked the credential.
    GIT_CONFIG_KEY_2: 'http.receivepack',
    GIT_CONFIG_VALUE_2: push ? 'true' : 'false',
  }
  const cgi = spawn('git', ['http-backend'], { env, stdio: ['pipe', 'pipe', 'pipe'] })
  let head = Buffer.alloc(0)
  let started = false
  cgi.stdout.on('data', (chunk: Buffer) => {
    if (started) return void res.write(chunk)
    head = Buffer.concat([head, chunk])
    const end = head.indexOf('\r\n\r\n')
    if (end < 0) return
    started = true
    const { status, headers } = cgiHeaders(head.subarray(0, end).toString('latin1'))
    res.writeHead(status, headers)
    res.write(head.subarray(end + 4))
  })
  let stderr = ''
  cgi.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
  cgi.on('error', (error) => {
    if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' })
    res.end(`git http-backend failed to start: ${error.message}\n`)
  })
  cgi.on('close', (code) => {
    if (!started && !res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' }).write(`git http-backend exited ${code}: ${stderr}\n`)
    res.end()
  })
  // A client that hangs up mid-request leaves nothing running.
  res.on('close', () => {
    if (cgi.exitCode === null) cgi.kill('SIGKILL')
  })
  cgi.stdin.on('error', () => {})
  req.pipe(cgi.stdin)
}

/** A CGI response's header block: the Status header becomes the status code, the rest are passed on. */
function cgiHeaders(block: string): { status: number; headers: Record<string, string> } {
  let status = 200
  const headers: Record<string, string> = {}
  for (const line of block.split('\r\n')) {
    const colon = line.indexOf(':')
    if (colon < 0) continue
    const name = line.slice(0, colon).trim()
    const value = line.slice(colon + 1).trim()
    if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10) || 500
    else headers[name] = value
  }
  return { status, headers }
}
