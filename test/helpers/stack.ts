/**
 * A real, isolated stack for integration tests: a fresh database (migrated and seeded) on the
 * test PostgreSQL, a unique Redis key prefix on the test Redis, and optionally the ingress and a
 * worker on free ports. Everything is torn down with the test.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Redis } from 'ioredis'
import pg from 'pg'
import { loadConfig, type Config } from '../../shared/config/index.js'
import { createDb, type Db } from '../../shared/db/index.js'
import { mintKey, type KeyKind } from '../../shared/keys.js'
import { createObjectStore } from '../../shared/object-store.js'
import { createLogger, type Logger } from '../../shared/log.js'
import { migrate } from '../../shared/db/migrate.js'
import type { ChatPlugin, CodehostPlugin, ModelPlugin } from '../../shared/plugins/types.js'
import { createRedis, streamKeys, type StreamKeys } from '../../shared/redis.js'
import { applySeed, SEED_INGEST_KEY, SEED_PROJECT_ID } from '../../shared/db/seed.js'
import { startWorker, type Worker } from '../../services/worker/index.js'
import { checkBeforeDrop } from './suite-invariants.js'
import type { SandboxPlugin } from '../../shared/plugins/sandbox-types.js'
import { startFront, type Front } from '../../bin/front/index.js'
import { TEST_DATABASE_URL, TEST_REDIS_URL } from './env.js'
import { patience } from './patience.js'

export interface TestStack {
  config: Config
  db: Db
  databaseUrl: string
  redis: Redis
  redisUrl: string
  keys: StreamKeys
  prefix: string
  projectId: string
  ingestKey: string
  baseUrl: string
  ingress?: Front
  worker?: Worker
  startWorker(): Promise<Worker>
  mint(kind: KeyKind): Promise<string>
  close(): Promise<void>
}

interface Teardown {
  teardown(fn: () => unknown): void
}

/** Creates a database named for the test and returns its URL. */
export async function createTestDatabase(t: Teardown): Promise<string> {
  const name = `svc_test_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  await admin.end()
  t.teardown(async () => {
    await checkBeforeDrop(url.toString(), name)
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL })
    await client.connect()
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    await client.end()
  })
  const url = new URL(TEST_DATABASE_URL)
  url.pathname = `/${name}`
  return url.toString()
}

/** Builds a stack; env entries override configuration (e.g. limits) as a user would. */
export async function startTestStack(
  t: Teardown,
  options: { env?: Record<string, string>; keyCacheMs?: number; ingress?: boolean; worker?: boolean; plugins?: { codehost: CodehostPlugin | undefined; chat: ChatPlugin | undefined }; model?: ModelPlugin; sandboxes?: SandboxPlugin; log?: Logger } = {},
): Promise<TestStack> {
  const databaseUrl = await createTestDatabase(t)
  const objectDir = mkdtempSync(join(tmpdir(), 'svc-test-objects-'))
  t.teardown(() => rmSync(objectDir, { recursive: true, force: true }))
  const prefix = `svctest:${randomBytes(5).toString('hex')}:`
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    REDIS_URL: TEST_REDIS_URL,
    REDIS_KEY_PREFIX: prefix,
    LOG_LEVEL: 'silent',
    SVC_OBJECT_DIR: objectDir,
    ...options.env,
  })
  const log = options.log ?? createLogger(config.logLevel)
  const db = createDb(databaseUrl, { max: 4 })
  await migrate(db)
  await applySeed(db)
  const redis = createRedis(TEST_REDIS_URL, { enableAutoPipelining: true })
  const keys = streamKeys(prefix)
  // One store for the ingress and every worker, as "svc up" has: made (and checked) on first use.
  let store: ReturnType<typeof createObjectStore> | undefined
  const objects = (): ReturnType<typeof createObjectStore> => (store ??= createObjectStore(config.objectStore, log))
  const workers: Worker[] = []
  const stack: TestStack = {
    config,
    db,
    databaseUrl,
    redis,
    redisUrl: TEST_REDIS_URL,
    keys,
    prefix,
    projectId: SEED_PROJECT_ID,
    ingestKey: SEED_INGEST_KEY,
    baseUrl: '',
    async startWorker() {
      const tools = { model: options.model, codehost: options.plugins?.codehost }
      const fixes = { sandboxes: options.sandboxes, template: config.secrets.sandboxJavascriptTemplate, evidenceLimits: config.investigations.sandbox, publicUrl: config.baseUrl }
      const worker = await startWorker({ db, objects: await objects(), redis, keys, log, services: config.services, timing: config.stream, healthPort: 0, healthHost: '127.0.0.1', investigations: config.investigations, recordings: config.recordings, matcher: { limits: config.friction, embeddings: config }, digests: { settings: config.digest, chat: options.plugins?.chat, baseUrl: config.baseUrl }, alerts: config.alerts, data: config.data, tools, fixes })
      workers.push(worker)
      stack.worker ??= worker
      return worker
    },
    mint: async (kind) => (await mintKey(db, SEED_PROJECT_ID, kind, 'test')).token,
    async close() {
      await stack.ingress?.stop()
      for (const worker of workers) await worker.stop()
      const leftovers = await redis.keys(`${prefix}*`)
      if (leftovers.length > 0) await redis.del(...leftovers)
      redis.disconnect()
      await db.close()
    },
  }
  // Registered before anything starts, so a stack whose ingress or worker fails to start still
  // closes its connections.
  t.teardown(() => stack.close())
  if (options.ingress !== false) {
    stack.ingress = await startFront({ db, objects: await objects(), redis, keys, log, config, plugins: options.plugins ?? { codehost: undefined, chat: undefined }, port: 0, host: '127.0.0.1', keyCacheMs: options.keyCacheMs })
    stack.baseUrl = `http://127.0.0.1:${stack.ingress.port}`
  }
  if (options.worker) await stack.startWorker()
  return stack
}

/** A valid event, with overrides merged in at the top level. */
export function sampleEvent(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    timestamp: new Date().toISOString(),
    error: {
      type: 'TypeError',
      message: "Cannot read properties of undefined (reading 'id')",
      stack: "TypeError: Cannot read properties of undefined (reading 'id')\n    at renderCart (http://localhost:5173/assets/index-4f3a9c2b.js:12:34)\n    at onClick (http://localhost:5173/assets/index-4f3a9c2b.js:40:7)",
    },
    breadcrumbs: [],
    context: { url: 'http://localhost:5173/cart', user_agent: 'Mozilla/5.0 test' },
    sdk_version: '0.1.0',
    platform: 'javascript',
    ...overrides,
  }
}

/** POSTs an event body (object or raw string) with headers; returns status and parsed body. */
export async function postEvent(
  baseUrl: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const response = await fetch(`${baseUrl}/api/v1/events`, {
    method: 'POST',
    headers,
    body: typeof body === "string" || body instanceof Uint8Array ? body : JSON.stringify(body),
  })
  const text = await response.text()
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {}, headers: response.headers }
}

/**
 * Polls fn every everyMs until it returns a truthy value, and answers it. usualMs is what the
 * condition usually needs; the wait gives up only after patience(usualMs) (test/helpers/patience.ts),
 * so a loaded machine slows a test down rather than failing it. The error names the condition.
 */
export async function waitFor<T>(fn: () => Promise<T>, usualMs = 0, everyMs = 25): Promise<NonNullable<T>> {
  const limitMs = patience(usualMs)
  const deadline = Date.now() + limitMs
  for (;;) {
    const value = await fn()
    if (value) return value as NonNullable<T>
    if (Date.now() > deadline) throw new Error(`condition not met within ${limitMs} ms: ${String(fn).replace(/\s+/g, ' ').slice(0, 200)}`)
    await new Promise((resolve) => setTimeout(resolve, everyMs))
  }
}

/** How many events wait on the events stream: an entry packs the events of one ingress turn. */
export async function queuedEvents(stack: Pick<TestStack, 'redis' | 'keys'>): Promise<number> {
  const entries = (await stack.redis.xrange(stack.keys.events, '-', '+')) as Array<[string, string[]]>
  let count = 0
  for (const [, fields] of entries) {
    const n = fields.indexOf('n')
    count += n >= 0 && n % 2 === 0 ? Number(fields[n + 1]) : 1
  }
  return count
}
