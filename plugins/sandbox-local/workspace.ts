/**
 * A sandbox's folders on the host and who owns them. Each sandbox is a fresh folder under the
 * temporary directory, mode 0700; when the service runs as root everything in it is handed to the
 * unprivileged user the commands run as, so they can write their workspace and nothing else.
 */
import { chmod, chown, cp, lchown, lstat, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import type { RunAs, SandboxDirs } from './launch.js'

// Debian's nobody/nogroup: owns no files and no service, so a command running as it can only
// touch what is world-writable and the workspace handed to it.
const NOBODY: RunAs = Object.freeze({ uid: 65534, gid: 65534 })

/** Who commands run as: nobody when the service is root; otherwise the service's own user (undefined: no change). */
export function unprivilegedUser(): RunAs | undefined {
  return process.getuid?.() === 0 ? NOBODY : undefined
}

/** Makes root (0700), root/workspace and root/home, owned by user. */
export async function makeSandboxDirs(user: RunAs | undefined): Promise<SandboxDirs> {
  const root = await mkdtemp(join(tmpdir(), 'svc-sandbox-'))
  const dirs = { root, workspace: join(root, 'workspace'), home: join(root, 'home') }
  await mkdir(dirs.workspace, { mode: 0o755 })
  await mkdir(dirs.home, { mode: 0o700 })
  // Owned by the user, so the root folder stays 0700 and still lets it (and bubblewrap) reach inside.
  if (user !== undefined) for (const path of [dirs.root, dirs.workspace, dirs.home]) await chown(path, user.uid, user.gid)
  return dirs
}

// A clone's history and installed dependencies: never part of what is built and tested.
const SKIPPED = new Set(['.git', 'node_modules'])

/** Copies hostDir's files into workspace (without .git and node_modules) and hands them to user. */
export async function copyTree(hostDir: string, workspace: string, user: RunAs | undefined): Promise<void> {
  await cp(hostDir, workspace, {
    recursive: true,
    force: true,
    // Links are copied as written: node's default rewrites relative targets to point back into hostDir.
    verbatimSymlinks: true,
    filter: async (source) => {
      if (source === hostDir) return true
      if (SKIPPED.has(basename(source))) return false
      // Sockets, fifos and devices have no place in a source tree, and cp refuses some of them.
      const info = await lstat(source)
      return info.isFile() || info.isDirectory() || info.isSymbolicLink()
    },
  })
  await handOver(workspace, user)
}

/** Gives everything under dir to user, readable and writable by it. */
export async function handOver(dir: string, user: RunAs | undefined): Promise<void> {
  // Walked by hand, never into a symlinked folder: the node_modules link of a sandbox without
  // bubblewrap points at the template's dependencies, which must stay as they are.
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (user !== undefined) await lchown(path, user.uid, user.gid)
    if (entry.isSymbolicLink()) continue
    const { mode } = await lstat(path)
    const wanted = mode | (entry.isDirectory() ? 0o700 : 0o600)
    if (wanted !== mode) await chmod(path, wanted & 0o7777)
    if (entry.isDirectory()) await handOver(path, user)
  }
}

/** Removes root and everything under it, whoever made it and whatever its modes. */
export async function removeTree(root: string): Promise<void> {
  try {
    await rm(root, { recursive: true, force: true, maxRetries: 2 })
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code !== 'EACCES' && code !== 'EPERM') throw error
    // Not root: a command may have left a folder without write or search permission for us.
    await makeRemovable(root)
    await rm(root, { recursive: true, force: true, maxRetries: 2 })
  }
}

async function makeRemovable(dir: string): Promise<void> {
  await chmod(dir, 0o700).catch(() => undefined)
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => [])
  for (const entry of entries) if (entry.isDirectory()) await makeRemovable(join(dir, entry.name))
}
