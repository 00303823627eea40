/**
 * A front door that lets one client at a time through to a server; later clients wait their turn
 * instead of being refused. PGlite is a single backend: two connections multiplexed onto it can
 * interleave one's Parse with the other's Bind (pglite issue #1046), and its socket server refuses
 * a reconnect that arrives before the previous socket has closed (pg then fails with EPIPE).
 */
import { createServer, connect, type Server, type Socket } from 'node:net'
// A referenced timer: waiting must keep the process alive (time.ts's sleep does not).
import { setTimeout as delay } from 'node:timers/promises'

export type Address = { readonly path: string } | { readonly host: string; readonly port: number }

export interface ConnectionGate {
  /** The port bound when listening on TCP (0 asked for a free one). */
  readonly port: number | undefined
  /** Stops accepting, drops the waiting and the active client, and resolves once closed. */
  close(): Promise<void>
}

/**
 * Listens on `front` and forwards each client to `target` once the previous one has gone and
 * `targetIdle()` says the server has let it go too.
 */
export async function startConnectionGate(front: Address, target: Address, targetIdle: () => boolean): Promise<ConnectionGate> {
  const waiting: Socket[] = []
  const open = new Set<Socket>()
  let busy = false
  let closed = false

  const admitNext = async (): Promise<void> => {
    if (busy || closed) return
    const client = waiting.shift()
    if (!client) return
    if (client.destroyed) return admitNext()
    busy = true
    while (!targetIdle() && !closed) await delay(5)
    if (closed) return void client.destroy()
    const upstream = connect(target)
    open.add(upstream)
    const finish = (): void => {
      client.destroy()
      upstream.destroy()
    }
    client.on('error', finish).once('close', finish)
    upstream.on('error', finish).once('close', () => {
      finish()
      open.delete(upstream)
      busy = false
      void admitNext()
    })
    client.pipe(upstream)
    upstream.pipe(client)
    client.resume()
  }

  const server: Server = createServer((client) => {
    if (closed) return client.destroy()
    client.pause() // hold the startup packet until this client's turn
    open.add(client)
    client.on('error', () => client.destroy()).once('close', () => open.delete(client))
    waiting.push(client)
    void admitNext()
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    const listening = (): void => {
      server.off('error', reject)
      resolve()
    }
    if ('path' in front) server.listen(front.path, listening)
    else server.listen(front.port, front.host, listening)
  })
  // Past listening, errors belong to single sockets, which are handled above.
  server.on('error', () => {})
  const bound = server.address()
  return {
    port: bound !== null && typeof bound === 'object' ? bound.port : undefined,
    close: async () => {
      closed = true
      const done = new Promise<void>((resolve) => server.close(() => resolve()))
      for (const socket of open) socket.destroy()
      waiting.length = 0
      await done
    },
  }
}
