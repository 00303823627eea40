import { readFileSync } from 'node:fs'
import t from 'tap'
import { parse } from 'yaml'
import { loadConfig } from '../../shared/config.js'

interface Service {
  image?: string
  build?: unknown
  command?: string[] | string
  ports?: string[]
  environment?: Record<string, string>
  depends_on?: Record<string, { condition: string }>
  restart?: string
}

const root = new URL('../../', import.meta.url)
const compose = parse(readFileSync(new URL('compose.yml', root), 'utf8'), { merge: true }) as { services: Record<string, Service> }
const services = compose.services

/** Substitutes ${NAME:-default} as compose does, from the given variables. */
function substitute(value: string, vars: Record<string, string>): string {
  return value.replace(/\$\{([A-Z_]+):-([^}]*)\}/g, (_m, name: string, fallback: string) => vars[name] ?? fallback)
}

t.test('compose.yml runs the stack the spec names: redis with AOF, PostgreSQL 16 with pgvector, an object store, a one-shot migrate', async (t) => {
  t.same(Object.keys(services).sort(), ['db', 'ingress', 'migrate', 'objectstore', 'objectstore-setup', 'redis', 'worker'])
  t.match(services.redis!.command, ['redis-server', '--appendonly', 'yes'], 'redis keeps an append-only file')
  t.match(services.db!.image, /^pgvector\/pgvector:pg16$/, 'the database is version 16 with the vector extension')
  t.same(services.migrate!.command, ['migrate'])
  t.equal(services.migrate!.restart, 'no', 'migrate runs once')
  t.equal(services['objectstore-setup']!.restart, 'no', 'bucket setup runs once')
})

t.test('the ingress and worker start only after migrate and the bucket setup completed successfully', async (t) => {
  for (const name of ['ingress', 'worker']) {
    const deps = services[name]!.depends_on ?? {}
    t.equal(deps.migrate?.condition, 'service_completed_successfully', `${name} waits for migrate`)
    t.equal(deps['objectstore-setup']?.condition, 'service_completed_successfully', `${name} waits for the bucket`)
    t.equal(deps.redis?.condition, 'service_healthy', `${name} waits for redis`)
  }
  t.equal(services.migrate!.depends_on?.db?.condition, 'service_healthy', 'migrate waits for the database')
})

t.test('host ports default to 8082, 5434 and 9012 and follow the overrides in .env', async (t) => {
  const ports = (name: string, vars: Record<string, string> = {}) => (services[name]!.ports ?? []).map((p) => substitute(p, vars))
  t.same(ports('ingress'), ['8082:8082'])
  t.same(ports('db'), ['5434:5432'])
  t.same(ports('objectstore'), ['9012:9000'])
  const vars = { INGESTION_PORT: '9082', SVC_DB_HOST_PORT: '6434', SVC_OBJECTSTORE_HOST_PORT: '9112' }
  t.same(ports('ingress', vars), ['9082:8082'])
  t.same(ports('db', vars), ['6434:5432'])
  t.same(ports('objectstore', vars), ['9112:9000'])
  t.equal(substitute(services.ingress!.environment!.SVC_BASE_URL!, vars), 'http://localhost:9082', 'links the service hands out use the host port')
})

t.test('the environment compose gives the svc containers is a valid configuration for an external stack', async (t) => {
  for (const name of ['migrate', 'ingress', 'worker']) {
    const env = Object.fromEntries(Object.entries(services[name]!.environment ?? {}).map(([k, v]) => [k, substitute(String(v), {})]))
    const config = loadConfig(env)
    t.match(config.databaseUrl, /^postgres:\/\/.+@db:5432\//, `${name} uses the db service`)
    t.equal(config.redisUrl, 'redis://redis:6379', `${name} uses the redis service`)
    t.equal(config.objectStore.kind, 's3', `${name} uses the object store`)
    t.equal(config.ingestionPort, 8082)
    t.equal(config.workerHealthPort, 8081, 'worker health on the spec port inside the container')
    t.equal(config.secrets.modelApiKey, undefined, 'an unset provider key stays unset')
  }
})

t.test('the image holds every folder the svc command loads at run time', async (t) => {
  const dockerfile = readFileSync(new URL('Dockerfile', root), 'utf8')
  for (const folder of ['bin', 'services', 'plugins', 'shared', 'schemas', 'migrations']) {
    t.match(dockerfile, new RegExp(`^COPY ${folder} \\./${folder}$`, 'm'), `copies ${folder}/`)
  }
  t.match(dockerfile, /^COPY scripts\/seed-e2e\.sql /m, 'copies the seed that "svc seed" applies')
})
