/**
 * The fix stage's pass of the investigator's periodic sweep (besides the lapsed leases, which the
 * job runtime sweeps): the repository CI of delivered pull requests is read back until it settles.
 */
import type { EntityManager } from '@mikro-orm/postgresql'
import type { Db } from '../../../shared/db/index.js'
import type { Orm } from '../../../shared/db/orm.js'
import type { CodehostPlugin } from '../../../shared/plugins/types.js'
import { Fix } from '../store/fix-entities.js'

export interface CiReadbackOptions {
  orm: Orm
  db: Db
  codehost: CodehostPlugin | undefined
}

/** CI is read back for this long after delivery; then whatever it says stays. */
const CI_WATCH_MS = 24 * 60 * 60 * 1000

/** Reads the repository CI of delivered fixes whose CI has not settled; answers how many it read. */
export async function readFixCi(options: CiReadbackOptions, now = Date.now()): Promise<number> {
  const pullRequests = options.codehost?.pullRequests
  if (!pullRequests) return 0
  const em = options.orm.em.fork() as EntityManager
  const open = await em.find(Fix, { state: { $in: ['pr_draft', 'pr_created'] }, ciState: { $in: ['', 'pending', 'none'] }, finishedAt: { $gt: new Date(now - CI_WATCH_MS) } }, { limit: 50 })
  if (open.length === 0) return 0
  const { rows } = await options.db.query<{ id: string; codehost_installation_id: string }>('SELECT id, codehost_installation_id FROM projects WHERE id = ANY($1)', [[...new Set(open.map((fix) => fix.projectId))]])
  const installations = new Map(rows.map((row) => [row.id, row.codehost_installation_id]))
  let read = 0
  for (const fix of open) {
    const ci = await pullRequests.ci(fix.repo, installations.get(fix.projectId) ?? '', fix.headSha).catch(() => undefined)
    if (!ci) continue
    // Not through the optimistic lock: CI is an observation, and a late one may overwrite an older one.
    await options.db.query('UPDATE fixes SET ci_state = $2, ci_checked_at = now() WHERE id = $1', [fix.id, ci.state])
    read++
  }
  return read
}
