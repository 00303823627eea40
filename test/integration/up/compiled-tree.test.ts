import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t, { type Test } from 'tap'

const COMPILE = fileURLToPath(new URL('../../../bin/compile.js', import.meta.url))
const DAY_MS = 24 * 60 * 60 * 1000

/**
 * A repository in miniature: a command that imports a module, which reads a migration beside the
 * sources through its own URL and a template inside a source folder, and uses a TypeScript-only
 * construct (a type import, a parameter property).
 */
function scratchRepository(t: Test): string {
  const root = mkdtempSync(join(tmpdir(), 'svc-compiled-'))
  t.teardown(() => rmSync(root, { recursive: true, force: true }))
  const files: Record<string, string> = {
    'tsconfig.json': JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', verbatimModuleSyntax: true } }),
    'bin/main.ts': "import { Greeter } from '../shared/greeter.js'\nconsole.log(new Greeter('compiled').greet())\n",
    'shared/greeter.ts': [
      "import { readFileSync } from 'node:fs'",
      "import type { Stats } from 'node:fs'",
      'export class Greeter {',
      '  constructor(private readonly name: string) {}',
      '  greet(): string {',
      '    const sql = readFileSync(new URL("../migrations/001.sql", import.meta.url), "utf8").trim()',
      '    const template = readFileSync(new URL("../services/template.txt", import.meta.url), "utf8").trim()',
      '    const none: Stats | undefined = undefined',
      '    return `${this.name} ${sql} ${template} ${none === undefined}`',
      '  }',
      '}',
    ].join('\n'),
    'services/template.txt': 'template\n',
    'plugins/.keep': '',
    'migrations/001.sql': 'SELECT 1;\n',
  }
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), text)
  }
  return root
}

/** Runs bin/compile.js on root; answers the tree folder it printed. */
function compile(root: string): string {
  return execFileSync(process.execPath, [COMPILE, root], { encoding: 'utf8' }).trim()
}

const trees = (root: string): string[] => readdirSync(join(root, 'node_modules/.cache/svc')).sort()

t.test('the sources compile to a tree that runs as they would: relative files and folders resolve, and an unchanged source is not compiled again', async (t) => {
  const root = scratchRepository(t)
  const tree = compile(root)
  t.equal(dirname(tree), join(root, 'node_modules/.cache/svc'), 'the tree is in the cache folder')
  t.equal(execFileSync(process.execPath, [join(tree, 'bin/main.js')], { encoding: 'utf8' }).trim(), 'compiled SELECT 1; template true')
  const compiledAt = statSync(join(tree, 'shared/greeter.js')).mtimeMs
  t.equal(compile(root), tree, 'the same sources give the same tree')
  t.equal(statSync(join(tree, 'shared/greeter.js')).mtimeMs, compiledAt, 'which is not compiled again')
  t.equal(statSync(tree).mode & 0o777, 0o755, 'readable by whoever runs the service')
})

t.test('a changed source gets a tree of its own, and a tree nothing used for a day goes when another is compiled', async (t) => {
  const root = scratchRepository(t)
  const first = compile(root)
  writeFileSync(join(root, 'bin/main.ts'), "console.log('changed')\n")
  const second = compile(root)
  t.not(second, first, 'a new tree for the changed sources')
  t.equal(execFileSync(process.execPath, [join(second, 'bin/main.js')], { encoding: 'utf8' }).trim(), 'changed')
  const old = new Date(Date.now() - 2 * DAY_MS)
  utimesSync(first, old, old)
  writeFileSync(join(root, 'bin/main.ts'), "console.log('changed again')\n")
  const third = compile(root)
  t.same(trees(root), [second, third].map((tree) => tree.split('/').at(-1)).sort(), 'the tree unused for two days went; the one used a moment ago stayed')
})

t.test('two commands compiling the same sources at once both get the same whole tree', async (t) => {
  const root = scratchRepository(t)
  const run = (): Promise<{ code: number | null; out: string }> =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, [COMPILE, root], { stdio: ['ignore', 'pipe', 'inherit'] })
      let out = ''
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
      child.once('exit', (code) => resolve({ code, out: out.trim() }))
    })
  const [a, b] = await Promise.all([run(), run()])
  t.same([a.code, b.code], [0, 0], 'both succeed')
  t.equal(a.out, b.out, 'with the same tree')
  t.same(trees(root), [a.out.split('/').at(-1)], 'and nothing left half-built')
  t.ok(existsSync(join(a.out, 'bin/main.js')))
})

t.test('a source that does not compile fails with the file, line and problem, and leaves no tree', async (t) => {
  const root = scratchRepository(t)
  writeFileSync(join(root, 'shared/greeter.ts'), 'export const broken = (: number) => 1\n')
  const run = spawnSync(process.execPath, [COMPILE, root], { encoding: 'utf8' })
  t.equal(run.status, 1)
  t.match(run.stderr, /shared\/greeter\.ts:1:\d+: ERROR: /)
  t.same(trees(root), [], 'no tree, not even a partial one')
})
