import { spawn } from 'node:child_process'
import { generateKeyPairSync } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { childEnv } from '../../helpers/env.js'
import { freePort } from '../../helpers/processes.js'
import { startTestStack, waitFor } from '../../helpers/stack.js'

const SVC = fileURLToPath(new URL('../../../bin/svc.js', import.meta.url))
const privateKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }) as string
const CLIENT_SECRET = 'oauth-client-secret-not-for-logs-0123456789'


/** Starts `svc ingress` with code-host sign-in configured; resolves with its stderr once it listens. */
async function startupLog(t: { teardown(fn: () => unknown): void }, extra: Record<string, string>): Promise<string> {
  const stack = await startTestStack(t, { ingress: false })
  const child = spawn(process.execPath, [SVC, 'ingress'], {
    env: childEnv({
      DATABASE_URL: stack.databaseUrl,
      REDIS_URL: stack.redisUrl,
      REDIS_KEY_PREFIX: stack.prefix,
      INGESTION_PORT: String(await freePort()),
      SVC_INGRESS_THREADS: '1',
      SVC_INGESTION_HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      CODEHOST_APP_ID: '1234',
      CODEHOST_APP_SLUG: 'svc-test',
      CODEHOST_APP_PRIVATE_KEY: privateKey,
      CODEHOST_APP_CLIENT_ID: 'Iv1.testclient',
      CODEHOST_APP_CLIENT_SECRET: CLIENT_SECRET,
      ...extra,
    }),
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  child.stderr.on('data', (chunk) => (stderr += chunk))
  const exited = new Promise((resolve) => child.once('exit', resolve))
  t.teardown(async () => {
    if (child.exitCode === null) child.kill('SIGTERM')
    await exited
  })
  await waitFor(async () => stderr.includes('listening') || child.exitCode !== null, 30_000, 50)
  return stderr
}

t.test('svc ingress warns at start when code-host sign-in is configured without DASHBOARD_ORIGIN, naming no secret', async (t) => {
  const stderr = await startupLog(t, {})
  t.match(stderr, /configured without DASHBOARD_ORIGIN/)
  t.match(stderr, /"level":"warn"/)
  t.notMatch(stderr, CLIENT_SECRET, 'the client secret is not logged')
  t.notMatch(stderr, 'PRIVATE KEY', 'the private key is not logged')
})

t.test('svc ingress starts without that warning when DASHBOARD_ORIGIN is set', async (t) => {
  const stderr = await startupLog(t, { DASHBOARD_ORIGIN: 'https://svc.example.test' })
  t.match(stderr, /listening/)
  t.notMatch(stderr, /DASHBOARD_ORIGIN/)
})
