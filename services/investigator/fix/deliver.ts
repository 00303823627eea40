/**
 * Delivering a fix through the code host: one branch per issue (svc/fix-<issue>), force-pushed, so
 * a rerun updates the open pull request instead of opening another. A pull request on that branch
 * whose head the service did not push holds a person's work: the service stops (pr_exists) rather
 * than overwrite it. A draft is marked ready only by a delivery that may open ready; never back.
 */
import type { EntityManager } from '@mikro-orm/postgresql'
import type { Orm } from '../../../shared/orm.js'
import type { PullRequestAccess } from '../../../shared/plugins/pull-request-types.js'
import { RepositoryDenied } from '../../../shared/plugins/repository-types.js'
import { Stop } from '../stops.js'
import { Fix, type Delivery } from '../store/fix-entities.js'
import type { FixRecord } from '../store/fix-record.js'
import type { PrText } from './pr-body.js'

export function fixBranch(issueId: string): string {
  return `svc/fix-${issueId.slice(0, 8)}`
}

export interface DeliveryInput {
  orm: Orm
  pullRequests: PullRequestAccess
  repo: string
  installationId: string
  defaultBranch: string
  workDir: string
  record: FixRecord
  delivery: Delivery
  text: PrText
  comment: string
  signal: AbortSignal
}

/** Pushes the fix and opens or updates its pull request; answers the pull request and the pushed commit. */
export async function deliverFix(input: DeliveryInput): Promise<{ prNumber: number; prUrl: string; headSha: string }> {
  const { pullRequests, repo, installationId, record } = input
  const branch = fixBranch(record.fix.issueId)
  await record.set({ branch })
  const existing = await pullRequests.findOpen(repo, installationId, branch)
  if (existing && !(await pushedByUs(input.orm, record.fix.issueId, existing.headSha))) {
    throw new Stop('pr_exists', `Pull request #${existing.number} on ${branch} has commits the service did not push (head ${existing.headSha.slice(0, 12)}).`)
  }
  let headSha: string
  try {
    headSha = (await pullRequests.pushBranch(repo, installationId, { dir: input.workDir, branch, message: input.text.title, signal: input.signal })).commit
  } catch (error) {
    if (error instanceof RepositoryDenied) throw new Stop('codehost_cannot_push', `The code host refused the push to ${repo} (${branch}): ${error.message}`)
    throw error
  }
  // Known at once: a rerun after a crash here recognises the branch's head as its own.
  await record.set({ headSha })
  const draft = input.delivery !== 'ready'
  const pr = existing
    ? await pullRequests.update(repo, installationId, existing.number, { title: input.text.title, body: input.text.body, ready: !draft && existing.draft })
    : await pullRequests.open(repo, installationId, { branch, base: input.defaultBranch, title: input.text.title, body: input.text.body, draft })
  await pullRequests.comment(repo, installationId, pr.number, input.comment)
  return { prNumber: pr.number, prUrl: pr.url, headSha }
}

/** True when an earlier fix of this issue pushed head. */
async function pushedByUs(orm: Orm, issueId: string, head: string): Promise<boolean> {
  const em = orm.em.fork() as EntityManager
  return (await em.count(Fix, { issueId, headSha: head })) > 0
}
