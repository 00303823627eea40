/**
 * First run: on the embedded development start-up (npm start without DATABASE_URL) the README's
 * curl event goes to the seeded development project, so the first account that signs up comes to
 * own that project and sees the event's issue at once. Never on a configured database (the
 * dashboard's deps carry no development project then).
 */
import type { Queryable } from '../../../shared/db/index.js'

/**
 * Gives projectId to userId when nobody owns it yet and userId is the first account there is.
 * One conditional UPDATE: of two sign-ups at once, exactly one can turn owner_id from NULL, and an
 * account made after the first never takes it (even when the first has not claimed it, as on a
 * database whose accounts predate this). "First" is among the accounts this statement sees: of
 * sign-ups committing together, the one whose UPDATE runs first with no earlier account visible
 * takes it, and every later UPDATE finds owner_id set. True when userId now owns it.
 */
export async function claimDevelopmentProject(db: Queryable, projectId: string, userId: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE projects SET owner_id = $2
      WHERE id = $1 AND owner_id IS NULL
        AND $2 = (SELECT id FROM users ORDER BY created_at, id LIMIT 1)`,
    [projectId, userId],
  )
  return rowCount === 1
}
