/**
 * The latency phase's load: POSTs at a steady rate over keep-alive connections with node:http.
 * fetch would do, but at 1,000 requests/s it took three quarters of a core on this 2-core machine,
 * which the service under test then lacked (node:http: about a quarter).
 */
import http from 'node:http'

export interface PacedResult {
  /** Answer bodies of the 2xx answers, by request index, with when each request was started (ms epoch). */
  answers: Array<{ index: number; startedAt: number; body: string }>
  /** Requests that failed or were answered otherwise than 2xx, by reason. */
  failures: Map<string, number>
}

/** Sends count POSTs to url, rate a second, bodyOf(i) each; resolves once every one is answered. */
export async function pacedPost(url: string, headers: Record<string, string>, rate: number, count: number, bodyOf: (i: number) => string): Promise<PacedResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 })
  const target = new URL(url)
  const result: PacedResult = { answers: [], failures: new Map() }
  const fail = (reason: string): void => {
    result.failures.set(reason, (result.failures.get(reason) ?? 0) + 1)
  }
  const sends: Promise<void>[] = []
  const t0 = performance.now()
  for (let i = 0; i < count; i++) {
    const wait = t0 + (i * 1000) / rate - performance.now()
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait))
    const body = bodyOf(i)
    const startedAt = Date.now()
    sends.push(
      new Promise<void>((resolve) => {
        const req = http.request({ agent, host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers: { ...headers, 'Content-Length': Buffer.byteLength(body) } }, (res) => {
          let text = ''
          res.setEncoding('utf8')
          res.on('data', (chunk: string) => (text += chunk))
          res.on('end', () => {
            if (res.statusCode !== undefined && res.statusCode >= 200 && res.statusCode < 300) result.answers.push({ index: i, startedAt, body: text })
            else fail(`status ${res.statusCode}`)
            resolve()
          })
        })
        req.on('error', (error) => {
          fail(error.message)
          resolve()
        })
        req.end(body)
      }),
    )
  }
  await Promise.all(sends)
  agent.destroy()
  return result
}
