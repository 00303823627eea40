/**
 * Objects as files under one folder, a file per key. Writes go to a temporary file beside the
 * target, are flushed to disk, then renamed over it: rename is atomic within a file system, so a
 * reader sees the old object or the new one, never half of either, and a crash leaves at most a
 * stray .tmp file rather than a truncated object. A delete also removes the folders it empties,
 * so keys with a unique prefix (a recording's chunks) leave no empty folder per prefix behind.
 */
import { randomBytes } from 'node:crypto'
import { mkdir, open, readFile, rename, rm, rmdir, stat, unlink, type FileHandle } from 'node:fs/promises'
import { dirname, join, sep } from 'node:path'
import { OBJECT_KEY, ObjectStoreUnavailable, type ObjectStorePlugin } from '../../shared/plugins/types.js'

/** Error codes that mean the folder itself is missing its disk, space, permission or shape. */
const MISCONFIGURED = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'EEXIST', 'EISDIR'])
/** Files removed at once by a delete: enough to overlap the disk's latency, few enough to leave the thread pool to others. */
const DELETE_CONCURRENCY = 16
/** A write whose folder a concurrent delete removed between its mkdir and its open makes the folder again, this often. */
const WRITE_ATTEMPTS = 3

/** The store over dir (an absolute path); creates the folder on first write. */
export function folderStore(dir: string): ObjectStorePlugin {
  const pathOf = (key: string): string => {
    // The key shape is what keeps a key inside dir: no "..", no leading slash.
    if (typeof key !== 'string' || !OBJECT_KEY.test(key)) throw new Error(`invalid object key "${String(key)}": keys are slash-separated segments of letters, digits, dot, dash and underscore`)
    return join(dir, key)
  }
  const unavailable = (error: unknown, doing: string): ObjectStoreUnavailable => {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown error'
    const fault = MISCONFIGURED.has(code) ? 'misconfigured' : 'down'
    return new ObjectStoreUnavailable(
      `The object folder ${dir} cannot be ${doing} (${code}). Check that SVC_OBJECT_DIR names a folder this process may write, on a disk with free space.`,
      fault,
    )
  }

  const write = async (path: string, body: Buffer): Promise<void> => {
    const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`
    try {
      const handle = await openCreating(temporary)
      try {
        await handle.writeFile(body)
        // Without the flush, a power cut after the rename can leave an empty file under the key.
        await handle.sync()
      } finally {
        await handle.close()
      }
      await rename(temporary, path)
    } catch (error) {
      await rm(temporary, { force: true }).catch(() => {})
      throw error
    }
  }

  /** Opens a new file, making its folder first: again if a delete emptied and removed it meanwhile. */
  const openCreating = async (path: string): Promise<FileHandle> => {
    for (let attempt = 1; ; attempt++) {
      try {
        await mkdir(dirname(path), { recursive: true })
        return await open(path, 'wx')
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || attempt >= WRITE_ATTEMPTS) throw error
      }
    }
  }

  /** Removes the object at path (a missing one is no error), then the folders up to dir that this left empty. */
  const remove = async (path: string): Promise<void> => {
    try {
      await unlink(path)
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      // EISDIR (EPERM on some systems): a folder of other keys, not an object. ENOTDIR: a segment is an object.
      if (code === 'ENOENT' || ((code === 'EISDIR' || code === 'EPERM' || code === 'ENOTDIR') && (await isFolder(dir)) && !(await isFile(path)))) return
      throw error
    }
    for (let folder = dirname(path); folder.startsWith(`${dir}${sep}`); folder = dirname(folder)) {
      // Fails on a folder that still holds something (or was removed by another delete): stop there.
      if (!(await rmdir(folder).then(() => true, () => false))) return
    }
  }

  return {
    async put(key, body) {
      const path = pathOf(key)
      try {
        await write(path, body)
      } catch (error) {
        throw unavailable(error, 'written')
      }
    },
    async get(key) {
      const path = pathOf(key)
      try {
        return await readFile(path)
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code
        // EISDIR: the key names a folder of other keys, not an object.
        if (code === 'ENOENT' || code === 'EISDIR') return undefined
        // ENOTDIR: a segment of the key is an object; only when dir itself is a file is the store broken.
        if (code === 'ENOTDIR' && (await isFolder(dir))) return undefined
        throw unavailable(error, 'read')
      }
    },
    async delete(keys) {
      const paths = keys.map(pathOf)
      try {
        for (let i = 0; i < paths.length; i += DELETE_CONCURRENCY) await Promise.all(paths.slice(i, i + DELETE_CONCURRENCY).map(remove))
      } catch (error) {
        throw unavailable(error, 'changed')
      }
    },
    async check() {
      // A probe written and removed: the only honest proof of writability (root passes access()).
      const probe = join(dir, `.svc-check-${randomBytes(6).toString('hex')}.tmp`)
      try {
        await mkdir(dir, { recursive: true })
        const handle = await open(probe, 'wx')
        await handle.close()
        await rm(probe, { force: true })
      } catch (error) {
        throw unavailable(error, 'written')
      }
    },
  }
}

async function isFolder(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory()
  } catch {
    return false
  }
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile()
  } catch {
    return false
  }
}
