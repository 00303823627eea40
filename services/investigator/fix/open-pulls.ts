/**
 * The ready-head invariant over the code host's pull requests as they are now, not as the service
 * last wrote them: every open pull request on a fix branch the service pushed that is ready for
 * review must carry a head a fix verified to ready grade (executed, met E0, E1 and E2 of the
 * attempt that pushed it). `svc check-investigations` runs it when a code host is configured.
 */
import type { EntityManager } from '@mikro-orm/postgresql'
import type { Orm } from '../../../shared/db/orm.js'
import type { PullRequestAccess } from '../../../shared/plugins/pull-request-types.js'
import { readyLacks, type Violation } from '../store/invariants.js'

export interface OpenPullsReport {
  /** Open pull requests read from the code host. */
  checked: number
  violations: Violation[]
  /** Fix branches whose pull request could not be read (an outage, or access withdrawn), with why. */
  unreadable: string[]
}

/** Reads every fix branch's open pull request and holds the ready ones to their head's evidence. */
export async function checkOpenPullRequests(orm: Orm, pullRequests: PullRequestAccess): Promise<OpenPullsReport> {
  const em = orm.em.fork() as EntityManager
  // One fix branch per issue: its latest fix names the repository and branch.
  const branches = await em.execute<Array<{ issue_id: string; repo: string; branch: string; installation_id: string }>>(
    `SELECT DISTINCT ON (f.issue_id) f.issue_id, f.repo, f.branch, p.codehost_installation_id AS installation_id
       FROM fixes f JOIN projects p ON p.id = f.project_id
      WHERE f.pr_number IS NOT NULL AND f.branch <> '' AND f.repo <> ''
      ORDER BY f.issue_id, f.created_at DESC`,
  )
  const report: OpenPullsReport = { checked: 0, violations: [], unreadable: [] }
  for (const row of branches) {
    let pr
    try {
      pr = await pullRequests.findOpen(row.repo, row.installation_id, row.branch)
    } catch (error) {
      report.unreadable.push(`${row.repo} ${row.branch}: ${(error as Error).message}`)
      continue
    }
    if (!pr) continue
    report.checked++
    if (pr.draft) continue
    const pushed = await readyLacks(em, row.issue_id, pr.headSha)
    // A head no fix pushed is a person's commit (the next run stops with pr_exists): not the service's claim.
    if (!pushed) continue
    if (pushed.lacks !== '') {
      report.violations.push({ rule: 'open pull request ready for review on a head without executed E0, E1 and E2', investigation: pushed.fixId, detail: `${row.repo}#${pr.number} (${pr.url}) is ready for review on ${pr.headSha.slice(0, 12)}, which lacks ${pushed.lacks}` })
    }
  }
  return report
}
