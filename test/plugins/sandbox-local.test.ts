// sandbox-local through the loader, with real processes: the sandbox conformance suite under
// bubblewrap, plus what is particular to running locally (the unprivileged user seen from the
// host, the limits, an infrastructure failure, the fallback without bubblewrap), and real test
// suites run through the templates: the investigator fixture's (tsx) and a plain node:test project.
import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { capturingLogger } from '../../plugins/conformance/leaks.js'
import { sandboxConformance } from '../../plugins/conformance/sandbox.js'
import { importPluginModule, loadPlugin } from '../../shared/plugins/loader.js'
import { SandboxTemplateMissing, SandboxUnavailable, type Sandbox, type SandboxPlugin } from '../../shared/plugins/types.js'
import { projectCommands, type ProjectCommands } from '../../shared/sandbox/project-commands.js'

const TEMPLATE = resolve('test/fixtures/sandbox-template')
const FIXTURE_APP = resolve('test/fixtures/investigate-app')
const DEFAULT_TEMPLATE = resolve('sandbox-templates/javascript')
const asRoot = process.getuid?.() === 0
const host = await mkdtemp(join(tmpdir(), 'svc-sandbox-local-test-'))
t.teardown(() => rm(host, { recursive: true, force: true }))

// Service secrets in this process's environment, as a worker has them: no command may see them.
const secrets: Record<string, string> = {}
for (const name of ['MODEL_API_KEY', 'CODEHOST_TOKEN', 'SANDBOX_API_KEY', 'DATABASE_URL', 'REDIS_URL', 'NODE_OPTIONS']) {
  secrets[name] = name === 'NODE_OPTIONS' ? '--max-old-space-size=4000' : `${name.toLowerCase()}-${randomBytes(8).toString('hex')}`
  process.env[name] = secrets[name]
}
t.teardown(() => {
  for (const name of Object.keys(secrets)) delete process.env[name]
})

const load = (settings: Record<string, unknown> = {}, log = capturingLogger().log): Promise<SandboxPlugin> => loadPlugin('sandbox', 'sandbox-local', settings, { log })
const opened: Sandbox[] = []
const open = async (plugin: SandboxPlugin, template = TEMPLATE): Promise<Sandbox> => {
  const sandbox = await plugin.create({ template })
  opened.push(sandbox)
  return sandbox
}
t.teardown(() => Promise.all(opened.map((sandbox) => sandbox.destroy())))
const shellQuote = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`
/** The commands the sandbox runs for the project copied into it (the template's, or detected). */
const commandsOf = (sandbox: Sandbox): Promise<ProjectCommands> => projectCommands(sandbox.template, (path) => sandbox.readFile(path))

/** Host processes whose command line contains token, with their real and effective uids. */
async function processesWith(token: string): Promise<Array<{ pid: string; uids: number[] }>> {
  const found = []
  for (const pid of (await readdir('/proc')).filter((name) => /^\d+$/.test(name))) {
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')
    if (!cmdline.includes(token)) continue
    const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '')
    found.push({ pid, uids: (/^Uid:\s+(.*)$/m.exec(status)?.[1] ?? '').split(/\s+/).map(Number) })
  }
  return found
}

t.test('with bubblewrap installed, sandbox-local isolates and passes the sandbox conformance suite', async (t) => {
  t.equal((await load()).label, 'local (bubblewrap)', 'bubblewrap works here (apt-get install bubblewrap)')
  await sandboxConformance(t, await importPluginModule('sandbox', 'sandbox-local'), {
    settings: () => ({}),
    template: () => TEMPLATE,
    secrets: () => Object.values(secrets).filter((value) => !value.startsWith('--')),
  })
})

t.test('a template folder that cannot be used says what is wrong with it and what to set', async (t) => {
  const plugin = await load()
  const base = { install: 'true', build: 'true', test: 'true', testFile: 'true {file}' }
  const cases: Array<[string, string | undefined, RegExp]> = [
    ['no template.json', undefined, /template\.json cannot be read \(ENOENT\)/],
    ['not JSON', '{ install: true', /is not JSON/],
    ['no testFile', JSON.stringify({ ...base, testFile: undefined }), /"testFile" is required/],
    ['testFile without {file}', JSON.stringify({ ...base, testFile: 'node --test' }), /"testFile" must contain \{file\}/],
    ['an unknown field', JSON.stringify({ ...base, setup: 'x' }), /"setup" is not a template field/],
    ['a nodeModules that is not there', JSON.stringify({ ...base, nodeModules: 'missing' }), /names nodeModules .*missing, which is not a folder/],
    ['a report without its file', JSON.stringify({ ...base, report: { format: 'jest-json' } }), /"report" must match exactly one schema/],
    ['detect for another language', JSON.stringify({ detect: 'python' }), /"detect" must be "javascript"/],
    ['detect with a test command', JSON.stringify({ detect: 'javascript', test: 'npm test' }), /"test" is not a template field/],
  ]
  for (const [what, text, message] of cases) {
    const folder = await mkdtemp(join(host, 'template-'))
    if (text !== undefined) await writeFile(join(folder, 'template.json'), text)
    const error = await t.rejects(plugin.create({ template: folder }), what)
    t.type(error, SandboxTemplateMissing, what)
    t.match((error as Error).message, message, what)
    t.match((error as Error).message, /SVC_SANDBOX_JAVASCRIPT_TEMPLATE=<folder with template\.json>.*sandbox-templates\/javascript/, `${what}: says what to set`)
  }
})

t.test('commands run as an unprivileged user, inside and as the host sees them', async (t) => {
  const sandbox = await open(await load())
  const inside = await sandbox.run('id -u', { timeoutMs: 10_000 })
  t.not(inside.output.trim(), '0', 'not root inside')
  if (asRoot) t.equal(inside.output.trim(), '65534', 'nobody, when the service is root')
  const token = `30.${Date.now() % 1_000_000}`
  const controller = new AbortController()
  const running = sandbox.run(`sleep ${token}`, { timeoutMs: 20_000, signal: controller.signal })
  let seen: Awaited<ReturnType<typeof processesWith>> = []
  for (let i = 0; i < 50 && !seen.some((p) => p.uids.length > 0); i++) {
    await sleep(100)
    seen = await processesWith(`sleep ${token}`)
  }
  t.ok(seen.length > 0, 'the command was found on the host')
  for (const { pid, uids } of seen) t.ok(uids.length === 4 && uids.every((uid) => uid !== 0), `process ${pid} holds no root uid (${uids.join(' ')})`)
  controller.abort(new Error('done looking'))
  await t.rejects(running, /done looking/)
  await sleep(200)
  t.same(await processesWith(`sleep ${token}`), [], 'and after the abort nothing of it is left')
})

t.test("a command sees the system's programs read-only and nothing else of the host", async (t) => {
  const sandbox = await open(await load())
  const hidden = ['/root', process.cwd(), host, '/etc/shadow', '/etc/ssl/private', '/var', '/opt']
  const looked = await sandbox.run(`for p in ${hidden.map(shellQuote).join(' ')}; do test -e "$p" && echo "visible: $p"; done; ls /home; ls /tmp | grep -c . ; touch /usr/svc-written 2>/dev/null && echo 'wrote /usr'; unshare --user true 2>/dev/null && echo 'made a user namespace'; pwd`, { timeoutMs: 10_000 })
  t.equal(looked.output, 'sandbox\n0\n/workspace\n', 'none of the hidden paths, only its own home, an empty /tmp, /usr read-only, no nested namespaces, in /workspace')
})

t.test('network: true (the dependency install) reaches the network; commands are otherwise without it', async (t) => {
  const server = createServer((_request, response) => response.end('reached'))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const { port } = server.address() as AddressInfo
  const sandbox = await open(await load())
  const probe = `node -e "fetch('http://127.0.0.1:${port}/').then((r) => r.text()).then(console.log, (e) => { console.log('failed'); process.exit(7) })"`
  t.match(await sandbox.run(probe, { timeoutMs: 20_000, network: true }), { exitCode: 0, output: 'reached\n' })
  t.match(await sandbox.run(probe, { timeoutMs: 20_000 }), { exitCode: 7, output: 'failed\n' })
})

t.test('limits apply to every process: CPU, memory written, processes, file size', async (t) => {
  const sandbox = await open(await load({ cpuSeconds: 120, memoryMb: 256, maxProcesses: 100, fileSizeMb: 16 }))
  const limits = (await sandbox.run('cat /proc/self/limits', { timeoutMs: 10_000 })).output
  t.match(limits, /Max cpu time\s+120\s+120 /)
  t.match(limits, /Max data size\s+268435456\s+268435456 /)
  t.match(limits, /Max processes\s+100\s+100 /)
  t.match(limits, /Max file size\s+16777216\s+16777216 /)
  t.match(limits, /Max core file size\s+0\s+0 /)
  const greedy = await sandbox.run(`node -e "const kept = []; for (let i = 0; i < 8; i++) kept.push(Buffer.alloc(64 * 1024 * 1024, 1)); console.log('allocated 512 MiB')"`, { timeoutMs: 20_000 })
  t.not(greedy.exitCode, 0, 'node cannot write 512 MiB under a 256 MiB limit')
  t.notMatch(greedy.output, /allocated/)
  const big = await sandbox.run('head -c 20000000 /dev/zero > big.bin', { timeoutMs: 20_000 })
  t.not(big.exitCode, 0, 'a 20 MB file is refused under a 16 MiB limit')
  await sandbox.copyIn(FIXTURE_APP)
  const suite = await sandbox.run((await commandsOf(sandbox)).test, { timeoutMs: 60_000 })
  t.equal(suite.exitCode, 0, 'a tsx test suite still runs at 256 MiB per process')
})

t.test('a sandbox that cannot start its command reports an infrastructure error, not a result', async (t) => {
  const template = join(host, 'vanishing-template')
  await mkdir(join(template, 'deps'), { recursive: true })
  // The unprivileged user must reach the prepared dependencies to mount them.
  await chmod(host, 0o755)
  await writeFile(join(template, 'template.json'), JSON.stringify({ install: 'true', build: 'true', test: 'true', testFile: 'true {file}', nodeModules: 'deps' }))
  const sandbox = await open(await load(), template)
  t.match(await sandbox.run('true', { timeoutMs: 10_000 }), { exitCode: 0, infraError: undefined }, 'it starts while the template is whole')
  await rm(join(template, 'deps'), { recursive: true })
  const failed = await sandbox.run('true', { timeoutMs: 10_000 })
  t.equal(failed.exitCode, null)
  t.match(failed.infraError, /bwrap/, `bubblewrap's own message: ${failed.infraError}`)
})

t.test('without bubblewrap it says so, warns once, and still runs as nobody with a clean environment and limits', async (t) => {
  const { log, lines } = capturingLogger()
  const plugin = await load({ bwrapPath: '/nonexistent/bwrap' }, log)
  t.equal(plugin.label, 'local (no isolation: bubblewrap unavailable)')
  const sandbox = await open(plugin)
  await open(plugin)
  t.equal(lines.filter((line) => line.includes('bubblewrap unavailable')).length, 1, 'one warning, at start')
  const seen = await sandbox.run('id -u; env; grep "Max processes" /proc/self/limits', { timeoutMs: 10_000 })
  if (asRoot) t.match(seen.output, /^65534\n/)
  for (const [name, value] of Object.entries(secrets)) {
    t.notMatch(seen.output, new RegExp(`^${name}=`, 'm'), `${name} is not set`)
    t.notOk(seen.output.includes(value), `nor is its value`)
  }
  t.match(seen.output, /Max processes\s+256\s+256/)
  const token = `60.${Date.now() % 1_000_000}`
  const timed = await sandbox.run(`sleep ${token} & sleep 61`, { timeoutMs: 500 })
  t.match(timed, { timedOut: true, exitCode: null })
  await sleep(200)
  t.same(await processesWith(`sleep ${token}`), [], 'what it started in the background was killed with it')
  const owner = (await stat('node_modules/tsx/package.json')).uid
  await sandbox.copyIn(FIXTURE_APP)
  t.equal((await sandbox.run((await commandsOf(sandbox)).test, { timeoutMs: 60_000 })).exitCode, 0, 'the template’s node_modules is linked in')
  t.equal((await stat('node_modules/tsx/package.json')).uid, owner, 'and left to its owner')
  const strict = await load({ bwrapPath: '/nonexistent/bwrap', requireIsolation: true })
  const refused = await t.rejects(strict.create({ template: TEMPLATE }))
  t.type(refused, SandboxUnavailable)
  t.match((refused as Error).message, /requireIsolation/)
})

t.test('the investigator fixture passes its suite in a sandbox through the test template', async (t) => {
  const sandbox = await open(await load())
  await sandbox.copyIn(FIXTURE_APP)
  const commands = await commandsOf(sandbox)
  const timings: string[] = []
  for (const step of ['install', 'build', 'test'] as const) {
    const result = await sandbox.run(commands[step], { timeoutMs: 120_000, network: step === 'install' })
    t.equal(result.exitCode, 0, `${step} exits 0`)
    t.equal(result.infraError, undefined)
    timings.push(`${step} ${result.durationMs} ms`)
    if (step === 'test') {
      t.match(result.output, /^ok \d+ - /m, 'TAP ok lines')
      t.match(result.output, /^# fail 0$/m)
      t.notMatch(result.output, /^not ok/m)
    }
  }
  const one = await sandbox.run(commands.testFile.replace('{file}', shellQuote('apps/shop/test/cart.test.ts')), { timeoutMs: 60_000 })
  t.equal(one.exitCode, 0, 'one file through testFile')
  t.match(one.output, /^ok 1 - /m)
  timings.push(`testFile ${one.durationMs} ms`)
  t.comment(`fixture in sandbox-local: ${timings.join(', ')}`)
  t.notOk(existsSync(join(FIXTURE_APP, 'node_modules')), 'the fixture folder itself is untouched')
})

t.test('a plain node:test project installs, builds and tests through sandbox-templates/javascript', async (t) => {
  const project = join(host, 'tiny-project')
  const files: Record<string, string> = {
    'package.json': JSON.stringify({ name: 'tiny', version: '1.0.0', private: true, type: 'module', scripts: { build: 'node build.mjs' } }),
    'package-lock.json': JSON.stringify({ name: 'tiny', version: '1.0.0', lockfileVersion: 3, requires: true, packages: { '': { name: 'tiny', version: '1.0.0' } } }),
    'build.mjs': "import { mkdirSync, writeFileSync } from 'node:fs'\nmkdirSync('dist', { recursive: true })\nwriteFileSync('dist/built.txt', 'built')\n",
    'src/sum.js': 'export const sum = (a, b) => a + b\n',
    'test/sum.test.js': "import assert from 'node:assert/strict'\nimport { test } from 'node:test'\nimport { sum } from '../src/sum.js'\ntest('adds', () => assert.equal(sum(1, 2), 3))\n",
  }
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(project, path)), { recursive: true })
    await writeFile(join(project, path), text)
  }
  const sandbox = await open(await load(), DEFAULT_TEMPLATE)
  await sandbox.copyIn(project)
  const commands = await commandsOf(sandbox)
  t.equal(commands.summary, 'npm, node:test', 'the template detects npm from the lock file and node:test without a runner in package.json')
  t.equal((await sandbox.run(commands.install, { timeoutMs: 120_000, network: true })).exitCode, 0, 'npm ci')
  t.equal((await sandbox.run(commands.build, { timeoutMs: 60_000 })).exitCode, 0, 'npm run build')
  t.equal(await sandbox.readFile('dist/built.txt'), 'built')
  const suite = await sandbox.run(commands.test, { timeoutMs: 60_000 })
  t.equal(suite.exitCode, 0)
  t.match(suite.output, /^ok 1 - adds$/m)
  await sandbox.writeFile('test/broken.test.js', "import assert from 'node:assert/strict'\nimport { test } from 'node:test'\ntest('breaks', () => assert.equal(1, 2))\n")
  const broken = await sandbox.run(commands.testFile.replace('{file}', shellQuote('test/broken.test.js')), { timeoutMs: 60_000 })
  t.equal(broken.exitCode, 1, 'a failing test file exits 1')
  t.match(broken.output, /^not ok 1 - breaks$/m)
})

t.test('destroy removes every file, those the unprivileged user made included', async (t) => {
  const sandbox = await open(await load())
  const folder = join(tmpdir(), `svc-sandbox-${sandbox.id.replace(/^local-/, '')}`)
  t.ok(existsSync(folder), 'the sandbox folder is under the temporary directory')
  await sandbox.run('mkdir -p locked/inner && echo x > locked/inner/f && chmod 000 locked/inner locked', { timeoutMs: 10_000 })
  await sandbox.destroy()
  t.notOk(existsSync(folder), 'gone')
})
