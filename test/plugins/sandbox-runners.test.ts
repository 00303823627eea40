// The shipped template's detection through the real local sandbox, one small project per test
// runner (test/fixtures/sandbox-projects): dependencies prepared offline (the repository's own
// node_modules, which npm ci filled with vite, vitest, jest and mocha) under
// test/fixtures/sandbox-template-detect, results read the way E1 and E2 read them.
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import t from 'tap'
import { capturingLogger } from '../../plugins/conformance/leaks.js'
import { loadPlugin } from '../../shared/plugins/loader.js'
import type { Sandbox, SandboxPlugin } from '../../shared/plugins/types.js'
import { newFailures } from '../../shared/sandbox/test-results.js'
import { commandsFor, runTests } from '../../services/investigator/fix/commands.js'

const TEMPLATE = resolve('test/fixtures/sandbox-template-detect')
const PROJECTS = resolve('test/fixtures/sandbox-projects')
const RUN = { timeoutMs: 120_000 }

interface Case {
  runner: string
  /** The source file the broken change goes into. */
  source: string
  /** The names the runner's report gives the two tests. */
  totals: string
  counts: string
  /** A declared regression test that fails, and the name it fails under. */
  declared: { path: string; content: string; name: string }
}

const cases: Case[] = [
  {
    runner: 'vitest',
    source: 'src/cart.ts',
    totals: 'src/cart.test.ts > cart > totals price times quantity',
    counts: 'src/cart.test.ts > cart > counts the items',
    declared: { path: 'src/gift.test.ts', content: "import { expect, it } from 'vitest'\nimport { total } from './cart.js'\nit('a gift line costs nothing', () => expect(total([{ price: 999, quantity: 0 }])).toBe(1))\n", name: 'src/gift.test.ts > a gift line costs nothing' },
  },
  {
    runner: 'jest',
    source: 'src/cart.js',
    totals: 'test/cart.test.js > cart > totals price times quantity',
    counts: 'test/cart.test.js > cart > counts the items',
    declared: { path: 'test/gift.test.js', content: "const { total } = require('../src/cart')\ntest('a gift line costs nothing', () => expect(total([{ price: 999, quantity: 0 }])).toBe(1))\n", name: 'test/gift.test.js > a gift line costs nothing' },
  },
  {
    runner: 'mocha',
    source: 'src/cart.js',
    totals: 'test/cart.test.js > cart totals price times quantity',
    counts: 'test/cart.test.js > cart counts the items',
    declared: { path: 'test/gift.test.js', content: "import assert from 'node:assert/strict'\nimport { total } from '../src/cart.js'\nit('a gift line costs nothing', () => assert.equal(total([{ price: 999, quantity: 0 }]), 1))\n", name: 'test/gift.test.js > a gift line costs nothing' },
  },
  {
    runner: 'node:test',
    source: 'src/cart.js',
    totals: 'cart > totals price times quantity',
    counts: 'cart > counts the items',
    declared: { path: 'test/gift.test.js', content: "import assert from 'node:assert/strict'\nimport { it } from 'node:test'\nimport { total } from '../src/cart.js'\nit('a gift line costs nothing', () => assert.equal(total([{ price: 999, quantity: 0 }]), 1))\n", name: 'a gift line costs nothing' },
  },
]

const plugin: SandboxPlugin = await loadPlugin('sandbox', 'sandbox-local', {}, { log: capturingLogger().log })
const opened: Sandbox[] = []
t.teardown(() => Promise.all(opened.map((sandbox) => sandbox.destroy())))

for (const c of cases) {
  t.test(`${c.runner}: the baseline is green test by test, a declared failing test fails, and E1 names the test a broken change breaks`, async (t) => {
    const sandbox = await plugin.create({ template: TEMPLATE })
    opened.push(sandbox)
    await sandbox.copyIn(`${PROJECTS}/${c.runner.replace(':', '-')}`)
    const commands = await commandsFor(sandbox)
    t.equal(commands.summary, `npm, ${c.runner}`, 'npm from the lock file, the runner from package.json')
    for (const step of ['install', 'build'] as const) t.equal((await sandbox.run(commands[step], RUN)).exitCode, 0, `${step}: ${commands[step]}`)

    const baseline = await runTests(sandbox, commands, commands.test, RUN)
    t.equal(baseline.result.exitCode, 0, `the suite passes: ${baseline.result.output.slice(-400)}`)
    t.same([[...baseline.results.passed].sort(), [...baseline.results.failed]], [[c.totals, c.counts].sort(), []], 'both tests, by name, from the runner’s report')

    await sandbox.writeFile(c.declared.path, c.declared.content)
    const declared = await runTests(sandbox, commands, commands.testFile.replace('{file}', `'${c.declared.path}'`), RUN)
    t.not(declared.result.exitCode, 0, 'the declared test file exits non-zero')
    t.same([[...declared.results.failed], [...declared.results.passed]], [[c.declared.name], []], 'and its one test is reported failed, nothing else ran')

    const source = (await sandbox.readFile(c.source))!
    await sandbox.writeFile(c.source, source.replace('line.price * line.quantity', 'line.price + line.quantity'))
    const broken = await runTests(sandbox, commands, commands.test, RUN)
    t.not(broken.result.exitCode, 0, 'the suite fails with the broken change')
    t.same(newFailures(baseline.results, broken.results), [c.totals], 'E1 names exactly the test that passed before and fails now')
  })
}

t.test('Vite writes into node_modules: each sandbox has a writable top level over read-only prepared packages', async (t) => {
  const sandbox = await plugin.create({ template: TEMPLATE })
  opened.push(sandbox)
  await sandbox.copyIn(`${PROJECTS}/vitest`)
  const commands = await commandsFor(sandbox)
  t.equal((await sandbox.run(commands.build, RUN)).exitCode, 0, 'vite build loads vite.config.ts')
  t.match(await sandbox.readFile('dist/cart.js'), /function/, 'and writes the bundle')
  const looked = await sandbox.run('test -d node_modules/.vite-temp && ! test -L node_modules/.vite-temp && echo vite-temp; touch node_modules/vitest/package.json 2>/dev/null || echo installed-read-only; test -L node_modules/vitest && echo linked', RUN)
  t.equal(looked.output, 'vite-temp\ninstalled-read-only\nlinked\n', "Vite's config bundle went to a folder of the sandbox's own; the installed packages stay read-only")
})

t.test("dependencies prepared by pnpm (.pnpm and links into it) and workspace links resolve from the workspace; a pnpm project runs its suite offline", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'svc-pnpm-layout-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const files: Record<string, string> = {
    'template/template.json': JSON.stringify({ detect: 'javascript', install: 'true', nodeModules: '../prepared/node_modules' }),
    'prepared/node_modules/.pnpm/left-pad@1.3.0/node_modules/left-pad/package.json': JSON.stringify({ name: 'left-pad', version: '1.3.0', main: 'index.js' }),
    'prepared/node_modules/.pnpm/left-pad@1.3.0/node_modules/left-pad/index.js': "module.exports = (text, width) => String(text).padStart(width, '0')\n",
    'project/package.json': JSON.stringify({ name: 'shop', private: true, type: 'commonjs', packageManager: 'pnpm@9.15.0', dependencies: { 'left-pad': '1.3.0', '@shop/utils': 'workspace:*' } }),
    'project/pnpm-lock.yaml': "lockfileVersion: '9.0'\n",
    'project/packages/utils/package.json': JSON.stringify({ name: '@shop/utils', version: '0.0.0', main: 'index.js', bin: { 'order-id': 'bin.js' } }),
    'project/packages/utils/index.js': "const pad = require('left-pad')\nexports.orderId = (n) => `order-${pad(n, 6)}`\n",
    'project/packages/utils/bin.js': "#!/usr/bin/env node\nconsole.log(require('./index.js').orderId(Number(process.argv[2])))\n",
    'project/test/order.test.js': "const assert = require('node:assert/strict')\nconst { test } = require('node:test')\nconst { orderId } = require('@shop/utils')\ntest('pads the order number', () => assert.equal(orderId(42), 'order-000042'))\n",
  }
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true })
    await writeFile(join(dir, path), text, { mode: path.endsWith('bin.js') ? 0o755 : 0o644 })
  }
  // As pnpm lays them out: each package a link into .pnpm, workspace packages links into the repository.
  await symlink('.pnpm/left-pad@1.3.0/node_modules/left-pad', join(dir, 'prepared/node_modules/left-pad'))
  await mkdir(join(dir, 'prepared/node_modules/@shop'))
  await symlink('../../packages/utils', join(dir, 'prepared/node_modules/@shop/utils'))
  await mkdir(join(dir, 'prepared/node_modules/.bin'))
  await symlink('../@shop/utils/bin.js', join(dir, 'prepared/node_modules/.bin/order-id'))
  const sandbox = await plugin.create({ template: join(dir, 'template') })
  opened.push(sandbox)
  await sandbox.copyIn(join(dir, 'project'))
  const commands = await commandsFor(sandbox)
  t.equal(commands.summary, 'pnpm, node:test', "pnpm from package.json's packageManager and its lock file")
  t.equal(commands.build, "echo 'package.json has no build script: nothing to build'", 'nothing that needs pnpm itself offline')
  const seen = await sandbox.run("node_modules/.bin/order-id 7 && node -e \"console.log(require('left-pad')(5, 3))\"", RUN)
  t.equal(seen.output, 'order-000007\n005\n', "the workspace package's bin and a package inside .pnpm, both through links")
  const suite = await runTests(sandbox, commands, commands.test, RUN)
  t.equal(suite.result.exitCode, 0, suite.result.output.slice(-400))
  t.same([...suite.results.passed], ['pads the order number'])
})
