/**
 * Where svc's code runs from. tsx would run the TypeScript sources directly, but it costs every
 * process a loader thread and an esbuild service process, together about 90 MB (ARCHITECTURE.md,
 * "Footprint"). So the sources are compiled to JavaScript on first use instead, with no build step:
 * the first command after a change compiles them (about a second, in a child process running
 * bin/compile.js) into node_modules/.cache/svc/<key>/, the key being a hash of the sources and
 * the compiler. That folder mirrors the repository, and every other file is linked in, so paths
 * relative to a module and package imports resolve exactly as they do from the sources.
 * Plain JavaScript: it runs before anything could load TypeScript.
 */
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, utimesSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The folders compiled; everything else in the repository is linked into a compiled tree as is. */
export const SOURCE_DIRS = Object.freeze(['bin', 'shared', 'services', 'plugins'])

const HOUR_MS = 60 * 60 * 1000
const COMPILE_SCRIPT = fileURLToPath(new URL('./compile.js', import.meta.url))

/** The folder that holds the compiled trees of the repository at root. */
export function cacheDir(root) {
  return join(root, 'node_modules', '.cache', 'svc')
}

/** The TypeScript files that are compiled, as paths relative to root, in a stable order. */
export function sourceFiles(root) {
  const files = []
  for (const dir of SOURCE_DIRS) {
    for (const name of readdirSync(join(root, dir), { recursive: true })) {
      if (name.endsWith('.ts') && !name.endsWith('.d.ts')) files.push(join(dir, name))
    }
  }
  return files.sort()
}

/**
 * The key of the sources as they are now: any change to a source file, the TypeScript settings,
 * the compiler (its version and bin/compile.js) or the Node version gives another key.
 */
export function sourceKey(root) {
  const hash = createHash('sha256')
  const esbuild = createRequire(import.meta.url).resolve('esbuild/package.json')
  const inputs = [process.version, readFileSync(esbuild), readFileSync(COMPILE_SCRIPT), readFileSync(join(root, 'tsconfig.json'))]
  for (const input of inputs) hash.update(input).update('\0')
  for (const file of sourceFiles(root)) hash.update(file).update('\0').update(readFileSync(join(root, file))).update('\0')
  return hash.digest('hex').slice(0, 20)
}

/**
 * The compiled tree of the sources as they are now, compiling it first when there is none yet.
 * Throws when it cannot be had (the cache folder is read-only, say); the message says why.
 */
export function compiledTree(root) {
  const dir = join(cacheDir(root), sourceKey(root))
  if (!existsSync(dir)) {
    const run = spawnSync(process.execPath, [COMPILE_SCRIPT, root, dir], { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] })
    if (run.error) throw run.error
    if (run.status !== 0) throw new Error(run.stderr.trim() || `bin/compile.js exited with ${run.status ?? run.signal}`)
  }
  markUsed(dir)
  return dir
}

/**
 * Marks a tree as in use now and every hour while this process lives: a tree nothing has used for
 * a day is removed when another is compiled, and a running process may still load from its tree
 * (svc up starts its parts again through it).
 */
export function keepUsed(dir) {
  setInterval(() => markUsed(dir), HOUR_MS).unref()
}

function markUsed(dir) {
  const now = new Date()
  try {
    utimesSync(dir, now, now)
  } catch {
    // A read-only cache (an image built ahead) is never pruned either.
  }
}
