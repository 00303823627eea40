import { existsSync, readFileSync } from 'node:fs'
import t from 'tap'
import { parse } from 'yaml'
import { loadConfig } from '../../../shared/config/index.js'

interface Service {
  image?: string
  healthcheck?: { test?: string[] | string }
  build?: unknown
  command?: string[] | string
  ports?: string[]
  environment?: Record<string, string>
  depends_on?: Record<string, { condition: string }>
  restart?: string
  security_opt?: string[]
  cap_add?: string[]
  privileged?: boolean
}

const root = new URL('../../../', import.meta.url)
const compose = parse(readFileSync(new URL('compose.yml', root), 'utf8'), { merge: true }) as { services: Record<string, Service> }
const services = compose.services

/** Substitutes ${NAME:-default} as compose does, from the given variables. */
function substitute(value: string, vars: Record<string, string>): string {
  return value.replace(/\$\{([A-Z_]+):-([^}]*)\}/g, (_m, name: string, fallback: string) => vars[name] ?? fallback)
}

t.test('compose.yml runs the stack the spec names: redis with AOF, PostgreSQL 16 with pgvector, an object store, a one-shot migrate', async (t) => {
  t.same(Object.keys(services).sort(), ['db', 'ingress', 'migrate', 'objectstore', 'objectstore-setup', 'redis', 'worker'])
  t.match(services.redis!.command, ['redis-server', '--appendonly', 'yes'], 'redis keeps an append-only file')
  t.match(services.db!.image, /^pgvector\/pgvector:[0-9.]+-pg16(-[a-z]+)?$/, 'the database is version 16 with the vector extension')
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
  t.same(ports('objectstore'), ['9012:8333'])
  const vars = { INGESTION_PORT: '9082', SVC_DB_HOST_PORT: '6434', SVC_OBJECTSTORE_HOST_PORT: '9112' }
  t.same(ports('ingress', vars), ['9082:8082'])
  t.same(ports('db', vars), ['6434:5432'])
  t.same(ports('objectstore', vars), ['9112:8333'])
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

t.test('the worker may run bubblewrap in its container, requires isolation, and reads the shipped template; no other container is loosened', async (t) => {
  const worker = services.worker!
  t.same([...(worker.security_opt ?? [])].sort(), ['apparmor=unconfined', 'seccomp=unconfined', 'systempaths=unconfined'], "bubblewrap's namespaces, mounts and fresh /proc are allowed")
  t.notOk(worker.privileged, 'not privileged')
  t.same(worker.cap_add ?? [], [], 'no capability added')
  for (const name of ['migrate', 'ingress']) t.same(services[name]!.security_opt ?? [], [], `${name} keeps Docker's defaults`)
  const env = Object.fromEntries(Object.entries(worker.environment ?? {}).map(([k, v]) => [k, substitute(String(v), {})]))
  t.equal(env.SVC_SANDBOX_REQUIRE_ISOLATION, '1', 'model-written code never runs unisolated')
  t.equal(loadConfig(env).plugins.sandbox.settings.requireIsolation, true, 'and the service reads it so')
  t.equal(env.SVC_SANDBOX_JAVASCRIPT_TEMPLATE, '/app/sandbox-templates/javascript', 'the template the image ships, by default')
  t.equal(substitute(String(worker.environment!.SVC_SANDBOX_JAVASCRIPT_TEMPLATE), { SVC_SANDBOX_JAVASCRIPT_TEMPLATE: '/srv/my-template' }), '/srv/my-template', 'or the one in .env')
  t.equal(env.DATABASE_URL, 'postgres://svc:svc@db:5432/svc', "the worker keeps the stack's shared environment")
})

t.test('the image holds what a fix needs: git, bubblewrap, prlimit and the templates where compose points', async (t) => {
  const dockerfile = readFileSync(new URL('Dockerfile', root), 'utf8')
  // RUN lines with their continuations joined, as Docker reads them.
  const runs = dockerfile.replace(/\\\n/g, ' ').split('\n').filter((line) => line.startsWith('RUN '))
  const installs = runs.find((line) => /apt-get install/.test(line)) ?? ''
  for (const pkg of ['git', 'ca-certificates', 'bubblewrap', 'util-linux']) t.match(installs, new RegExp(`\\s${pkg}(\\s|$)`), `installs ${pkg}`)
  t.match(installs, /apt-get update .*&& apt-get install -y --no-install-recommends/, 'from a fresh package list, nothing recommended')
  t.match(dockerfile, /^COPY sandbox-templates \.\/sandbox-templates$/m, 'copies the templates')
  t.match(dockerfile, /^WORKDIR \/app$/m, 'into /app')
  t.ok(existsSync(new URL('sandbox-templates/javascript/template.json', root)), "so compose's /app/sandbox-templates/javascript is the shipped template")
  t.match(dockerfile, /^USER node$/m, 'the service runs unprivileged, bubblewrap as the same user')
})

t.test('the object store answers its own health check, and the bucket step is svc objectstore-setup with the settings the service uses', async (t) => {
  const store = services.objectstore!
  const check = store.healthcheck?.test
  t.ok(Array.isArray(check) && check[0] === 'CMD', 'an exec-form check: no shell needed in the image')
  // chrislusf/seaweedfs is Alpine-based: busybox wget is there, curl is not promised.
  t.same((check as string[]).slice(1, 2), ['wget'])
  const probe = new URL((check as string[]).at(-1)!)
  const containerPort = substitute((store.ports ?? [])[0]!, {}).split(':').at(-1)
  t.equal(probe.port, containerPort, 'it probes the port the host port maps to')
  t.equal(probe.pathname, '/healthz', "the S3 gateway's readiness probe")
  t.equal(probe.hostname, '127.0.0.1')

  const setup = services['objectstore-setup']!
  t.same(setup.command, ['objectstore-setup'])
  t.equal(setup.image, 'svc:local', 'the service image: no other image to pull for it')
  t.equal(setup.depends_on?.objectstore?.condition, 'service_healthy', 'it runs once the store answers')
  t.same(setup.environment, services.ingress!.environment, 'the same S3 settings as the ingress and worker')
  const env = Object.fromEntries(Object.entries(setup.environment ?? {}).map(([k, v]) => [k, substitute(String(v), {})]))
  const s3 = loadConfig(env).objectStore.s3!
  t.equal(new URL(s3.endpoint).hostname, 'objectstore')
  t.equal(new URL(s3.endpoint).port, containerPort, "S3_ENDPOINT is the store's S3 port inside the network")
  t.equal(store.environment?.AWS_ACCESS_KEY_ID, s3.accessKeyId, 'the store admits the key pair the service signs with')
  t.equal(store.environment?.AWS_SECRET_ACCESS_KEY, s3.secretAccessKey)
})
