/**
 * Where an embedded server listens: a unix socket beside its data when the path fits, else one in
 * a private temp folder, else loopback TCP on a free port. A socket path must fit sun_path (108
 * bytes with its NUL on Linux, 104 on macOS) and must survive being written into a URL unchanged
 * (createRedis reads the URL's pathname without decoding it).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export const MAX_SOCKET_PATH_BYTES = process.platform === 'linux' ? 107 : 103

/** mkdtemp replaces the six X with random characters. */
const TEMP_PREFIX = 'svc-'
const TEMP_NAME_EXAMPLE = `${TEMP_PREFIX}XXXXXX`

export type Endpoint =
  | { readonly kind: 'socket'; readonly path: string; release(): void }
  | { readonly kind: 'tcp'; readonly host: '127.0.0.1'; release(): void }

/** True when path can be bound as a unix socket and written into a URL as it is. */
export function socketPathFits(path: string): boolean {
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH_BYTES) return false
  try {
    return new URL(`unix://${path}`).pathname === path && decodeURIComponent(path) === path
  } catch {
    return false
  }
}

/**
 * Picks the endpoint for a server whose socket file is called `name`. release() removes the socket
 * file and any private folder made for it.
 */
export function chooseEndpoint(preferredDir: string, name: string, tmpRoot: string = tmpdir()): Endpoint {
  const preferred = join(preferredDir, name)
  if (socketPathFits(preferred)) {
    rmSync(preferred, { force: true }) // left by a killed run; the caller holds the folder's lock
    return { kind: 'socket', path: preferred, release: () => rmSync(preferred, { force: true }) }
  }
  if (socketPathFits(join(tmpRoot, TEMP_NAME_EXAMPLE, name))) {
    const dir = mkdtempSync(join(tmpRoot, TEMP_PREFIX))
    return { kind: 'socket', path: join(dir, name), release: () => rmSync(dir, { recursive: true, force: true }) }
  }
  return { kind: 'tcp', host: '127.0.0.1', release: () => {} }
}

/** A TCP port free on host right now (another process may still take it before it is bound). */
export function findFreePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.unref()
    server.once('error', reject)
    server.listen(0, host, () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}
