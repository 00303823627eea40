/**
 * Dashboard sign-in sessions. The browser holds a random token in a cookie; the table holds only
 * its SHA-256, so a copy of the database cannot be replayed as a cookie. Each session has its own
 * CSRF token, which every state-changing form sends back.
 */
import type { Queryable } from '../../../shared/db/index.js'
import { DAY } from '../../../shared/time.js'
import { hashToken, randomToken } from './tokens.js'
import type { User } from './users.js'

/** A sign-in lasts this long; after it the person signs in again. */
export const WEB_SESSION_TTL_MS = 14 * DAY

export interface NewWebSession {
  /** Goes into the cookie and nowhere else. */
  token: string
  csrfToken: string
  expiresAt: Date
}

export interface WebSession {
  user: User
  csrfToken: string
  expiresAt: Date
}

/** Starts a session for userId (and drops that user's expired ones). */
export async function createWebSession(db: Queryable, userId: string): Promise<NewWebSession> {
  const token = randomToken()
  const csrfToken = randomToken()
  const expiresAt = new Date(Date.now() + WEB_SESSION_TTL_MS)
  await db.query('DELETE FROM web_sessions WHERE user_id = $1 AND expires_at <= now()', [userId])
  await db.query('INSERT INTO web_sessions (token_hash, user_id, csrf_token, expires_at) VALUES ($1, $2, $3, $4)', [hashToken(token), userId, csrfToken, expiresAt])
  return { token, csrfToken, expiresAt }
}

/** The live session a cookie token belongs to, or undefined (unknown, expired or empty). */
export async function getWebSession(db: Queryable, token: string | undefined): Promise<WebSession | undefined> {
  if (!token) return undefined
  const { rows } = await db.query<{ user_id: string; email: string | null; display_name: string; codehost_login: string | null; csrf_token: string; expires_at: Date }>(
    `SELECT s.user_id, u.email, u.display_name, u.codehost_login, s.csrf_token, s.expires_at
       FROM web_sessions s JOIN users u ON u.id = s.user_id
      WHERE s.token_hash = $1 AND s.expires_at > now()`,
    [hashToken(token)],
  )
  const row = rows[0]
  if (!row) return undefined
  return { user: { id: row.user_id, email: row.email, displayName: row.display_name, codehostLogin: row.codehost_login }, csrfToken: row.csrf_token, expiresAt: row.expires_at }
}

/** Ends the session a cookie token belongs to; an unknown token is a no-op. */
export async function endWebSession(db: Queryable, token: string | undefined): Promise<void> {
  if (!token) return
  await db.query('DELETE FROM web_sessions WHERE token_hash = $1', [hashToken(token)])
}
