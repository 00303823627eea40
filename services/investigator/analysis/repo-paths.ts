/**
 * Where a source-mapped frame lives in the user's repository. A map names sources relative to the
 * build (normalizeSourcePath turns them into 'src/cart.ts'), while the repository may hold the app
 * in a subfolder ('apps/shop/src/cart.ts') or the map may carry a prefix the repository lacks
 * ('shop/src/cart.ts' for a repository whose root is the app). The index lists the clone once so
 * every frame is mapped without touching the disk again. Paths the model asks for are resolved
 * here too (resolveRepoPath), so the tools and the evidence check share one boundary.
 */
import { readdir, realpath } from 'node:fs/promises'
import { join } from 'node:path'

/** Folders never indexed: dependencies, build output and Git's own store are not the user's code. */
export const SKIPPED_FOLDERS: ReadonlySet<string> = new Set(['.git', 'node_modules', 'dist', 'build', 'coverage', '.next'])

/** Files indexed at most; a larger repository is indexed in part (truncated says so). */
export const MAX_INDEXED_FILES = 20_000

/** The files of a clone, as repository paths ('src/cart.ts'), sorted. */
export interface RepoIndex {
  /** The clone's folder with symlinks resolved: the boundary the tools check against. */
  readonly root: string
  readonly files: readonly string[]
  readonly fileSet: ReadonlySet<string>
  /** File name → the indexed paths ending in it, for suffix matching without a full scan. */
  readonly byName: ReadonlyMap<string, readonly string[]>
  /** True when the cap stopped the listing. */
  readonly truncated: boolean
}

/** Lists the files under a clone, skipping SKIPPED_FOLDERS and never following symlinks. */
export async function indexRepository(dir: string, options: { maxFiles?: number } = {}): Promise<RepoIndex> {
  const maxFiles = options.maxFiles ?? MAX_INDEXED_FILES
  const root = await realpath(dir)
  const files: string[] = []
  let truncated = false
  // Breadth first, so a cut keeps the shallow files a reader of the repository sees first.
  const queue: string[] = ['']
  for (let next = 0; next < queue.length && !truncated; next++) {
    const folder = queue[next]!
    let entries
    try {
      entries = await readdir(join(root, folder), { withFileTypes: true })
    } catch {
      continue // unreadable folder: the rest of the repository is still worth indexing
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    for (const entry of entries) {
      const path = folder === '' ? entry.name : `${folder}/${entry.name}`
      // Symlinks are left out entirely: one may point outside the clone or make a cycle.
      if (entry.isDirectory()) {
        if (!SKIPPED_FOLDERS.has(entry.name)) queue.push(path)
      } else if (entry.isFile()) {
        if (files.length >= maxFiles) {
          truncated = true
          break
        }
        files.push(path)
      }
    }
  }
  return indexOf(root, files, truncated)
}

/**
 * An index of repository paths listed without a clone (the code host's file listing), for matching
 * frames only (root is ''): the same folders are left out as from a clone.
 */
export function indexPaths(paths: readonly string[], truncated: boolean): RepoIndex {
  const kept = paths.filter((path) => !path.split('/').some((segment) => SKIPPED_FOLDERS.has(segment)))
  return indexOf('', kept.slice(0, MAX_INDEXED_FILES), truncated || kept.length > MAX_INDEXED_FILES)
}

function indexOf(root: string, files: string[], truncated: boolean): RepoIndex {
  files.sort()
  const byName = new Map<string, string[]>()
  for (const path of files) {
    const name = path.slice(path.lastIndexOf('/') + 1)
    const list = byName.get(name)
    if (list) list.push(path)
    else byName.set(name, [path])
  }
  return { root, files, fileSet: new Set(files), byName, truncated }
}

/**
 * The repository path of a normalised source file, or undefined: libraries (node_modules), no
 * match, or an ambiguous one (two candidates equally close, such as 'src/cart.ts' in both
 * 'apps/shop/' and 'apps/admin/'; choosing by where the other frames matched is left for later).
 */
export function repoPathOf(index: RepoIndex, sourceFile: string): string | undefined {
  const segments = sourceFile.split('/').filter((segment) => segment !== '' && segment !== '.')
  if (segments.length === 0 || segments.includes('..') || segments.includes('node_modules')) return undefined
  // Dropping leading segments stops at folder + file name: a bare 'index.ts' would match anything.
  for (let drop = 0; drop === 0 || segments.length - drop >= 2; drop++) {
    const found = matchSuffix(index, segments.slice(drop).join('/'))
    if (found === AMBIGUOUS) return undefined
    if (found !== undefined) return found
  }
  return undefined
}

const AMBIGUOUS = Symbol('ambiguous')

/** The path equal to suffix, else the unique shortest ending with '/' + suffix. */
function matchSuffix(index: RepoIndex, suffix: string): string | typeof AMBIGUOUS | undefined {
  if (index.fileSet.has(suffix)) return suffix
  const name = suffix.slice(suffix.lastIndexOf('/') + 1)
  let best: string | undefined
  let tied = false
  for (const path of index.byName.get(name) ?? []) {
    if (!path.endsWith('/' + suffix)) continue
    if (best === undefined || path.length < best.length) {
      best = path
      tied = false
    } else if (path.length === best.length) {
      tied = true
    }
  }
  return tied ? AMBIGUOUS : best
}

/** A path inside the clone: path is repository-relative ('' for the root), real is absolute. */
export type ResolvedPath = { ok: true; path: string; real: string } | { ok: false; error: string }

/** Resolves a path the model gave under root (the clone's real path), refusing escapes and .git. */
export async function resolveRepoPath(root: string, input: string): Promise<ResolvedPath> {
  if (input.includes('\0')) return { ok: false, error: 'path contains a NUL character' }
  const trimmed = input.trim()
  if (trimmed.startsWith('/') || trimmed.startsWith('\\') || /^[a-z]:/i.test(trimmed)) return { ok: false, error: `absolute paths are not allowed; give a path relative to the repository root` }
  const segments = trimmed.split('/').filter((segment) => segment !== '' && segment !== '.')
  if (segments.includes('..')) return { ok: false, error: `'..' is not allowed in paths` }
  if (segments.some(isGitSegment)) return { ok: false, error: '.git is off limits' }
  const asked = segments.join('/')
  let real: string
  try {
    real = await realpath(asked === '' ? root : `${root}/${asked}`)
  } catch (error) {
    return { ok: false, error: (error as NodeJS.ErrnoException).code === 'ENOENT' ? `no such file or folder: ${asked}` : `cannot open: ${asked}` }
  }
  // realpath resolved every symlink on the way: what is left must still be under the root.
  if (real !== root && !real.startsWith(root + '/')) return { ok: false, error: `${asked} points outside the repository` }
  const path = real === root ? '' : real.slice(root.length + 1)
  if (path.split('/').some(isGitSegment)) return { ok: false, error: '.git is off limits' }
  return { ok: true, path, real }
}

function isGitSegment(segment: string): boolean {
  return segment.toLowerCase() === '.git'
}
