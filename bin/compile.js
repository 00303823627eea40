#!/usr/bin/env node
/**
 * node bin/compile.js [<repository> [<tree folder>]]: compiles the TypeScript sources of the
 * repository (default: this one) into a tree that mirrors it (see bin/compiled.js), unless the tree
 * exists already, and prints its folder (default: the one for the sources' key). bin/svc.js
 * runs this when the sources changed; an image can run it ahead so its processes never need to
 * write. The tree is built aside and renamed into place, so a process sees a whole tree or none,
 * and two commands compiling at once both end up with the same one. Trees nothing used for a day
 * are removed afterwards.
 */
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { cacheDir, SOURCE_DIRS, sourceFiles, sourceKey } from './compiled.js'

const DAY_MS = 24 * 60 * 60 * 1000
/** A build folder this old was left by a compile that died. */
const ABANDONED_MS = 60 * 60 * 1000

const root = resolve(process.argv[2] ?? fileURLToPath(new URL('..', import.meta.url)))

try {
  const target = process.argv[3] ?? join(cacheDir(root), sourceKey(root))
  if (!existsSync(target)) await compile(target)
  process.stdout.write(`${target}\n`)
} catch (error) {
  // esbuild's message names the file, line and problem (and fs's the path); a stack would add nothing.
  process.stderr.write(`${error.message}\n`)
  process.exitCode = 1
}

async function compile(target) {
  mkdirSync(dirname(target), { recursive: true })
  const staging = mkdtempSync(join(dirname(target), '.build-'))
  try {
    await compileInto(staging)
    // mkdtemp made it private; the tree is read by whoever runs svc (an image's unprivileged user).
    chmodSync(staging, 0o755)
    renameSync(staging, target)
  } catch (error) {
    rmSync(staging, { recursive: true, force: true })
    // Another command compiled the same sources meanwhile: theirs is as good as ours.
    if (!existsSync(target)) throw error
  }
  prune(dirname(target), target)
}

/** The sources as tsx would run them (same compiler, target and options), plus links to the rest. */
async function compileInto(out) {
  await build({
    entryPoints: sourceFiles(root).map((file) => join(root, file)),
    outdir: out,
    outbase: root,
    tsconfig: join(root, 'tsconfig.json'),
    format: 'esm',
    platform: 'node',
    target: `node${process.versions.node}`,
    keepNames: true,
    // Linked maps cost nothing unless asked for: NODE_OPTIONS=--enable-source-maps shows .ts lines.
    sourcemap: 'linked',
    sourcesContent: false,
    logLevel: 'silent',
  })
  // node_modules is above the tree, so packages resolve from it already; outside it .js is CommonJS.
  writeFileSync(join(out, 'package.json'), '{ "type": "module" }\n')
  for (const name of readdirSync(root)) {
    if (name === 'node_modules' || name === 'package.json' || name.startsWith('.')) continue
    if (SOURCE_DIRS.includes(name)) linkOthers(name, out)
    else symlinkSync(relative(out, join(root, name)), join(out, name))
  }
}

/** Links the files of a source folder that were not compiled (bin/svc.js, a template, a README). */
function linkOthers(dir, out) {
  for (const entry of readdirSync(join(root, dir), { recursive: true, withFileTypes: true })) {
    if (entry.isDirectory() || entry.name.endsWith('.ts')) continue
    const file = join(relative(root, entry.parentPath ?? entry.path), entry.name)
    const link = join(out, file)
    if (existsSync(link)) continue // a compiled module of that name wins (bin/ingress-thread.js)
    mkdirSync(dirname(link), { recursive: true })
    symlinkSync(relative(dirname(link), join(root, file)), link)
  }
}

/** Removes trees unused for a day (see keepUsed in bin/compiled.js) and builds that died. */
function prune(cache, keep) {
  const now = Date.now()
  for (const name of readdirSync(cache)) {
    const path = join(cache, name)
    if (path === keep) continue
    let age
    try {
      age = now - lstatSync(path).mtimeMs
    } catch {
      continue // another compile pruned it first
    }
    if (age > (name.startsWith('.build-') ? ABANDONED_MS : DAY_MS)) rmSync(path, { recursive: true, force: true })
  }
}
