/** Redis connections and the key names every actor shares, all under one configurable prefix. */
import { Redis, type RedisOptions } from 'ioredis'
import type { Logger } from './log.js'

/**
 * Opens a connection; unix:///path URLs connect over a socket (the embedded Redis). ioredis
 * reconnects by itself; log gets one line when the connection is lost and one when it is back.
 */
export function createRedis(url: string, options: RedisOptions = {}, log?: Logger): Redis {
  const redis = url.startsWith('unix:') ? new Redis({ path: new URL(url).pathname, ...options }) : new Redis(url, options)
  return watchConnection(redis, log)
}

/**
 * Gives a connection (also a duplicate, which inherits no listeners) an error listener: without
 * one, ioredis prints every failed reconnect attempt to the console. The failed commands carry
 * the errors to whoever issued them; log, when given, hears of the outage once each way.
 */
export function watchConnection(redis: Redis, log?: Logger): Redis {
  let down = false
  redis.on('error', (error: NodeJS.ErrnoException) => {
    if (down) return
    down = true
    log?.warn('redis unreachable: reconnecting', { cause: { code: error.code, message: error.message } })
  })
  redis.on('ready', () => {
    if (!down) return
    down = false
    log?.info('redis reachable again')
  })
  return redis
}

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH'])

/**
 * True when a command failed because Redis could not be reached (or is still loading its data after
 * a restart), not because of the command: the connection's watch has said so once already, so
 * callers answer or back off without a log line per command.
 */
export function isRedisConnectionError(error: unknown): boolean {
  const { name, code, message } = (error ?? {}) as { name?: unknown; code?: unknown; message?: unknown }
  if (name === 'MaxRetriesPerRequestError') return true
  if (typeof code === 'string' && CONNECTION_CODES.has(code)) return true
  return typeof message === 'string' && /^Connection is closed|^Stream isn't writeable|^LOADING /.test(message)
}

/** Names of the streams and keys, derived from the prefix so tests and stacks never collide. */
export function streamKeys(prefix: string) {
  return Object.freeze({
    events: `${prefix}stream:events`,
    /** Issues that gained events, published by the grouper after each commit (admission and the alerter read it). */
    issueChanges: `${prefix}stream:issue-changes`,
    /** One entry per investigation to run (the investigation's id); job state lives in PostgreSQL. */
    investigations: `${prefix}stream:investigations`,
    /** One entry per fix to build (the fix's id); job state lives in PostgreSQL. */
    fixes: `${prefix}stream:fixes`,
    /** One entry per accepted recording chunk (its metadata; the bytes are in the object store). */
    recordings: `${prefix}stream:recordings`,
    /**
     * Chunk objects written but not yet recorded in PostgreSQL: object key → when it was written
     * (ms). The recorder removes a key once its row is stored; the retention sweep deletes the
     * objects of keys left here for a day (a put whose metadata never arrived).
     */
    recordingPuts: `${prefix}recordings:puts`,
    /** One entry per matcher job to run ({ scan | match | confirm: <id> }); job state lives in friction_jobs. */
    friction: `${prefix}stream:friction`,
    /** The matcher's fleet-wide slots: scan and match (FRICTION_MATCH_MAX_CONCURRENT), confirm (FRICTION_CONFIRM_MAX_CONCURRENT). */
    frictionMatchSlots: `${prefix}matcher:slots:match`,
    frictionConfirmSlots: `${prefix}matcher:slots:confirm`,
    /** One entry per known problem the matcher published for a project that investigates them at once ({ ticket: <id> }); the investigator opens its investigation. */
    publishedProblems: `${prefix}stream:published-problems`,
    /** One entry per digest step to run ({ digest: <id> }); the digest's row in PostgreSQL is the job. */
    digests: `${prefix}stream:digests`,
    /** The digester's fleet-wide slots (DIGEST_MAX_CONCURRENT); its sweep's lock is this key plus ":sweep". */
    digestSlots: `${prefix}digester:slots`,
    /** One entry per alert delivery to send ({ alert: <id> }); its state lives in alert_deliveries. */
    alerts: `${prefix}stream:alerts`,
    /** The lock of the workers' upkeep sweep (old digests, setup sessions and dead letters; services/worker/upkeep.ts). */
    upkeepSweep: `${prefix}worker:upkeep:sweep`,
    /** The lock of the storage gauges' count (services/worker/storage-gauges.ts): one worker of the fleet counts each interval. */
    storageGaugesSweep: `${prefix}worker:storage-gauges:sweep`,
    /** The storage gauges' last count, shared with every worker: one JSON value, kept a few intervals (services/worker/storage-figures.ts). */
    storageFigures: `${prefix}worker:storage-gauges:figures`,
    /** The alerter's fleet-wide slots for chat posts (ALERT_MAX_CONCURRENT). */
    alertSlots: `${prefix}alerter:slots`,
    /** The fleet-wide investigation slots (INVESTIGATION_MAX_CONCURRENT): holder → lease expiry. */
    investigationSlots: `${prefix}investigator:slots`,
    rateLimit: (keyId: string, window: number) => `${prefix}rl:ev:${keyId}:${window}`,
    /** Fixed-window counter of a project's accepted events (its cap: projects.events_per_minute, docs/quotas.md). */
    projectRateLimit: (projectId: string, window: number) => `${prefix}rl:pev:${projectId}:${window}`,
    /**
     * A project's intake tallies for one UTC hour (hour: ms since the epoch / 3600000, floored): a
     * hash with fields `refused` (the ingress's 429s for the project's cap or its keys' limits) and
     * `sampled` (events the grouper counted but did not store whole). Kept 49 hours
     * (INTAKE_TALLY_TTL_SECONDS), so the last 24 full hours can always be summed.
     */
    intakeTally: (projectId: string, hour: number) => `${prefix}intake:${projectId}:${hour}`,
    /** Fixed-window counters of recording chunks per project: count and bytes. */
    recordingRateLimit: (projectId: string, what: 'n' | 'b', window: number) => `${prefix}rl:rec:${what}:${projectId}:${window}`,
    /** Fixed-window counters of the setup-session API (scope: reg by address, call by session). */
    agentRateLimit: (scope: 'reg' | 'call', subject: string, window: number) => `${prefix}rl:agent:${scope}:${subject}:${window}`,
    /** Long polls a setup session holds now. */
    agentWaiters: (pollId: string) => `${prefix}agent:waiters:${pollId}`,
    /** Pub/sub channels that wake long polls: a session changed; a project's facts changed. */
    wakeSession: (pollId: string) => `${prefix}wake:session:${pollId}`,
    wakeProject: (projectId: string) => `${prefix}wake:project:${projectId}`,
    /** Pub/sub channel a key's id is published on once its revocation committed: every process forgets it. */
    keyRevoked: `${prefix}keys:revoked`,
    /** Fixed-window counters of tool-server requests per api key. */
    toolRateLimit: (keyId: string, window: number) => `${prefix}rl:mcp:${keyId}:${window}`,
  })
}
export type StreamKeys = ReturnType<typeof streamKeys>

/** Publishes a wake-up for held long polls; a failure only delays them until their deadline, so it is swallowed. */
export async function publishWake(redis: Redis, channel: string): Promise<void> {
  await redis.publish(channel, '1').catch(() => 0)
}
