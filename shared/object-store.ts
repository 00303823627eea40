/**
 * Where large blobs go (source maps now, recordings later): put and get by key. The folder store
 * is the embedded default; it writes to a temporary file and renames, so a reader never sees half
 * an object. S3 (S3_ENDPOINT) is not built yet: with it set, writes fail with a message saying so.
 */
import { randomBytes } from 'node:crypto'
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import type { ObjectStoreConfig } from './config.js'

export interface ObjectStore {
  put(key: string, body: Buffer): Promise<void>
  /** The object, or undefined when there is none under key. */
  get(key: string): Promise<Buffer | undefined>
}

/** Thrown when the configured store cannot be used. */
export class ObjectStoreUnavailable extends Error {}

const KEY_SHAPE = /^[a-z0-9][a-z0-9._-]*(\/[a-z0-9][a-z0-9._-]*)*$/i

/** The store the configuration names. */
export function createObjectStore(config: ObjectStoreConfig): ObjectStore {
  if (config.kind === 'fs') return folderStore(config.dir)
  const unavailable = async (): Promise<never> => {
    throw new ObjectStoreUnavailable('The S3 object store is not built yet. Unset S3_ENDPOINT to keep objects in a local folder (SVC_OBJECT_DIR).')
  }
  return { put: unavailable, get: unavailable }
}

/** Objects as files under dir, one per key. */
export function folderStore(dir: string): ObjectStore {
  const pathOf = (key: string): string => {
    if (!KEY_SHAPE.test(key)) throw new Error(`invalid object key "${key}"`)
    return join(dir, key)
  }
  return {
    async put(key, body) {
      const path = pathOf(key)
      await mkdir(dirname(path), { recursive: true })
      const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`
      await writeFile(temporary, body)
      await rename(temporary, path)
    },
    async get(key) {
      try {
        return await readFile(pathOf(key))
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
        throw error
      }
    },
  }
}
