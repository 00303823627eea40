/**
 * The per-project user key the grouper stores on events and actors and the recorder on
 * recordings, so a user's errors and sessions are found by one key: a SHA-256 of the project and
 * the user's id, email or username (the first one set), never the raw identity.
 */
import { createHash } from 'node:crypto'

/** What the SDK sends of a user. */
export interface UserIdentity {
  id?: string
  email?: string
  username?: string
}

/** Keys computed lately: a user sends many events, and a SHA-256 per event cost a few percent of the worker's time per event. */
const userKeys = new Map<string, string>()
const MAX_USER_KEYS = 10_000

/** A stable, non-reversible per-project user identity, or null for a user with no id, email or username. */
export function userKey(projectId: string, user: UserIdentity | undefined): string | null {
  const identity = user?.id ?? user?.email ?? user?.username
  if (!identity) return null
  const plain = `${projectId}:${identity}`
  let key = userKeys.get(plain)
  if (key === undefined) {
    key = createHash('sha256').update(plain).digest('base64url').slice(0, 22)
    if (userKeys.size >= MAX_USER_KEYS) userKeys.clear()
    userKeys.set(plain, key)
  }
  return key
}
