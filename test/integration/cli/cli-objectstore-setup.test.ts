// svc objectstore-setup, compose.yml's one-shot step, run as a subprocess against s3rver: it makes
// the bucket the service will use (and again without harm), waits for a store that is still
// starting, and exits 1 with what to fix when the store refuses it, so the ingress never starts.
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { capturingLogger } from '../../../plugins/conformance/leaks.js'
import { loadConfig } from '../../../shared/config/index.js'
import { prepareObjectStore } from '../../../shared/object-store.js'
import { loadPlugin } from '../../../shared/plugins/loader.js'
import { ObjectStoreUnavailable } from '../../../shared/plugins/types.js'
import { childEnv } from '../../helpers/env.js'
import { closedOrigin } from '../../helpers/loopback/github-loopback.js'
import { SVC } from '../../helpers/processes.js'
import { startS3rver } from '../../helpers/loopback/s3rver.js'

// Five svc processes, the first of which may compile the sources: on a 2-core machine at a load
// average of 15 that took 110 s, close to tap's 120 s for a file.
t.setTimeout(4 * 60_000)

const s3 = await startS3rver({ bucket: 'svc-existing' })
t.teardown(() => s3.close())

interface Run {
  status: number | null
  stdout: string
  stderr: string
}

/** Starts `svc objectstore-setup` with env; `ended` settles when it exits, `said` when its stderr (the log) matches. */
function startSetup(env: Record<string, string | undefined>): { ended: Promise<Run>; said(pattern: RegExp): Promise<void> } {
  const child = spawn(process.execPath, [SVC, 'objectstore-setup'], { env: childEnv({ LOG_LEVEL: 'silent', ...env }) })
  const run: Run = { status: null, stdout: '', stderr: '' }
  child.stdout.on('data', (chunk: Buffer) => (run.stdout += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (run.stderr += chunk.toString()))
  const ended = new Promise<Run>((resolve) => child.once('exit', (status) => resolve({ ...run, status })))
  const said = (pattern: RegExp): Promise<void> =>
    new Promise((resolve, reject) => {
      const look = (): void => {
        if (!pattern.test(run.stderr)) return
        child.stderr.off('data', look)
        resolve()
      }
      child.stderr.on('data', look)
      void ended.then(() => reject(new Error(`svc objectstore-setup ended without saying ${pattern}: ${run.stderr}`)))
      look()
    })
  return { ended, said }
}

/** Runs `svc objectstore-setup` with env to its end. */
const setup = (env: Record<string, string | undefined>): Promise<Run> => startSetup(env).ended

const fresh = (): string => `svc-fresh-${randomBytes(4).toString('hex')}`

t.test('creates a missing bucket the service can then use, and a second run leaves it and its objects be', async (t) => {
  const bucket = fresh()
  const env = { ...s3.env(), S3_BUCKET: bucket }
  const first = await setup(env)
  t.equal(first.status, 0, first.stderr)
  t.equal(first.stdout, `objectstore-setup: bucket "${bucket}" at ${s3.endpoint} is ready\n`)
  const store = await loadPlugin('objectstore', 'objectstore-s3', s3.settings({ bucket }), { log: capturingLogger().log })
  await t.resolves(store.check(), 'the bucket is there for the service')
  await store.put('projects/p/kept.map', Buffer.from('{}'))
  const second = await setup(env)
  t.equal(second.status, 0, second.stderr)
  t.equal((await store.get('projects/p/kept.map'))?.toString(), '{}', 'the object put in between is still there')
})

t.test('a bucket that exists already is used as it is', async (t) => {
  const run = await setup(s3.env())
  t.equal(run.status, 0, run.stderr)
  t.match(run.stdout, /bucket "svc-existing" at http:\/\/127\.0\.0\.1:\d+ is ready/)
})

t.test('a store that is still starting is asked again until it answers', async (t) => {
  await s3.stop()
  const running = startSetup({ ...s3.env(), S3_BUCKET: fresh(), LOG_LEVEL: 'info' })
  await running.said(/object store not answering yet; asking again/)
  await s3.start()
  const run = await running.ended
  t.equal(run.status, 0, run.stderr)
  t.match(run.stdout, /is ready/)
})

t.test('credentials the store refuses end the step with code 1 and what to check, never the secret', async (t) => {
  const secret = 'aSecretNobodyMayRead0123456789abcdefghij'
  const run = await setup({ ...s3.env(), S3_BUCKET: fresh(), S3_ACCESS_KEY_ID: 'AKIAUNKNOWN000000000', S3_SECRET_ACCESS_KEY: secret })
  t.equal(run.status, 1, 'so the ingress and worker, waiting on it, never start')
  // The AWS SDK may warn about the Node version on stderr first; the step's own line follows.
  t.match(run.stderr, /^svc objectstore-setup: Could not use bucket "svc-fresh-[0-9a-f]+": the S3 object store at http:\/\/127\.0\.0\.1:\d+ answered 403( [A-Za-z]+)?, refusing the credentials\. Check S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY/m)
  t.notMatch(run.stdout + run.stderr, secret)
})

t.test('a store that never answers is given up on once the wait is over, as an outage', async (t) => {
  const config = loadConfig({ ...s3.env(), S3_ENDPOINT: await closedOrigin() }).objectStore
  const error = await prepareObjectStore(config, { withinMs: 1000, everyMs: 200 }).then(
    () => undefined,
    (reason: unknown) => reason,
  )
  t.type(error, ObjectStoreUnavailable)
  t.match(error, { fault: 'down', message: /did not answer \(ECONNREFUSED\)\. Check that it is running and that S3_ENDPOINT points at it/ })
})

t.test('without S3_ENDPOINT the object folder is made', async (t) => {
  const parent = mkdtempSync(join(tmpdir(), 'svc-objects-'))
  t.teardown(() => rmSync(parent, { recursive: true, force: true }))
  const dir = join(parent, 'not', 'yet')
  const run = await setup({ S3_ENDPOINT: undefined, SVC_OBJECT_DIR: dir })
  t.equal(run.status, 0, run.stderr)
  t.equal(run.stdout, `objectstore-setup: folder ${dir} is ready\n`)
  t.ok(existsSync(dir))
})
