/**
 * Delivering a fix through the code host: one branch per issue (svc/fix-<issue>), force-pushed, so
 * a rerun updates the open pull request instead of opening another. A pull request on that branch
 * whose head the service did not push holds a person's work: the service stops (pr_exists) rather
 * than overwrite it. A draft is marked ready only by a delivery that may open ready. A ready pull
 * request never carries a head that was not verified to ready grade: a delivery that may not open
 * ready turns it back into a draft before pushing (so not even for a moment), and says why in a
 * comment; if the code host will not turn it back, nothing is pushed.
 */
import type { EntityManager } from '@mikro-orm/postgresql'
import type { Orm } from '../../../shared/db/orm.js'
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
  /** The issue's page, where a person verifies a head to ready grade (Fix this). */
  issueUrl: string
  signal: AbortSignal
}

/** Where the fix landed; prReady: the pull request is ready for review (not a draft) now. */
export interface Delivered {
  prNumber: number
  prUrl: string
  headSha: string
  prReady: boolean
}

/** Pushes the fix and opens or updates its pull request; answers the pull request and the pushed commit. */
export async function deliverFix(input: DeliveryInput): Promise<Delivered> {
  const { pullRequests, repo, installationId, record } = input
  const branch = fixBranch(record.fix.issueId)
  await record.set({ branch })
  const existing = await pullRequests.findOpen(repo, installationId, branch)
  if (existing && !(await pushedByUs(input.orm, record.fix.issueId, existing.headSha))) {
    throw new Stop('pr_exists', `Pull request #${existing.number} on ${branch} has commits the service did not push (head ${existing.headSha.slice(0, 12)}).`)
  }
  const ready = input.delivery === 'ready'
  const demoted = existing && !existing.draft && !ready ? await backToDraft(input, existing.number) : false
  let headSha: string
  try {
    headSha = (await pullRequests.pushBranch(repo, installationId, { dir: input.workDir, branch, message: input.text.title, signal: input.signal })).commit
  } catch (error) {
    if (error instanceof RepositoryDenied) throw new Stop('codehost_cannot_push', `The code host refused the push to ${repo} (${branch}): ${error.message}`)
    throw error
  }
  // Known at once: a rerun after a crash here recognises the branch's head as its own.
  await record.set({ headSha })
  const pr = existing
    ? await pullRequests.update(repo, installationId, existing.number, { title: input.text.title, body: input.text.body, ready: ready && existing.draft })
    : await pullRequests.open(repo, installationId, { branch, base: input.defaultBranch, title: input.text.title, body: input.text.body, draft: !ready })
  if (demoted && existing) await pullRequests.comment(repo, installationId, pr.number, backToDraftComment(input, existing.headSha, headSha))
  await pullRequests.comment(repo, installationId, pr.number, input.comment)
  return { prNumber: pr.number, prUrl: pr.url, headSha, prReady: !pr.draft }
}

/** Turns the ready pull request back into a draft before an unverified head is pushed; true once it is one. */
async function backToDraft(input: DeliveryInput, number: number): Promise<boolean> {
  let pr
  try {
    pr = await input.pullRequests.convertToDraft(input.repo, input.installationId, number)
  } catch (error) {
    if (error instanceof RepositoryDenied) throw new Stop('codehost_cannot_push', `The code host refused to turn pull request #${number} of ${input.repo} back into a draft, so the unverified fix was not pushed onto it: ${error.message}`)
    throw error
  }
  if (!pr.draft) throw new Error(`Pull request #${number} of ${input.repo} is still ready for review after turning it back into a draft; the fix was not pushed.`)
  return true
}

/** Why a pull request that was ready for review is a draft again, for the people watching it. */
function backToDraftComment(input: DeliveryInput, before: string, after: string): string {
  const why =
    input.delivery === 'limited_draft'
      ? 'no test that fails without it could be run (E2), so nothing shows it fixes the error'
      : 'it comes from an automatic run, and an automatic run delivers drafts whatever its evidence'
  return [
    `**Back to draft.** This pull request was ready for review on ${before.slice(0, 12)}, a head whose build, suite and reproducing test were executed and passed.`,
    `The service has now pushed ${after.slice(0, 12)}, which may not stand ready for review: ${why}.`,
    `To have it verified to ready grade, press Fix this on the issue (${input.issueUrl}); or review it yourself and mark it ready.`,
  ].join('\n\n')
}

/** True when an earlier fix of this issue pushed head. */
async function pushedByUs(orm: Orm, issueId: string, head: string): Promise<boolean> {
  const em = orm.em.fork() as EntityManager
  return (await em.count(Fix, { issueId, headSha: head })) > 0
}
