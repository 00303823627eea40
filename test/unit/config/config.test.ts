import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { ConfigError, loadConfig, readEnv } from '../../../shared/config/index.js'

t.test('defaults match the spec when nothing is set', async (t) => {
  const config = loadConfig({})
  t.equal(config.ingestionPort, 8082)
  t.equal(config.workerHealthPort, 8081)
  t.equal(config.dbHostPort, 5434)
  t.equal(config.objectStoreHostPort, 9012)
  t.equal(config.databaseUrl, undefined, 'no DATABASE_URL means the embedded database')
  t.equal(config.redisUrl, undefined, 'no REDIS_URL means a spawned redis-server')
  t.equal(config.objectStore.kind, 'fs')
  t.equal(config.baseUrl, 'http://localhost:8082')
  t.equal(config.ingressMetrics, true, 'the ingress serves /metrics')
  t.ok(Object.isFrozen(config) && Object.isFrozen(config.limits), 'frozen')
})

t.test('port overrides are honoured and carried into the base URL', async (t) => {
  const config = loadConfig({ INGESTION_PORT: '9999', SVC_DB_HOST_PORT: '6000', SVC_OBJECTSTORE_HOST_PORT: '9100' })
  t.equal(config.ingestionPort, 9999)
  t.equal(config.baseUrl, 'http://localhost:9999')
  t.equal(config.dbHostPort, 6000)
  t.equal(config.objectStoreHostPort, 9100)
})

t.test('a bad value fails naming the variable and the fix', async (t) => {
  const cases: Array<[Record<string, string>, string, RegExp]> = [
    [{ INGESTION_PORT: 'eighty' }, 'INGESTION_PORT', /whole number from 0 to 65535/],
    [{ INGESTION_PORT: '70000' }, 'INGESTION_PORT', /65535/],
    [{ DATABASE_URL: 'mysql://x/y' }, 'DATABASE_URL', /postgres/],
    [{ REDIS_URL: 'not a url' }, 'REDIS_URL', /not a valid URL/],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL', /one of debug, info/],
    [{ SVC_INGRESS_METRICS: 'no' }, 'SVC_INGRESS_METRICS', /one of on, off/],
    [{ SVC_SERVICES: 'grouper,nope' }, 'SVC_SERVICES', /unknown service "nope"/],
    [{ S3_ENDPOINT: 'http://objectstore:8333' }, 'S3_BUCKET', /required when S3_ENDPOINT is set/],
    [{ DASHBOARD_ORIGIN: 'localhost:8082' }, 'DASHBOARD_ORIGIN', /http\(s\) URL/],
  ]
  for (const [env, variable, message] of cases) {
    const error = t.throws(() => loadConfig(env)) as ConfigError
    t.equal(error.variable, variable, `${variable} is named`)
    t.match(error.message, message)
  }
})

t.test('a connection URL with a password is never echoed in the error', async (t) => {
  const error = t.throws(() => loadConfig({ DATABASE_URL: 'mysql://user:hunter2@db/x' })) as Error
  t.notMatch(error.message, /hunter2/)
})

t.test('.env fills in what the environment leaves unset, and the environment wins', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-env-'))
  writeFileSync(join(dir, '.env'), 'INGESTION_PORT=8123\nSVC_DB_HOST_PORT=7000\n')
  const config = loadConfig(readEnv({ SVC_DB_HOST_PORT: '7001' }, dir))
  t.equal(config.ingestionPort, 8123)
  t.equal(config.dbHostPort, 7001)
})

t.test("a project's recording checks a UTC day are a setting: 2000 by default, as the spec's limit says", async (t) => {
  t.equal(loadConfig({}).friction.projectDailyChecks, 2000)
  t.equal(loadConfig({ FRICTION_PROJECT_DAILY_CHECKS: '150' }).friction.projectDailyChecks, 150)
  t.equal(loadConfig({ FRICTION_PROJECT_DAILY_CHECKS: '0' }).friction.projectDailyChecks, 0, '0 checks nothing')
  for (const bad of ['-1', 'lots', '2.5', '1000001']) {
    const error = t.throws(() => loadConfig({ FRICTION_PROJECT_DAILY_CHECKS: bad })) as ConfigError
    t.equal(error.variable, 'FRICTION_PROJECT_DAILY_CHECKS', `${bad} is refused, naming the variable`)
    t.match(error.message, /whole number from 0 to 1000000.*default 2000/)
  }
})
