import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import t from 'tap'
import { childEnv } from '../../helpers/env.js'
import { childrenOf, freePort, SVC } from '../../helpers/processes.js'
import { waitFor } from '../../helpers/stack.js'

const RECORDER = pathToFileURL(new URL('../../helpers/record-imports.mjs', import.meta.url).pathname).href
/** What only the parts need: service code, plugins, database and Redis clients, PGlite, HTTP. */
const PARTS_ONLY = /\/(services|plugins)\/|\/shared\/(db|orm|migrate|embedded\/postgres)\.js$|\/node_modules\/(pg|@electric-sql|@mikro-orm|knex|ioredis|uWebSockets\.js|@anthropic-ai|openai|@octokit|@aws-sdk)\//
const COMPILED = /\/node_modules\/\.cache\/svc\/[0-9a-f]+\//

/** Every module each process loaded, by pid, from the recorder's file. */
function importsByPid(file: string): Map<number, string[]> {
  const byPid = new Map<number, string[]>()
  for (const line of readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
    const [pid, url] = line.split(' ') as [string, string]
    byPid.set(Number(pid), [...(byPid.get(Number(pid)) ?? []), url])
  }
  return byPid
}

t.test('svc up on embedded defaults: the supervisor loads no service code, database client or PGlite, and every process runs compiled JavaScript without tsx', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-up-footprint-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const importsFile = join(dir, 'imports')
  writeFileSync(importsFile, '')
  const env = childEnv({
    SVC_DATA_DIR: join(dir, 'data'),
    INGESTION_PORT: String(await freePort()),
    WORKER_HEALTH_PORT: String(await freePort()),
    SVC_INGESTION_HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    DATABASE_URL: undefined,
    REDIS_URL: undefined,
    SVC_TEST_IMPORTS_FILE: importsFile,
  })
  // Set after childEnv, which removes the test runner's NODE_OPTIONS; every process inherits it.
  const up = spawn(process.execPath, [SVC, 'up'], { env: { ...env, NODE_OPTIONS: `--import=${RECORDER}` }, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  up.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  up.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const exited = new Promise<number | null>((resolve) => up.once('exit', resolve))
  t.teardown(() => {
    if (up.exitCode !== null) return
    for (const part of childrenOf(up.pid!)) if (/svc\.js/.test(part.args)) process.kill(part.pid, 'SIGKILL')
    up.kill('SIGKILL')
  })
  await waitFor(async () => output.includes('svc is running') || up.exitCode !== null, 60_000, 50)
  t.match(output, 'svc is running', 'svc up started')

  const parts = childrenOf(up.pid!)
  const allInOne = parts.find((part) => part.args.endsWith('svc.js all-in-one'))
  t.ok(allInOne, 'the all-in-one part runs')
  const tree = [...parts, ...parts.flatMap((part) => childrenOf(part.pid))]
  t.same(tree.filter((p) => /esbuild/.test(p.args)), [], 'no esbuild service process: nothing runs through tsx')
  up.kill('SIGINT')
  t.equal(await exited, 0, 'Ctrl-C stops it cleanly')

  const loaded = importsByPid(importsFile)
  const supervisor = loaded.get(up.pid!) ?? []
  t.ok(supervisor.some((url) => COMPILED.test(url) && url.endsWith('/bin/commands/up.js')), 'the supervisor runs svc up compiled')
  t.same(supervisor.filter((url) => PARTS_ONLY.test(url)), [], 'the supervisor loads nothing that only its parts need')
  t.notOk(supervisor.some((url) => /\/bin\/commands\/(?!up\.js)[\w-]+\.js$/.test(url)), 'nor any other command')
  const part = loaded.get(allInOne!.pid) ?? []
  t.ok(part.some((url) => COMPILED.test(url) && url.endsWith('/bin/commands/all-in-one.js')), 'the all-in-one part runs compiled')
  t.ok(part.some((url) => /\/node_modules\/@electric-sql\/pglite\//.test(url)), 'and it is the process that opens PGlite')
  const everywhere = [...loaded.values()].flat()
  t.same(everywhere.filter((url) => /\/node_modules\/(tsx|esbuild)\//.test(url)), [], 'no process loads tsx or esbuild')
})
