/**
 * The poller of delivered fix pull requests, a pass of the investigator's periodic sweep, for
 * deployments the code host's webhook cannot reach: each pass reads at most perPass pull requests
 * not seen ended and not read within the interval, the least recently read first, through the code
 * host plugin, and applies what it finds as the webhook would (end.ts). It also forgets webhook
 * deliveries old enough that the code host no longer redelivers them. Pull requests agents linked
 * are read in the same pass (linked.ts).
 */
import type { EntityManager } from '@mikro-orm/postgresql'
import type { PullRequestPolling } from '../../../shared/config/index.js'
import type { Db } from '../../../shared/db/index.js'
import type { Orm } from '../../../shared/db/orm.js'
import type { CodehostPlugin } from '../../../shared/plugins/types.js'
import { DAY } from '../../../shared/time.js'
import { Fix } from '../store/fix-entities.js'
import { applyPullRequestSeen } from './end.js'
import { pollLinkedPullRequests } from './linked.js'

export interface PullRequestPollOptions {
  orm: Orm
  db: Db
  codehost: CodehostPlugin | undefined
  polling: PullRequestPolling
}

/** Deliveries are kept this long (GitHub redelivers for three days); a replay of an older one changes nothing anyway. */
const DELIVERIES_KEPT_MS = 30 * DAY

/** One pass: answers how many pull requests it found ended. */
export async function pollPullRequests(options: PullRequestPollOptions, now = new Date()): Promise<number> {
  await options.db.query('DELETE FROM codehost_webhook_deliveries WHERE received_at < $1', [new Date(now.getTime() - DELIVERIES_KEPT_MS)])
  const pullRequests = options.codehost?.pullRequests
  if (!pullRequests?.read || options.polling.everyMs === 0) return 0
  const em = options.orm.em.fork() as EntityManager
  const due = await em.find(
    Fix,
    {
      state: { $in: ['pr_draft', 'pr_created'] },
      prNumber: { $ne: null },
      prState: { $in: ['', 'open'] },
      $or: [{ prCheckedAt: null }, { prCheckedAt: { $lt: new Date(now.getTime() - options.polling.everyMs) } }],
    },
    { orderBy: { prCheckedAt: 'asc nulls first', createdAt: 'asc' }, limit: options.polling.perPass },
  )
  const linked = await pollLinkedPullRequests({ em, db: options.db, codehost: options.codehost, polling: options.polling }, now)
  if (due.length === 0) return linked
  const { rows } = await options.db.query<{ id: string; codehost_installation_id: string }>('SELECT id, codehost_installation_id FROM projects WHERE id = ANY($1)', [[...new Set(due.map((fix) => fix.projectId))]])
  const installations = new Map(rows.map((row) => [row.id, row.codehost_installation_id]))
  let ended = linked
  for (const fix of due) {
    const pull = await pullRequests.read(fix.repo, installations.get(fix.projectId) ?? '', fix.prNumber!).catch(() => undefined)
    if (!pull) {
      // Unreadable for now (gone, access revoked, an outage): to the back of the queue, so it cannot hold up the others.
      await options.db.query('UPDATE fixes SET pr_checked_at = $2 WHERE id = $1', [fix.id, now])
      continue
    }
    const seen = { state: pull.state, mergedAt: pull.mergedAt, closedAt: pull.closedAt, mergeSha: pull.mergeSha }
    const outcome = await options.orm.em.fork().transactional((tx) => applyPullRequestSeen(tx as EntityManager, fix.id, seen, now))
    if (outcome === 'merged' || outcome === 'closed') ended++
  }
  return ended
}
