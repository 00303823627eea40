/**
 * Reading and writing workspace files from the host side. A path is refused (SandboxPathRefused)
 * when it is absolute, climbs with .., or resolves through a symlink to anywhere outside the
 * workspace: the commands wrote those links, and the service reads and writes with more rights
 * than they have. Not meant to run while a command runs: a command could swap a checked folder
 * for a link between the check and the open (the final name is opened without following links).
 */
import { constants } from 'node:fs'
import { lchown, lstat, mkdir, open, realpath } from 'node:fs/promises'
import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path'
import { SandboxPathRefused } from '../../shared/plugins/sandbox-types.js'
import type { RunAs } from './launch.js'

/** The text of workspace/path, or undefined when there is no such file. */
export async function readInside(workspace: string, path: string): Promise<string | undefined> {
  const full = await resolveInside(workspace, path)
  let handle
  try {
    handle = await open(full, constants.O_RDONLY | constants.O_NOFOLLOW)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined
    if (code === 'ELOOP') throw refused(path)
    throw error
  }
  try {
    return await handle.readFile('utf8')
  } finally {
    await handle.close()
  }
}

/** Writes workspace/path (parents created), owned by user. */
export async function writeInside(workspace: string, path: string, content: string, user: RunAs | undefined): Promise<void> {
  const full = await resolveInside(workspace, path)
  const made = await mkdir(dirname(full), { recursive: true })
  if (made !== undefined && user !== undefined) {
    // Each folder mkdir created, from the first down to the file's.
    let folder = made
    for (const part of ['', ...relative(made, dirname(full)).split(sep).filter(Boolean)]) {
      folder = join(folder, part)
      await lchown(folder, user.uid, user.gid)
    }
  }
  let handle
  try {
    handle = await open(full, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o644)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw refused(path)
    throw error
  }
  try {
    await handle.writeFile(content, 'utf8')
    if (user !== undefined) await handle.chown(user.uid, user.gid)
  } finally {
    await handle.close()
  }
}

/**
 * The host path of workspace/path with every existing link resolved, or SandboxPathRefused when
 * it is not inside the workspace.
 */
export async function resolveInside(workspace: string, path: string): Promise<string> {
  if (typeof path !== 'string' || path === '' || path.includes('\0') || isAbsolute(path) || path.split('/').includes('..')) throw refused(path)
  const root = await realpath(workspace)
  const missing: string[] = []
  let probe = join(root, path)
  // Up from the full path to the nearest part that exists; that part's real path decides.
  for (;;) {
    let real: string
    try {
      real = await realpath(probe)
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error
      // There but resolving nowhere: a dangling link, which a write would follow wherever it points.
      if (await exists(probe)) throw refused(path)
      missing.unshift(basename(probe))
      probe = dirname(probe)
      continue
    }
    if (real !== root && !real.startsWith(root + sep)) throw refused(path)
    return join(real, ...missing)
  }
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  )
}

function refused(path: unknown): SandboxPathRefused {
  return new SandboxPathRefused(`${JSON.stringify(path)} is not a path inside the workspace: give a relative path without .. that does not lead out through a symlink.`)
}
