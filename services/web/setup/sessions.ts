/**
 * Setup sessions: registration, the poll-token check every later call starts with, and the rate
 * limits around both. Only a SHA-256 of the poll token is stored, compared in constant time; an
 * unknown id costs the same hash and compare as a wrong token, so timing tells nothing.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import type { Redis } from 'ioredis'
import type { SetupLimits } from '../../../shared/config/index.js'
import type { Db, Queryable } from '../../../shared/db/index.js'
import type { Logger } from '../../../shared/log.js'
import type { ChatPlugin, CodehostPlugin } from '../../../shared/plugins/types.js'
import type { StreamKeys } from '../../../shared/redis.js'
import { AgentError } from './errors.js'
import { sealPublicKey } from './seal.js'

export interface SetupDeps {
  db: Db
  redis: Redis
  keys: StreamKeys
  log: Logger
  /** Public address of the service: links handed out start with it. */
  baseUrl: string
  limits: SetupLimits
  codehost: CodehostPlugin | undefined
  chat: ChatPlugin | undefined
}

export type SessionStatus = 'pending' | 'provisioned' | 'key_ok' | 'app_reporting' | 'failed' | 'expired'

export interface SessionRow {
  id: string
  token_hash: Buffer
  seal_public_key: Buffer
  project_name: string
  agent_name: string
  git_remote: string
  status: SessionStatus
  message: string
  created_at: Date
  expires_at: Date
  approved_at: Date | null
  project_id: string | null
  sealed_keys: Buffer | null
  keys_delivered_at: Date | null
  completed_at: Date | null
}

export interface Registration {
  projectName: string
  agentName: string
  gitRemote: string
}

const TOKEN_PREFIX = 'svc_pt_'
const DUMMY_HASH = Buffer.alloc(32)
export const EXPIRED_MESSAGE = 'This setup session expired before it was finished. Start a new setup session.'

/** SHA-256 of a poll token. */
function hashToken(token: string): Buffer {
  return createHash('sha256').update(token).digest()
}

/** Where a person approves the session. */
export function authUrl(baseUrl: string, pollId: string): string {
  return `${baseUrl}/setup/${pollId}`
}

/** Creates a pending session; the answer carries the only copy of the poll token. */
export async function registerSession(deps: SetupDeps, input: Registration, clientAddress: string): Promise<Record<string, unknown>> {
  await limitRate(deps, 'reg', clientAddress, deps.limits.registrationsPerMinute)
  const pollId = randomBytes(16).toString('base64url')
  const token = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`
  const expiresAt = new Date(Date.now() + deps.limits.sessionTtlMs)
  await deps.db.query(
    `INSERT INTO setup_sessions (id, token_hash, seal_public_key, project_name, agent_name, git_remote, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [pollId, hashToken(token), sealPublicKey(token), input.projectName, input.agentName, input.gitRemote, expiresAt],
  )
  deps.log.info('setup session registered', { poll_id: pollId, agent: input.agentName })
  return { status: 'pending', auth_url: authUrl(deps.baseUrl, pollId), expires_at: expiresAt.toISOString(), poll_id: pollId, poll_token: token }
}

/** Reads a session row. */
export async function getSession(db: Queryable, pollId: string, lock = false): Promise<SessionRow | undefined> {
  const { rows } = await db.query<SessionRow>(`SELECT * FROM setup_sessions WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [pollId])
  return rows[0]
}

/**
 * The session a call is about, or AgentError: 404 for an unknown id or a wrong token (never
 * retry), 410 once it expired, 429 past the per-session call rate.
 */
export async function authenticateSession(deps: SetupDeps, pollId: string, token: string | undefined): Promise<SessionRow> {
  const session = await getSession(deps.db, pollId)
  const presented = hashToken(token ?? '')
  const stored = session?.token_hash ?? DUMMY_HASH
  const matches = timingSafeEqual(presented, stored.length === 32 ? stored : DUMMY_HASH)
  if (!session || !token || !matches) throw new AgentError('session_not_found')
  await limitRate(deps, 'call', pollId, deps.limits.callsPerMinute)
  return expireIfDue(deps.db, session)
}

/** Marks a session past its expiry as expired (keeping a failed one's message) and throws 410. */
export async function expireIfDue(db: Queryable, session: SessionRow): Promise<SessionRow> {
  if (session.expires_at.getTime() > Date.now()) return session
  if (session.status !== 'expired' && session.status !== 'failed') {
    // The sealed keys go with the session: nobody can collect them any more.
    await db.query(`UPDATE setup_sessions SET status = 'expired', message = $2, sealed_keys = NULL WHERE id = $1 AND status NOT IN ('expired', 'failed')`, [session.id, EXPIRED_MESSAGE])
  }
  throw new AgentError('session_expired', { message: session.status === 'failed' && session.message ? session.message : EXPIRED_MESSAGE })
}

/** Counts one request in a fixed one-minute window; throws 429 with the seconds left when over. */
async function limitRate(deps: SetupDeps, scope: 'reg' | 'call', subject: string, perMinute: number): Promise<void> {
  const now = Date.now()
  const window = Math.floor(now / 60_000)
  const key = deps.keys.agentRateLimit(scope, subject, window)
  const [[, count]] = (await deps.redis.multi().incr(key).expire(key, 61).exec()) as [[unknown, number], unknown]
  if (count > perMinute) {
    const retryAfter = Math.max(1, Math.ceil(((window + 1) * 60_000 - now) / 1000))
    throw new AgentError('rate_limited', { retryAfter })
  }
}

/** Takes one of the session's long-poll places, or throws 429; the returned function gives it back. */
export async function takeWaiterPlace(deps: SetupDeps, pollId: string): Promise<() => Promise<void>> {
  const key = deps.keys.agentWaiters(pollId)
  // The expiry frees the places of a process that died while holding polls.
  const [[, count]] = (await deps.redis.multi().incr(key).expire(key, 45).exec()) as [[unknown, number], unknown]
  if (count > deps.limits.maxWaiters) {
    await deps.redis.decr(key)
    throw new AgentError('too_many_waiters', { retryAfter: 1 })
  }
  let released = false
  return async () => {
    if (released) return
    released = true
    await deps.redis.decr(key).catch(() => 0)
  }
}
