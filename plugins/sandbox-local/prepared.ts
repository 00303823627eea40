/**
 * A template's prepared dependencies (nodeModules), as the commands see them. Two things stand in
 * the way of using the folder as it is. It may live where the unprivileged user cannot go (a
 * checkout under /root, any folder of mode 0700): then it is mirrored once, as hard links (a copy
 * across file systems), into a folder under the temporary directory that the user may read. And
 * tools write into node_modules (Vite its config bundle to node_modules/.vite-temp, caches under
 * .vite and .cache): so each sandbox gets node_modules as a folder of its own, holding one link
 * per prepared entry into the read-only folder, where a command may add entries but change no
 * installed package. docs/sandbox.md says why this and not an overlay or a copy.
 */
import { execFile } from 'node:child_process'
import { rmSync } from 'node:fs'
import { chmod, chown, mkdir, mkdtemp, readdir, readlink, realpath, rm, stat, symlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { RunAs } from './launch.js'

const run = promisify(execFile)

// What commands write at the top of node_modules (caches, and the test report the detecting
// template asks for: shared/sandbox/project-commands.ts): never taken from the prepared folder,
// where it would be read-only, so each sandbox starts without it.
const FRESH = new Set(['.cache', '.vite', '.vite-temp', '.vitest', '.svc-test-report.json'])

/**
 * Whether user may reach path (every folder above it included) and read and enter or run it, or
 * with 'enter' only enter it; as the service's own user, always.
 */
export async function reachableBy(path: string, user: RunAs | undefined, access: 'read' | 'enter' = 'read'): Promise<boolean> {
  if (user === undefined) return true
  try {
    // As the user, with no supplementary groups: exactly as commands run (node drops them with the uid).
    await run('/usr/bin/test', [...(access === 'read' ? ['-r', path, '-a'] : []), '-x', path], { uid: user.uid, gid: user.gid, cwd: '/', timeout: 10_000 })
    return true
  } catch {
    return false
  }
}

const mirrors = new Map<string, { signature: string; path: Promise<string> }>()
// Every mirror's parent folder, removed when the process exits.
const made = new Set<string>()

/** A path of folder's content that user can read: folder itself, or a mirror of it made once per process and version. */
export async function readableDependencies(folder: string, user: RunAs | undefined): Promise<string> {
  const real = await realpath(folder)
  if (await reachableBy(real, user)) return real
  const signature = await versionOf(real)
  const known = mirrors.get(real)
  if (known?.signature === signature) return known.path
  // A changed folder (dependencies prepared again) gets a new mirror; a sandbox may still use the old one.
  const path = mirror(real)
  mirrors.set(real, { signature, path })
  path.catch(() => mirrors.delete(real))
  return path
}

async function mirror(folder: string): Promise<string> {
  const parent = await mkdtemp(join(tmpdir(), 'svc-sandbox-deps-'))
  // Synchronous: 'exit' runs nothing asynchronous. The mirrors are links, so this is quick.
  if (made.size === 0) process.once('exit', () => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })))
  made.add(parent)
  await chmod(parent, 0o755)
  const target = join(parent, 'node_modules')
  try {
    // Hard links cost no space and a second or two for a large folder; cp keeps modes and links.
    await run('cp', ['-al', folder, target], { maxBuffer: 1024 * 1024 })
  } catch {
    // Another file system (or links refused): a real copy, once.
    await rm(target, { recursive: true, force: true })
    await run('cp', ['-a', '--reflink=auto', folder, target], { maxBuffer: 1024 * 1024 })
  }
  await chmod(target, 0o755)
  return target
}

/** What changes when dependencies are prepared again: the folder itself (npm ci recreates it) and the package managers' own records in it. */
async function versionOf(folder: string): Promise<string> {
  const parts: string[] = []
  for (const path of [folder, join(folder, '.package-lock.json'), join(folder, '.modules.yaml'), join(folder, '.yarn-integrity')]) {
    const info = await stat(path).catch(() => undefined)
    parts.push(info === undefined ? '-' : `${info.ino}:${info.mtimeMs}`)
  }
  return parts.join('/')
}

/**
 * Makes into (the workspace's node_modules) a folder of user's holding a link for each entry of
 * source (the host folder) pointing at the same entry under target (where the commands see it).
 * .bin, and a scope folder (@scope) that holds links, are folders of links too, so their links
 * that climb back (.bin's ../pkg/cli.js, npm workspaces' ../../packages/pkg) resolve from the
 * workspace; a link is copied as written. A scope without links is one link: fewer to make.
 */
export async function layerDependencies(source: string, target: string, into: string, user: RunAs | undefined): Promise<void> {
  await mkdir(into, { mode: 0o755 })
  if (user !== undefined) await chown(into, user.uid, user.gid)
  for (const entry of await readdir(source, { withFileTypes: true })) {
    if (FRESH.has(entry.name)) continue
    const inner = entry.isDirectory() && (entry.name === '.bin' || entry.name.startsWith('@')) ? await readdir(join(source, entry.name), { withFileTypes: true }) : []
    if (entry.isDirectory() && (entry.name === '.bin' || inner.some((child) => child.isSymbolicLink()))) {
      await mkdir(join(into, entry.name), { mode: 0o755 })
      if (user !== undefined) await chown(join(into, entry.name), user.uid, user.gid)
      for (const child of inner) await linkEntry(join(source, entry.name), join(target, entry.name), join(into, entry.name), child)
    } else {
      await linkEntry(source, target, into, entry)
    }
  }
}

async function linkEntry(source: string, target: string, into: string, entry: { name: string; isSymbolicLink(): boolean }): Promise<void> {
  await symlink(entry.isSymbolicLink() ? await readlink(join(source, entry.name)) : join(target, entry.name), join(into, entry.name))
}
