/**
 * A plain HTTP proxy in front of the service that records every answer it relays (status, path,
 * headers and body), so a test can check where secrets appear in what clients actually received.
 * Long polls pass through untouched: the answer is recorded when it completes.
 */
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http'

export interface RecordedAnswer {
  method: string
  path: string
  status: number
  headers: IncomingHttpHeaders
  body: string
}

export interface RecordingProxy {
  /** http://127.0.0.1:<port> */
  url: string
  /** Where requests go; set once the service listens. */
  target: string
  readonly answers: RecordedAnswer[]
  close(): Promise<void>
}

/** Starts the proxy on a free port; requests fail with 502 until target is set. */
export async function startRecordingProxy(): Promise<RecordingProxy> {
  const answers: RecordedAnswer[] = []
  const proxy: RecordingProxy = { url: '', target: '', answers, close: async () => {} }
  const server: Server = createServer((req, res) => {
    if (!proxy.target) return void res.writeHead(502).end()
    const target = new URL(req.url ?? '/', proxy.target)
    const upstream = request(target, { method: req.method, headers: { ...req.headers, host: target.host } }, (answer) => {
      const chunks: Buffer[] = []
      answer.on('data', (chunk: Buffer) => chunks.push(chunk))
      answer.on('end', () => {
        const body = Buffer.concat(chunks)
        answers.push({ method: req.method ?? 'GET', path: req.url ?? '/', status: answer.statusCode ?? 0, headers: answer.headers, body: body.toString('utf8') })
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        res.end(body)
      })
    })
    upstream.on('error', () => res.writeHead(502).end())
    req.pipe(upstream)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address() as { port: number }
  proxy.url = `http://127.0.0.1:${address.port}`
  proxy.close = () => new Promise<void>((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  })
  return proxy
}
