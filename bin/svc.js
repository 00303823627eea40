#!/usr/bin/env node
// Entry point of every svc command; clipanion parses the command line in bin/cli.ts. A clone needs
// no build step: the TypeScript sources run compiled (bin/compiled.js), compiled on first use and
// again whenever they change. Where that cannot be done (a read-only checkout, say), tsx runs the
// sources directly, at about 90 MB more per process.
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { compiledTree, keepUsed } from './compiled.js'

const root = fileURLToPath(new URL('..', import.meta.url))
let tree
try {
  tree = compiledTree(root)
} catch (error) {
  process.stderr.write(`svc: running the TypeScript sources through tsx, since compiling them failed: ${error.message}\n`)
}
if (tree === undefined) {
  const { register } = await import('tsx/esm/api')
  register()
  await import('./cli.ts')
} else {
  keepUsed(tree)
  await import(pathToFileURL(join(tree, 'bin', 'cli.js')).href)
}
