// sandbox-local where the service is installed in a folder only its own user may enter (a clone
// under /root, any folder of mode 0700): as root, commands run as nobody, who cannot go there, so
// the template's prepared dependencies must reach it some other way, and what cannot (node, the
// temporary directory) must be refused at start-up with a message that says what to change.
import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { capturingLogger } from '../../plugins/conformance/leaks.js'
import { loadPlugin } from '../../shared/plugins/loader.js'
import { SandboxUnavailable, type Sandbox } from '../../shared/plugins/types.js'
import { commandsFor, runTests } from '../../services/investigator/fix/commands.js'

const asRoot = process.getuid?.() === 0
const NOBODY = { uid: 65534, gid: 65534 }
const RUN = { timeoutMs: 60_000 }

// The install: a template folder and the dependencies it prepared, inside a folder of mode 0700.
const installed = await mkdtemp(join(tmpdir(), 'svc-private-install-'))
t.teardown(() => rm(installed, { recursive: true, force: true }))
const files: Record<string, string> = {
  'svc/sandbox-templates/offline/template.json': JSON.stringify({ detect: 'javascript', install: 'true', nodeModules: '../../node_modules' }),
  'svc/node_modules/cart-rules/package.json': JSON.stringify({ name: 'cart-rules', version: '1.0.0', type: 'module', exports: './index.js' }),
  'svc/node_modules/cart-rules/index.js': 'export const FREE_SHIPPING_FROM = 5000\n',
  'svc/node_modules/.bin/cart-rules': '#!/bin/sh\necho "cart rules 1.0.0"\n',
  // The project under test: node:test, using the prepared package.
  'project/package.json': JSON.stringify({ name: 'shop', version: '1.0.0', private: true, type: 'module', dependencies: { 'cart-rules': '1.0.0' } }),
  'project/src/shipping.js': "import { FREE_SHIPPING_FROM } from 'cart-rules'\nexport const shipping = (total) => (total >= FREE_SHIPPING_FROM ? 0 : 495)\n",
  'project/test/shipping.test.js': "import assert from 'node:assert/strict'\nimport { test } from 'node:test'\nimport { shipping } from '../src/shipping.js'\ntest('free from 50.00', () => assert.equal(shipping(5000), 0))\ntest('4.95 below', () => assert.equal(shipping(4999), 495))\n",
}
for (const [path, text] of Object.entries(files)) {
  await mkdir(dirname(join(installed, path)), { recursive: true })
  await writeFile(join(installed, path), text, { mode: path.includes('.bin/') ? 0o755 : 0o644 })
}
const TEMPLATE = join(installed, 'svc/sandbox-templates/offline')

/** Whether nobody may read path, asked as nobody. */
async function nobodyReads(path: string): Promise<boolean> {
  return promisify(execFile)('/usr/bin/test', ['-r', path], { ...NOBODY, cwd: '/' }).then(
    () => true,
    () => false,
  )
}

const opened: Sandbox[] = []
t.teardown(() => Promise.all(opened.map((sandbox) => sandbox.destroy())))

for (const [mode, settings] of [
  ['under bubblewrap', {}],
  ['without bubblewrap', { bwrapPath: '/nonexistent/bwrap' }],
] as const) {
  t.test(`${mode}, a template inside a folder only root may enter still runs its project with the prepared dependencies`, async (t) => {
    t.equal((await stat(installed)).mode & 0o777, 0o700, 'the install folder is closed to other users')
    if (asRoot) t.notOk(await nobodyReads(join(installed, 'svc/node_modules/cart-rules/index.js')), 'nobody cannot read the prepared dependencies where they are')
    const plugin = await loadPlugin('sandbox', 'sandbox-local', settings, { log: capturingLogger().log })
    const sandbox = await plugin.create({ template: TEMPLATE })
    opened.push(sandbox)
    await sandbox.copyIn(join(installed, 'project'))
    const commands = await commandsFor(sandbox)
    const seen = await sandbox.run('id -u; node_modules/.bin/cart-rules; node -e "import(\'cart-rules\').then((m) => console.log(m.FREE_SHIPPING_FROM))"', RUN)
    t.equal(seen.infraError, undefined, 'the sandbox starts its commands')
    t.equal(seen.output, `${asRoot ? '65534' : String(process.getuid?.())}\ncart rules 1.0.0\n5000\n`, 'as nobody, running and importing the prepared package')
    const suite = await runTests(sandbox, commands, commands.test, RUN)
    t.equal(suite.result.exitCode, 0, suite.result.output.slice(-400))
    t.same([...suite.results.passed].sort(), ['4.95 below', 'free from 50.00'], 'the suite passes test by test')
  })
}

t.test('as root, a temporary directory nobody may not enter is refused at start-up, saying what to change', async (t) => {
  const { log, lines } = capturingLogger()
  const before = process.env.TMPDIR
  process.env.TMPDIR = installed
  const plugin = await loadPlugin('sandbox', 'sandbox-local', {}, { log }).finally(() => {
    if (before === undefined) delete process.env.TMPDIR
    else process.env.TMPDIR = before
  })
  if (!asRoot) {
    // Commands run as the service's own user, who may enter its own folder: nothing to refuse.
    t.notOk(lines.some((line) => line.includes('every sandbox is refused')), 'not root: no refusal')
    return
  }
  t.ok(lines.some((line) => /every sandbox is refused: the temporary directory .* is closed to uid 65534/.test(line)), 'one error at start-up')
  const error = await t.rejects(plugin.create({ template: TEMPLATE }))
  t.type(error, SandboxUnavailable)
  t.match((error as Error).message, /Set TMPDIR to a folder every user may enter \(\/tmp\), or open it \(chmod o\+x\)/)
})
