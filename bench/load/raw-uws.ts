/** The raw ceiling for bench:ingest: a bare uWebSockets.js route that reads the body and answers 202. */
import uWS from 'uWebSockets.js'

const port = Number(process.argv[2] ?? 18083)
uWS
  .App()
  .post('/*', (res) => {
    let aborted = false
    res.onAborted(() => {
      aborted = true
    })
    res.onData((_chunk, isLast) => {
      if (isLast && !aborted) res.cork(() => res.writeStatus('202 Accepted').writeHeader('Content-Type', 'application/json').end('{"id":"00000000-0000-4000-8000-000000000000"}'))
    })
  })
  .listen('127.0.0.1', port, (socket) => {
    if (!socket) process.exit(1)
  })
