/**
 * Accounts: local ones (email and password) and code-host ones (OAuth identity), and linking the
 * two. Emails are unique without regard to case; they are kept as typed and compared lowered.
 */
import { PG, type Queryable } from '../../../shared/db/index.js'
import type { CodehostIdentity } from '../../../shared/plugins/types.js'
import { AccountError } from './errors.js'
import { burnVerification, hashPassword, needsRehash, passwordProblem, verifyPassword } from './password.js'
import { countSigninAttempt, countSignup, type ThrottleDeps } from './throttle.js'

export interface AccountDeps extends ThrottleDeps {
  db: Queryable
}

/** A person as the dashboard shows them; never carries the password hash. */
export interface User {
  id: string
  email: string | null
  displayName: string
  codehostLogin: string | null
}

interface UserRow {
  id: string
  email: string | null
  display_name: string
  codehost_login: string | null
  password_hash: string | null
}

const COLUMNS = 'id, email, display_name, codehost_login, password_hash'
const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
const EMAIL_MAX = 254
const NAME_MAX = 100

function toUser(row: UserRow): User {
  return { id: row.id, email: row.email, displayName: row.display_name, codehostLogin: row.codehost_login }
}

/** The email as stored (trimmed), or AccountError invalid_email. */
export function normalizeEmail(email: string): string {
  const trimmed = email.trim()
  if (trimmed.length > EMAIL_MAX || !EMAIL_SHAPE.test(trimmed)) throw new AccountError('invalid_email')
  return trimmed
}

function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === PG.UNIQUE_VIOLATION
}

/** Creates a local account; throws AccountError for a bad email, a weak password, a taken email or too many sign-ups. */
export async function createLocalAccount(deps: AccountDeps, input: { email: string; password: string; displayName: string }, address: string): Promise<User> {
  const email = normalizeEmail(input.email)
  const problem = passwordProblem(input.password)
  if (problem) throw new AccountError('weak_password', { message: problem })
  await countSignup(deps, address)
  const hash = await hashPassword(input.password)
  try {
    const { rows } = await deps.db.query<UserRow>(`INSERT INTO users (email, password_hash, display_name) VALUES ($1, $2, $3) RETURNING ${COLUMNS}`, [
      email,
      hash,
      input.displayName.trim().slice(0, NAME_MAX),
    ])
    return toUser(rows[0]!)
  } catch (error) {
    if (isUniqueViolation(error)) throw new AccountError('email_taken')
    throw error
  }
}

/**
 * Checks an email and password; throws AccountError wrong_credentials (the same for an unknown
 * email, which costs the same time) or throttled. A hash made with older parameters is renewed.
 */
export async function signInWithPassword(deps: AccountDeps, email: string, password: string, address: string): Promise<User> {
  await countSigninAttempt(deps, address, email)
  const { rows } = await deps.db.query<UserRow>(`SELECT ${COLUMNS} FROM users WHERE lower(email) = lower($1)`, [email.trim()])
  const row = rows[0]
  if (!row?.password_hash) {
    await burnVerification(password)
    throw new AccountError('wrong_credentials')
  }
  if (!(await verifyPassword(password, row.password_hash))) throw new AccountError('wrong_credentials')
  if (needsRehash(row.password_hash)) {
    await deps.db.query('UPDATE users SET password_hash = $2 WHERE id = $1', [row.id, await hashPassword(password)])
  }
  return toUser(row)
}

/**
 * The account a code-host identity signs in to. Signed in already (currentUserId): the identity is
 * linked to that account. Otherwise the account linked to it, or a new one. An email that already
 * belongs to a local account is not linked automatically: whoever controls the code-host account
 * has not proved they own the local one.
 */
export async function signInWithCodehost(db: Queryable, identity: CodehostIdentity, currentUserId?: string): Promise<User> {
  const { rows: linked } = await db.query<UserRow>(`SELECT ${COLUMNS} FROM users WHERE codehost_id = $1`, [identity.id])
  const found = linked[0]
  if (currentUserId) {
    if (found && found.id !== currentUserId) throw new AccountError('codehost_linked_elsewhere')
    try {
      const { rows } = await db.query<UserRow>(`UPDATE users SET codehost_id = $2, codehost_login = $3 WHERE id = $1 RETURNING ${COLUMNS}`, [currentUserId, identity.id, identity.login])
      if (rows[0]) return toUser(rows[0])
    } catch (error) {
      if (isUniqueViolation(error)) throw new AccountError('codehost_linked_elsewhere')
      throw error
    }
  }
  if (found) {
    const { rows } = await db.query<UserRow>(`UPDATE users SET codehost_login = $2 WHERE id = $1 RETURNING ${COLUMNS}`, [found.id, identity.login])
    return toUser(rows[0] ?? found)
  }
  const email = identity.email?.trim() || null
  try {
    const { rows } = await db.query<UserRow>(`INSERT INTO users (email, codehost_id, codehost_login, display_name) VALUES ($1, $2, $3, $4) RETURNING ${COLUMNS}`, [
      email,
      identity.id,
      identity.login,
      (identity.name || identity.login).slice(0, NAME_MAX),
    ])
    return toUser(rows[0]!)
  } catch (error) {
    if (!isUniqueViolation(error)) throw error
    // Either the email belongs to another account, or a second callback for the same person won the race.
    const { rows } = await db.query<UserRow>(`SELECT ${COLUMNS} FROM users WHERE codehost_id = $1`, [identity.id])
    if (rows[0]) return toUser(rows[0])
    throw new AccountError('codehost_email_taken')
  }
}
