/**
 * The conformance suite for sandbox plugins: any plugin of kind sandbox, ours (sandbox-local) or a
 * remote sandbox service's, runs it with a harness its test provides (see docs/sandbox.md). It
 * covers the template, copying a folder in, files both ways, exit codes and interleaved output,
 * the time limit and the output cap (each killing everything the command started), no network
 * unless asked for, none of the service's environment, paths that would leave the workspace,
 * abort, and destroy; and that no secret reaches an error or a log line.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Test } from 'tap'
import { checkPluginModule, instantiatePlugin } from '../../shared/plugins/loader.js'
import { SandboxPathRefused, SandboxTemplateMissing, type PluginModule, type RunOptions, type Sandbox, type SandboxPlugin } from '../../shared/plugins/types.js'
import { assertNoSecrets, capturingLogger } from './leaks.js'

/** What the suite needs from the test that runs it. */
export interface SandboxHarness {
  /** Settings of a working plugin (for a remote one: its address and API key). */
  settings(): Record<string, unknown>
  /** A template the plugin accepts (the value of SVC_SANDBOX_JAVASCRIPT_TEMPLATE); its commands have node, sh and coreutils. */
  template(): string
  /**
   * Values no command, error or log line may show: the plugin's key, and the values of service
   * variables the test put in this process's environment (MODEL_API_KEY, DATABASE_URL, …).
   */
  secrets(): string[]
}

/** Variables of the service that must never reach a command. */
const SERVICE_VARIABLES = ['MODEL_API_KEY', 'CODEHOST_TOKEN', 'SANDBOX_API_KEY', 'DATABASE_URL', 'REDIS_URL', 'EMBEDDINGS_API_KEY', 'CODEHOST_APP_PRIVATE_KEY', 'NODE_OPTIONS']
// A loop that proves, by stopping, that nothing a command started outlives it.
const HEARTBEAT = 'i=0; while :; do i=$((i+1)); echo $i > heartbeat; sleep 0.1; done'
const KIB = 1024

/** Runs the sandbox conformance suite against module as subtests of t. */
export async function sandboxConformance(t: Test, module: unknown, harness: SandboxHarness): Promise<void> {
  const plugin = checkPluginModule('sandbox', (module as PluginModule).manifest?.name ?? 'unknown', module, false)
  const { log, lines } = capturingLogger()
  const errors: string[] = []
  const sandboxes: SandboxPlugin = await instantiatePlugin(plugin, 'sandbox', harness.settings(), { log })
  const host = await mkdtemp(join(tmpdir(), 'svc-sandbox-conformance-'))
  t.teardown(() => rm(host, { recursive: true, force: true }))
  const sandbox = await sandboxes.create({ template: harness.template() })
  t.teardown(() => sandbox.destroy())
  const run = (command: string, options: Partial<RunOptions> = {}) => sandbox.run(command, { timeoutMs: 30_000, ...options })

  await t.test('the label says what runs the commands', async (t) => {
    t.ok(typeof sandboxes.label === 'string' && sandboxes.label.length > 0)
    assertNoSecrets(t, sandboxes.label, harness.secrets(), 'the label')
  })

  await t.test('create without a usable template throws SandboxTemplateMissing saying what to set', async (t) => {
    for (const template of [undefined, '', join(host, 'no-such-template')]) {
      const error = await t.rejects(sandboxes.create({ template }), String(template))
      t.type(error, SandboxTemplateMissing, `${String(template)}: SandboxTemplateMissing`)
      t.match((error as Error).message, /SVC_SANDBOX_JAVASCRIPT_TEMPLATE/, 'names the variable to set')
      errors.push((error as Error).message)
    }
  })

  await t.test('a sandbox carries its template: install, build, test, and testFile with {file}, or detect', async (t) => {
    t.ok(sandbox.id.length > 0, 'an id')
    const template = sandbox.template
    if (template.detect !== undefined) {
      t.equal(template.detect, 'javascript', 'a detecting template')
      for (const field of ['install', 'build'] as const) t.ok(template[field] === undefined || template[field].length > 0, `${field}, when given, is a command`)
    } else {
      for (const field of ['install', 'build', 'test', 'testFile'] as const) t.ok(template[field].length > 0, field)
      t.match(template.testFile, /\{file\}/)
    }
  })

  await t.test("copyIn copies a folder's files by relative path, without .git and node_modules", async (t) => {
    const source = join(host, 'repository')
    const files: Record<string, string> = {
      'package.json': '{"name":"conformance","private":true}\n',
      'src/deep/nested/file.txt': 'héllo, wörld \u{1f600}\n',
      '.git/HEAD': 'ref: refs/heads/main\n',
      'sub/.git': 'gitdir: ../.git/modules/sub\n',
      'sub/node_modules/dep/index.js': 'module.exports = 1\n',
      'sub/kept.js': 'export {}\n',
    }
    for (const [path, text] of Object.entries(files)) {
      await mkdir(dirname(join(source, path)), { recursive: true })
      await writeFile(join(source, path), text)
    }
    await sandbox.copyIn(source)
    t.equal(await sandbox.readFile('package.json'), files['package.json'])
    t.equal(await sandbox.readFile('src/deep/nested/file.txt'), files['src/deep/nested/file.txt'], 'nested, and the text intact')
    t.equal(await sandbox.readFile('sub/kept.js'), files['sub/kept.js'])
    for (const skipped of ['.git/HEAD', 'sub/.git', 'sub/node_modules/dep/index.js']) t.equal(await sandbox.readFile(skipped), undefined, `${skipped} is not copied`)
    t.equal(await sandbox.readFile('no/such/file.txt'), undefined, 'a missing file is undefined')
    const seen = await run('cat src/deep/nested/file.txt')
    t.equal(seen.output, files['src/deep/nested/file.txt'], 'commands see the copied files')
  })

  await t.test('a file written from outside is seen by commands, and what a command writes is read back', async (t) => {
    await sandbox.writeFile('written/by/host.txt', 'from the host\n')
    const result = await run('cat written/by/host.txt && printf more >> written/by/host.txt && mkdir -p out && printf made > out/by-command.txt')
    t.equal(result.exitCode, 0, 'the command could read and append to it')
    t.equal(result.output, 'from the host\n')
    t.equal(await sandbox.readFile('written/by/host.txt'), 'from the host\nmore')
    t.equal(await sandbox.readFile('out/by-command.txt'), 'made')
    await sandbox.writeFile('out/by-command.txt', 'replaced')
    t.equal((await run('cat out/by-command.txt')).output, 'replaced', 'a file the command made can be replaced')
  })

  await t.test('exit codes come back, with stdout and stderr interleaved in one output', async (t) => {
    for (const [command, code] of [['true', 0], ['exit 3', 3], ['false', 1]] as const) t.equal((await run(command)).exitCode, code, command)
    const mixed = await run('echo one; echo two >&2; echo three')
    t.match(mixed, { exitCode: 0, timedOut: false, outputCapped: false, output: 'one\ntwo\nthree\n' })
    t.equal(mixed.infraError, undefined, 'no infrastructure error')
    t.ok(mixed.durationMs >= 0 && mixed.durationMs < 30_000, 'a duration')
    const missing = await run('svc-no-such-command-here')
    t.equal(missing.exitCode, 127, 'a missing command is the shell’s 127, not an infrastructure error')
    t.equal(missing.infraError, undefined)
  })

  await t.test('a command past its time limit is killed with everything it started', async (t) => {
    // 500 ms, and 3 s should a loaded machine not get the loop going in 500 ms: it must be seen to stop.
    for (const timeoutMs of [500, 3000]) {
      const result = await run(`(${HEARTBEAT}) & sleep 60`, { timeoutMs })
      t.match(result, { timedOut: true, exitCode: null }, `killed at ${timeoutMs} ms`)
      t.equal(result.infraError, undefined)
      t.ok(result.durationMs < timeoutMs + 10_000, `returned in ${result.durationMs} ms`)
      if ((await sandbox.readFile('heartbeat')) !== undefined) break
    }
    await assertStopped(t, sandbox)
  })

  await t.test('a flood of output is capped and killed, keeping its head and its tail', async (t) => {
    const cap = 64 * KIB
    const flood = await run('seq 1 100000000', { outputCapBytes: cap })
    t.match(flood, { outputCapped: true, timedOut: false, exitCode: null })
    t.ok(flood.durationMs < 20_000, `killed in ${flood.durationMs} ms, not left to run`)
    t.ok(Buffer.byteLength(flood.output) <= cap + 256, `${Buffer.byteLength(flood.output)} bytes kept for a cap of ${cap}`)
    t.ok(flood.output.startsWith('1\n2\n3\n'), 'the head')
    const largest = (text: string): number => Math.max(...text.split('\n').filter((line) => /^\d+$/.test(line)).map(Number))
    t.ok(largest(flood.output) > largest(flood.output.slice(0, cap / 2)), 'the tail: later output than the head holds')
    const yes = await run('yes')
    t.match(yes, { outputCapped: true, exitCode: null })
    t.ok(Buffer.byteLength(yes.output) <= 1024 * KIB + 256, 'the default cap is 1 MiB')
  })

  await t.test("without network a command cannot reach the service's machine", async (t) => {
    let hits = 0
    const server = createServer((_request, response) => {
      hits++
      response.end('reached')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
    const { port } = server.address() as AddressInfo
    const probe = `node -e "fetch('http://127.0.0.1:${port}/').then((r) => r.text()).then((t) => { console.log('answer: ' + t); process.exit(0) }, (e) => { console.log('failed: ' + (e.cause?.code ?? e.message)); process.exit(7) })"`
    for (const network of [undefined, false]) {
      const result = await run(probe, network === undefined ? {} : { network })
      t.equal(result.exitCode, 7, `network ${String(network)}: the request failed (${result.output.trim()})`)
      t.notMatch(result.output, /answer:/)
    }
    t.equal(hits, 0, 'the server saw no request')
  })

  await t.test("the service's environment does not reach commands", async (t) => {
    const seen = await run('env; cat /proc/*/environ 2>/dev/null | tr "\\0" "\\n"')
    t.equal(seen.exitCode, 0)
    for (const name of SERVICE_VARIABLES) t.notMatch(seen.output, new RegExp(`^${name}=`, 'm'), `${name} is not set`)
    assertNoSecrets(t, seen.output, harness.secrets(), 'what a command sees')
  })

  await t.test('paths that leave the workspace are refused, through links too', async (t) => {
    const refuses = async (what: string, attempt: Promise<unknown>) => {
      const error = await attempt.then(
        () => undefined,
        (reason: unknown) => reason,
      )
      t.type(error, SandboxPathRefused, what)
      errors.push(String((error as Error | undefined)?.message))
    }
    for (const path of ['/etc/passwd', '../outside.txt', 'a/../../outside.txt', 'a/../b.txt', '']) {
      await refuses(`readFile ${JSON.stringify(path)}`, sandbox.readFile(path))
      await refuses(`writeFile ${JSON.stringify(path)}`, sandbox.writeFile(path, 'x'))
    }
    const links = await run('ln -s / root-link && ln -s /etc/passwd passwd-link && ln -s .. up-link && ln -s /svc-no-such-target dangling-link && echo inside > inside.txt && ln -s inside.txt inner-link')
    t.equal(links.exitCode, 0, 'the command made its links')
    for (const path of ['root-link/etc/passwd', 'passwd-link', 'up-link/outside.txt']) await refuses(`readFile ${path}`, sandbox.readFile(path))
    for (const path of ['root-link/tmp/svc-escaped.txt', 'passwd-link', 'dangling-link', 'up-link/escaped.txt']) await refuses(`writeFile ${path}`, sandbox.writeFile(path, 'x'))
    t.equal(await sandbox.readFile('inner-link'), 'inside\n', 'a link that stays inside is followed')
  })

  await t.test("an aborted run rejects with the signal's reason and its command is killed", async (t) => {
    const controller = new AbortController()
    const reason = new Error('stopped by the conformance suite')
    const running = run(`(${HEARTBEAT}) & sleep 60`, { timeoutMs: 60_000, signal: controller.signal })
    // Aborted once its background loop runs, so the loop is seen to stop.
    for (let i = 0; i < 100 && (await sandbox.readFile('heartbeat')) === undefined; i++) await sleep(100)
    const started = Date.now()
    controller.abort(reason)
    await t.rejects(running, reason)
    t.ok(Date.now() - started < 10_000, 'at once')
    await assertStopped(t, sandbox)
    await t.rejects(run('true', { signal: AbortSignal.abort(reason) }), reason, 'an already aborted signal runs nothing')
  })

  await t.test('destroy stops what runs and removes the sandbox; twice is fine; nothing works after', async (t) => {
    const doomed = await sandboxes.create({ template: harness.template() })
    await doomed.writeFile('file.txt', 'x')
    const running = doomed.run('sleep 60', { timeoutMs: 60_000 }).then(
      () => 'resolved',
      () => 'rejected',
    )
    await sleep(200)
    const started = Date.now()
    await doomed.destroy()
    t.match(await running, /resolved|rejected/, 'the running command ended')
    t.ok(Date.now() - started < 10_000, 'without waiting for it')
    await t.resolves(doomed.destroy(), 'a second destroy resolves')
    await t.rejects(doomed.run('true', { timeoutMs: 5000 }), 'run after destroy rejects')
    await t.rejects(doomed.readFile('file.txt'), 'readFile after destroy rejects')
  })

  await t.test('no secret reaches an error message or a log line', async (t) => {
    assertNoSecrets(t, errors.join('\n'), harness.secrets(), 'every error message')
    assertNoSecrets(t, lines.join('\n'), harness.secrets(), 'the log')
  })
}

/** The heartbeat file stops changing: nothing the killed command started still runs. */
async function assertStopped(t: Test, sandbox: Sandbox): Promise<void> {
  const before = await sandbox.readFile('heartbeat')
  t.ok(before !== undefined, 'the command had started its background loop')
  await sleep(700)
  t.equal(await sandbox.readFile('heartbeat'), before, 'its background loop is dead')
  await sandbox.run('rm -f heartbeat', { timeoutMs: 30_000 })
}
