/**
 * The only reader of the environment. Values come from the process environment first, then from
 * a `.env` file in the working directory; each is validated once, typed and frozen, and a bad or
 * removed variable stops start-up with a message that names it and says how to fix it.
 */
import { existsSync, readFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { resolve } from 'node:path'
import { parseEnv } from 'node:util'
import { embeddingsConfig, type EmbeddingsConfig } from './embeddings.js'
import { digestConfig, type DigestSettings } from './digest.js'
import { alertConfig, type AlertSettings } from './alerts.js'
import { dataConfig, type DataSettings } from './data.js'
import { fixHeldConfig, type FixHeldSettings } from './fix-held.js'
import { frictionConfig, type FrictionLimits } from './friction.js'
import { objectStore, type ObjectStoreConfig } from './object-store.js'
import { pluginsConfig, type PluginsConfig } from './plugins.js'
import { pullRequestPolling, type PullRequestPolling } from './pull-requests.js'
import type { RecordingSettings } from './recordings.js'
import { services, type ServiceName } from './services.js'
import { toolServerConfig, type ToolServerLimits } from './tool-server.js'
import { connectionUrl, ConfigError, deepFreeze, int, oneOf, port, text, url, type Env } from './values.js'
import { DAY, MINUTE, SECOND } from '../time.js'

export { ConfigError } from './values.js'
export { SERVICE_NAMES, type ServiceName } from './services.js'
export type { DataSettings, FixHeldSettings, PullRequestPolling }
export type { ObjectStoreConfig } from './object-store.js'
export type { RecordingSettings } from './recordings.js'
export { EMBEDDINGS_SETTING_SOURCES, type EmbeddingsConfig } from './embeddings.js'
export { PLUGIN_NAME, PLUGIN_SETTING_SOURCES, type PluginChoice, type PluginsConfig } from './plugins.js'

export interface Config {
  /** Port of the ingress (API, ingestion, dashboard). Spec default 8082. */
  readonly ingestionPort: number
  /** Address the ingress binds to. */
  readonly ingestionHost: string
  /** Threads `svc ingress` serves HTTP on, all on the one port; 1 keeps everything in one thread. */
  readonly ingressThreads: number
  /** Whether the ingress serves /metrics on INGESTION_PORT (docs/metrics.md: the port is public). */
  readonly ingressMetrics: boolean
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
  readonly setup: SetupLimits
  readonly stream: StreamTiming
  readonly investigations: InvestigationLimits
  readonly recordings: RecordingSettings
  readonly logLevel: LogLevel
  /** Keys of external providers; each enables the part of the product that needs it. */
  readonly secrets: Secrets
  readonly dashboardOrigin: string | undefined
  /** Proxies in front that append to X-Forwarded-For; 0 ignores the header (anyone can send it). */
  readonly trustedProxyHops: number
  /** Which plugin serves each kind, and its settings (see PluginsConfig). */
  readonly plugins: PluginsConfig
  /** Which embeddings plugin the matcher uses and its pool's threads (docs/known-problems.md). */
  readonly embeddings: EmbeddingsConfig
  /** The matcher's fleet-wide caps (FRICTION_*_MAX_CONCURRENT) and a project's checks a UTC day (FRICTION_PROJECT_DAILY_CHECKS). */
  readonly friction: FrictionLimits
  /** The tool server's per-key rate (SVC_MCP_CALLS_PER_MINUTE). */
  readonly toolServer: ToolServerLimits
  /** The digester's cap, check delay and sweep interval (DIGEST_*). */
  readonly digest: DigestSettings
  /** How long a member invitation link works (SVC_INVITATION_TTL_DAYS, 7: a colleague back from a few days off still finds it working). */
  readonly invitationTtlMs: number
  /** The alerter's fold, retries and sweep (ALERT_*). */
  readonly alerts: AlertSettings
  readonly data: DataSettings // retention, intake caps, per-issue sampling, cleanup ages
  /** How often `svc up` restarted this process after it exited on its own (SVC_RESTARTS, set by svc up); shown by /health. */
  readonly restarts: number
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
  /** Largest recording chunk, counted after decompression (docs/recordings.md). */
  readonly maxRecordingChunkBytes: number
  /** Recording chunks accepted per project per minute before 429. */
  readonly recordingChunksPerMinute: number
  /** Recording bytes (decompressed) accepted per project per minute before 429. */
  readonly recordingBytesPerMinute: number
}

/** Agent setup sessions (spec "Setup session"; lifetimes and rates the spec leaves open). */
export interface SetupLimits {
  /** How long a session lives from registration; every endpoint answers 410 afterwards. */
  readonly sessionTtlMs: number
  /** How long after the first poll that delivered them the keys can be collected again. */
  readonly keyCollectMs: number
  /** Registrations per client address per minute. */
  readonly registrationsPerMinute: number
  /** Calls per session per minute across its endpoints. */
  readonly callsPerMinute: number
  /** Long polls one session may hold at once. */
  readonly maxWaiters: number
}

export interface StreamTiming {
  /** An entry its consumer has not renewed for this long is reclaimed by another (renewed every third of it). */
  readonly leaseMs: number
  /** Consumer loops each hosted service runs in one process, so one batch's writes overlap the next one's parsing. */
  readonly consumersPerProcess: number
  readonly retryBaseMs: number
  readonly maxAttempts: number
}

/** When an issue is investigated and what one investigation may spend (docs/investigations.md). */
export interface InvestigationLimits {
  /** Distinct users, or distinct sessions, an issue needs within the window. */
  readonly minActors: number
  readonly windowMs: number
  /** Investigations running at once across every worker; 0 pauses them. */
  readonly maxConcurrent: number
  /** Model tokens (input + output) one project's investigations may use per UTC day. */
  readonly projectDailyTokens: number
  readonly maxTurns: number
  readonly maxTokens: number
  readonly maxRunMs: number
  /** How long a run's row stays its worker's without a renewal (renewed every third of it). */
  readonly leaseMs: number
  /** Fix sandboxes: the dependency install, each evidence command (build, suite, test), each command the model runs. */
  readonly sandbox: { readonly installMs: number; readonly commandMs: number; readonly toolMs: number }
  /** The poller of delivered fix pull requests (PULL_REQUEST_POLL_*). */
  readonly pullRequests: PullRequestPolling
  /** "Held in production" of merged fixes (FIX_HELD_MIN_SESSIONS). */
  readonly fixHeld: FixHeldSettings
}

export interface Secrets {
  readonly modelApiKey: string | undefined
  readonly sandboxApiKey: string | undefined
  readonly codehostToken: string | undefined
  readonly sandboxJavascriptTemplate: string | undefined
  readonly embeddingsApiKey: string | undefined
  readonly codehostAppClientId: string | undefined
  readonly codehostAppClientSecret: string | undefined
  /** The code-host app's webhook secret: deliveries to /api/v1/codehost/webhook must be signed with it. Never logged. */
  readonly codehostWebhookSecret: string | undefined
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent'
const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error', 'silent']
/** Variables that once existed: setting one is a mistake worth stopping for. */
const REMOVED: Readonly<Record<string, string>> = {}

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
    ingestionPort, ingestionHost,
    // One per core: each thread parses, validates and queues on its own; the kernel spreads connections across them (SO_REUSEPORT).
    ingressThreads: int(env, 'SVC_INGRESS_THREADS', availableParallelism(), 1, 64),
    ingressMetrics: oneOf(env, 'SVC_INGRESS_METRICS', ['on', 'off'], 'on') === 'on',
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
      // Ten seconds of the measured drain rate: deep enough to absorb a burst, shallow enough that a stopped grouper shows up as 429s within seconds rather than as lost memory.
      eventsBacklogLimit: int(env, 'SVC_EVENTS_BACKLOG_LIMIT', 50_000, 1),
      maxEventBytes: 1024 * 1024,
      // Maps with inlined sources of a large app reach tens of MiB; past this, split the bundle.
      maxSourceMapBytes: 50 * 1024 * 1024,
      // A chunk is 30 s of a page (the SDK's flush), usually tens of KiB gzipped; 5 MiB holds a
      // large first snapshot.
      maxRecordingChunkBytes: 5 * 1024 * 1024,
      // 100 chunks a second per project: a few thousand tabs recording at once. The byte limit is
      // at least one chunk, so a window always takes its first chunk.
      recordingChunksPerMinute: int(env, 'SVC_RECORDING_CHUNKS_PER_MINUTE', 6000, 1),
      recordingBytesPerMinute: int(env, 'SVC_RECORDING_MB_PER_MINUTE', 512, 5) * 1024 * 1024,
    },
    setup: {
      // Two hours: long enough for a person to notice the link and for the agent to install the
      // SDK and see its first event; the comparable product moved from 15 minutes to this.
      sessionTtlMs: int(env, 'SVC_SETUP_SESSION_TTL_SECONDS', 2 * 60 * 60, 1, 7 * 24 * 60 * 60) * SECOND,
      keyCollectMs: 15 * MINUTE,
      registrationsPerMinute: int(env, 'SVC_SETUP_REGISTRATIONS_PER_MINUTE', 5, 1),
      callsPerMinute: int(env, 'SVC_SETUP_CALLS_PER_MINUTE', 60, 1),
      maxWaiters: 2,
    },
    stream: {
      leaseMs: int(env, 'SVC_STREAM_LEASE_MS', TIMING.lease, 100),
      // Two: one batch in PostgreSQL while the next is parsed and grouped; more only adds lock waits
      // on a 2-core machine. Fleets scale with processes, not with this.
      consumersPerProcess: int(env, 'SVC_STREAM_CONSUMERS', 2, 1, 16),
      retryBaseMs: int(env, 'SVC_STREAM_RETRY_BASE_MS', TIMING.retryBase, 10),
      maxAttempts: int(env, 'SVC_STREAM_MAX_ATTEMPTS', TIMING.maxAttempts, 1, 100),
    },
    investigations: {
      // Reference product: at least 2 distinct users or sessions in the last 7 days.
      minActors: int(env, 'INVESTIGATION_MIN_USERS', 2, 1),
      windowMs: int(env, 'INVESTIGATION_WINDOW_DAYS', 7, 1, 90) * DAY,
      // Two: a 2-core machine clones and searches two repositories at once without starving the grouper.
      maxConcurrent: int(env, 'INVESTIGATION_MAX_CONCURRENT', 2, 0, 1000),
      // About ten full investigations a day per project at the reference's budget of ~2 US dollars each.
      projectDailyTokens: int(env, 'INVESTIGATION_PROJECT_DAILY_TOKENS', 3_000_000, 0),
      // Reference: about 10 turns; 12 leaves room for a retry of a malformed call.
      maxTurns: int(env, 'INVESTIGATION_MAX_TURNS', 12, 2, 100),
      maxTokens: int(env, 'INVESTIGATION_MAX_TOKENS', 300_000, 1000),
      maxRunMs: int(env, 'INVESTIGATION_MAX_SECONDS', 600, 10, 24 * 60 * 60) * SECOND,
      leaseMs: int(env, 'INVESTIGATION_LEASE_SECONDS', 60, 1, 3600) * SECOND,
      // An install may fetch from the registry; a small app's build or suite takes well under five minutes.
      sandbox: {
        installMs: int(env, 'SVC_SANDBOX_INSTALL_SECONDS', 600, 1, 24 * 60 * 60) * SECOND,
        commandMs: int(env, 'SVC_SANDBOX_COMMAND_SECONDS', 300, 1, 24 * 60 * 60) * SECOND,
        toolMs: int(env, 'SVC_SANDBOX_TOOL_SECONDS', 120, 1, 60 * 60) * SECOND,
      },
      pullRequests: pullRequestPolling(env),
      fixHeld: fixHeldConfig(env),
    },
    recordings: {
      retentionMs: int(env, 'SVC_RECORDING_RETENTION_DAYS', 30, 1, 3650) * DAY,
      // The SDK starts a new recording id after 30 minutes without activity: no chunk comes after that.
      idleMs: int(env, 'SVC_RECORDING_IDLE_MINUTES', 30, 1, 24 * 60) * MINUTE,
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
      codehostWebhookSecret: text(env, 'CODEHOST_WEBHOOK_SECRET'),
    },
    dashboardOrigin: url(env, 'DASHBOARD_ORIGIN'),
    trustedProxyHops: int(env, 'SVC_TRUSTED_PROXY_HOPS', 0, 0, 10),
    plugins: pluginsConfig(env),
    embeddings: embeddingsConfig(env),
    friction: frictionConfig(env),
    toolServer: toolServerConfig(env),
    digest: digestConfig(env),
    invitationTtlMs: int(env, 'SVC_INVITATION_TTL_DAYS', 7, 1, 365) * DAY,
    alerts: alertConfig(env),
    data: dataConfig(env),
    restarts: int(env, 'SVC_RESTARTS', 0, 0),
  }
  return deepFreeze(config)
}

/** Durations the stream runtime and services use; here so their reasons sit in one place. */
export const TIMING = Object.freeze({
  /**
   * An entry unrenewed this long is taken by another consumer (XAUTOCLAIM). A live consumer renews
   * what it holds every third of it, and consumers look for such entries every half of it, so a
   * dead consumer's entries are taken within about 1.5 leases (22 s): under the 30 s an operator
   * may wait after a crash. Shorter would reclaim from a consumer that paused for garbage
   * collection or a slow Redis round trip; 5 minutes left a crashed worker's events waiting that long.
   */
  lease: 15 * SECOND,
  /** First retry delay; doubles each attempt (reference: 30 s, capped at 15 min). */
  retryBase: 30 * SECOND,
  retryCap: 15 * MINUTE,
  /** Attempts before an entry goes to the dead-letter stream. */
  maxAttempts: 3,
})
