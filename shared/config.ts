/**
 * The only reader of the environment. Values come from the process environment first, then from
 * a `.env` file in the working directory; each is validated once, typed and frozen, and a bad or
 * removed variable stops start-up with a message that names it and says how to fix it.
 */
import { existsSync, readFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { resolve } from 'node:path'
import { parseEnv } from 'node:util'
import { MINUTE, SECOND } from './time.js'

/** Thrown when the environment cannot make a valid configuration. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`)
    this.name = 'ConfigError'
  }
}

export interface Config {
  /** Port of the ingress (API, ingestion, dashboard). Spec default 8082. */
  readonly ingestionPort: number
  /** Address the ingress binds to. */
  readonly ingestionHost: string
  /** Threads `svc ingress` serves HTTP on, all on the one port; 1 keeps everything in one thread. */
  readonly ingressThreads: number
  /** Public address of the service, used in links it prints and hands out. */
  readonly baseUrl: string
  /** Port of the worker's /health endpoint. Spec: 8081 inside the container. */
  readonly workerHealthPort: number
  /** Host ports compose.yml publishes; kept here so every command in a stack directory agrees. */
  readonly dbHostPort: number
  readonly objectStoreHostPort: number
  /** PostgreSQL; absent means the embedded PGlite database under dataDir. */
  readonly databaseUrl: string | undefined
  /** Redis; absent means a redis-server spawned from PATH with its files under dataDir. */
  readonly redisUrl: string | undefined
  /** Prefix of every Redis key this service writes, so several stacks can share one Redis. */
  readonly redisKeyPrefix: string
  /** Folder of the embedded database, Redis files and local objects. */
  readonly dataDir: string
  readonly objectStore: ObjectStoreConfig
  /** Consumer services a worker process hosts. */
  readonly services: readonly ServiceName[]
  readonly limits: Limits
  readonly stream: StreamTiming
  readonly logLevel: LogLevel
  /** Keys of external providers; each enables the part of the product that needs it. */
  readonly secrets: Secrets
  readonly dashboardOrigin: string | undefined
}

export interface ObjectStoreConfig {
  readonly kind: 'fs' | 's3'
  /** Local folder when kind is fs. */
  readonly dir: string
  readonly s3: { endpoint: string; bucket: string; region: string; accessKeyId: string; secretAccessKey: string } | undefined
}

export interface Limits {
  /** Accepted events per ingest key per minute before 429. */
  readonly eventsPerKeyPerMinute: number
  /** Entries waiting on the events stream beyond which ingestion answers 429 (back-pressure). */
  readonly eventsBacklogLimit: number
  /** Largest request body, counted after decompression. */
  readonly maxEventBytes: number
  /** Largest source-map upload, counted after decompression. */
  readonly maxSourceMapBytes: number
}

export interface StreamTiming {
  /** A consumer silent this long has its pending entries reclaimed by another. */
  readonly leaseMs: number
  /** Consumer loops each hosted service runs in one process, so one batch's writes overlap the next one's parsing. */
  readonly consumersPerProcess: number
  readonly retryBaseMs: number
  readonly maxAttempts: number
}

export interface Secrets {
  readonly modelApiKey: string | undefined
  readonly sandboxApiKey: string | undefined
  readonly codehostToken: string | undefined
  readonly sandboxJavascriptTemplate: string | undefined
  readonly embeddingsApiKey: string | undefined
  readonly codehostAppClientId: string | undefined
  readonly codehostAppClientSecret: string | undefined
}

export const SERVICE_NAMES = ['grouper'] as const
export type ServiceName = (typeof SERVICE_NAMES)[number]
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent'
const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error', 'silent']

/** Variables that once existed: setting one is a mistake worth stopping for. */
const REMOVED: Readonly<Record<string, string>> = {}

type Env = Readonly<Record<string, string | undefined>>

/** Reads `.env` in dir (if present) beneath the real environment, which wins. */
export function readEnv(env: Env = process.env, dir = process.cwd()): Env {
  const file = resolve(dir, '.env')
  if (!existsSync(file)) return env
  const fromFile = parseEnv(readFileSync(file, 'utf8'))
  return { ...fromFile, ...env }
}

/** Builds the frozen configuration from an environment; throws ConfigError on the first bad value. */
export function loadConfig(env: Env = readEnv()): Config {
  for (const [name, why] of Object.entries(REMOVED)) {
    if (env[name] !== undefined) throw new ConfigError(name, `is no longer read: ${why}. Remove it from the environment and .env.`)
  }
  const ingestionPort = port(env, 'INGESTION_PORT', 8082)
  const ingestionHost = text(env, 'SVC_INGESTION_HOST') ?? '0.0.0.0'
  const dataDir = resolve(text(env, 'SVC_DATA_DIR') ?? '.svc-data')
  const config: Config = {
    ingestionPort,
    ingestionHost,
    // One per core: each thread parses, validates and queues on its own; the kernel spreads
    // connections across them (SO_REUSEPORT).
    ingressThreads: int(env, 'SVC_INGRESS_THREADS', availableParallelism(), 1, 64),
    baseUrl: url(env, 'SVC_BASE_URL') ?? `http://localhost:${ingestionPort}`,
    workerHealthPort: port(env, 'WORKER_HEALTH_PORT', 8081),
    dbHostPort: port(env, 'SVC_DB_HOST_PORT', 5434),
    objectStoreHostPort: port(env, 'SVC_OBJECTSTORE_HOST_PORT', 9012),
    databaseUrl: connectionUrl(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    redisUrl: connectionUrl(env, 'REDIS_URL', ['redis:', 'rediss:', 'unix:']),
    redisKeyPrefix: text(env, 'REDIS_KEY_PREFIX') ?? 'svc:',
    dataDir,
    objectStore: objectStore(env, dataDir),
    services: services(env),
    limits: {
      eventsPerKeyPerMinute: int(env, 'SVC_EVENTS_PER_KEY_PER_MINUTE', 600, 1),
      // Ten seconds of the measured drain rate: deep enough to absorb a burst, shallow enough
      // that a stopped grouper shows up as 429s within seconds rather than as lost memory.
      eventsBacklogLimit: int(env, 'SVC_EVENTS_BACKLOG_LIMIT', 50_000, 1),
      maxEventBytes: 1024 * 1024,
      // Maps with inlined sources of a large app reach tens of MiB; past this, split the bundle.
      maxSourceMapBytes: 50 * 1024 * 1024,
    },
    stream: {
      leaseMs: int(env, 'SVC_STREAM_LEASE_MS', TIMING.lease, 100),
      // Two: one batch in PostgreSQL while the next is parsed and grouped; more only adds lock waits
      // on a 2-core machine. Fleets scale with processes, not with this.
      consumersPerProcess: int(env, 'SVC_STREAM_CONSUMERS', 2, 1, 16),
      retryBaseMs: int(env, 'SVC_STREAM_RETRY_BASE_MS', TIMING.retryBase, 10),
      maxAttempts: int(env, 'SVC_STREAM_MAX_ATTEMPTS', TIMING.maxAttempts, 1, 100),
    },
    logLevel: oneOf(env, 'LOG_LEVEL', LOG_LEVELS, 'info'),
    secrets: {
      modelApiKey: text(env, 'MODEL_API_KEY'),
      sandboxApiKey: text(env, 'SANDBOX_API_KEY'),
      codehostToken: text(env, 'CODEHOST_TOKEN'),
      sandboxJavascriptTemplate: text(env, 'SVC_SANDBOX_JAVASCRIPT_TEMPLATE'),
      embeddingsApiKey: text(env, 'EMBEDDINGS_API_KEY'),
      codehostAppClientId: text(env, 'CODEHOST_APP_CLIENT_ID'),
      codehostAppClientSecret: text(env, 'CODEHOST_APP_CLIENT_SECRET'),
    },
    dashboardOrigin: url(env, 'DASHBOARD_ORIGIN'),
  }
  return deepFreeze(config)
}

/** Durations the stream runtime and services use; here so their reasons sit in one place. */
export const TIMING = Object.freeze({
  /** A consumer silent this long has its pending entries taken by another (XAUTOCLAIM). */
  lease: 5 * MINUTE,
  /** First retry delay; doubles each attempt (reference: 30 s, capped at 15 min). */
  retryBase: 30 * SECOND,
  retryCap: 15 * MINUTE,
  /** Attempts before an entry goes to the dead-letter stream. */
  maxAttempts: 3,
})

function text(env: Env, name: string): string | undefined {
  const value = env[name]?.trim()
  return value === undefined || value === '' ? undefined : value
}

function int(env: Env, name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = text(env, name)
  if (raw === undefined) return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(name, `must be a whole number from ${min} to ${max}, got "${raw}". Fix or unset it (default ${fallback}).`)
  }
  return value
}

function port(env: Env, name: string, fallback: number): number {
  return int(env, name, fallback, 0, 65535)
}

function url(env: Env, name: string): string | undefined {
  const raw = text(env, name)
  if (raw === undefined) return undefined
  try {
    const parsed = new URL(raw)
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('scheme')
    return raw.replace(/\/+$/, '')
  } catch {
    throw new ConfigError(name, `must be an http(s) URL such as http://localhost:8082. Fix or unset it.`)
  }
}

function connectionUrl(env: Env, name: string, schemes: readonly string[]): string | undefined {
  const raw = text(env, name)
  if (raw === undefined) return undefined
  let scheme: string
  try {
    scheme = new URL(raw).protocol
  } catch {
    // Never echo the value: connection URLs carry passwords.
    throw new ConfigError(name, `is not a valid URL. Expected ${schemes.map((s) => `${s}//…`).join(' or ')}; unset it to use the embedded default.`)
  }
  if (!schemes.includes(scheme)) {
    throw new ConfigError(name, `has scheme ${scheme} but must start with ${schemes.join(' or ')}; unset it to use the embedded default.`)
  }
  return raw
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = text(env, name)
  if (raw === undefined) return fallback
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `must be one of ${allowed.join(', ')}, got "${raw}".`)
  }
  return raw as T
}

function services(env: Env): readonly ServiceName[] {
  const raw = text(env, 'SVC_SERVICES')
  if (raw === undefined || raw === 'all') return [...SERVICE_NAMES]
  const names = raw.split(',').map((s) => s.trim()).filter(Boolean)
  for (const name of names) {
    if (!(SERVICE_NAMES as readonly string[]).includes(name)) {
      throw new ConfigError('SVC_SERVICES', `names unknown service "${name}"; known: ${SERVICE_NAMES.join(', ')} (or "all").`)
    }
  }
  return names as ServiceName[]
}

function objectStore(env: Env, dataDir: string): ObjectStoreConfig {
  const endpoint = url(env, 'S3_ENDPOINT')
  const dir = resolve(text(env, 'SVC_OBJECT_DIR') ?? `${dataDir}/objects`)
  if (endpoint === undefined) return { kind: 'fs', dir, s3: undefined }
  const required = (name: string): string => {
    const value = text(env, name)
    if (value === undefined) throw new ConfigError(name, `is required when S3_ENDPOINT is set. Set it, or unset S3_ENDPOINT to keep objects in ${dir}.`)
    return value
  }
  return {
    kind: 's3',
    dir,
    s3: {
      endpoint,
      bucket: required('S3_BUCKET'),
      region: text(env, 'S3_REGION') ?? 'us-east-1',
      accessKeyId: required('S3_ACCESS_KEY_ID'),
      secretAccessKey: required('S3_SECRET_ACCESS_KEY'),
    },
  }
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner)
    Object.freeze(value)
  }
  return value
}
