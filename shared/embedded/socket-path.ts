/** Unix socket paths are limited to about 107 bytes; a deep data folder gets a short private one. */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const MAX_SOCKET_PATH = 100

/** A folder to put a socket named `name` in: preferred if short enough, else a private temp folder. */
export function socketDir(preferred: string, name: string): string {
  if (join(preferred, name).length <= MAX_SOCKET_PATH) return preferred
  return mkdtempSync(join(tmpdir(), 'svc-'))
}
