/**
 * The environment's lock: every matching decision in one (project, environment) is taken while
 * holding it, inside the transaction that writes the decision, so two matchers never both find no
 * ticket and create the same problem twice. A transaction-scoped advisory lock: it ends with the
 * transaction, whatever happens to the worker. Anything else that changes an environment's tickets
 * wholesale (the reset command) takes the same lock, first, before any row lock.
 */
import type { EntityManager } from '@mikro-orm/postgresql'

/**
 * The lock's key as SQL text, for scripts that take it by hand:
 * pg_advisory_xact_lock(hashtext(project_id::text || coalesce(environment_id::text, ''))).
 * The coalesce matters: hashtext(NULL) is NULL, and pg_advisory_xact_lock(NULL) takes no lock.
 */
export const ENVIRONMENT_LOCK_SQL = "SELECT pg_advisory_xact_lock(hashtext(?::text || coalesce(?::text, '')))"

/** Waits for and takes the environment's lock in tx (an open transaction); it is let go when tx ends. */
export async function lockEnvironment(tx: EntityManager, projectId: string, environmentId: string | null): Promise<void> {
  if (!tx.isInTransaction()) throw new Error('lockEnvironment needs an open transaction: a session lock would outlive the decision')
  await tx.execute(ENVIRONMENT_LOCK_SQL, [projectId, environmentId])
}
