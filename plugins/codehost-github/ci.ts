/**
 * A commit's CI on GitHub as one verdict: its commit statuses (the combined status, one per
 * context) and its check runs (the latest of each name) together. GitHub's own combined state
 * answers "pending" for a commit nobody reported on; here that is "none", which never counts as
 * green.
 */
import type { Octokit } from '@octokit/rest'
import type { CiResult } from '../../shared/plugins/types.js'

/** A commit status as GET /repos/{owner}/{repo}/commits/{ref}/status lists it. */
export interface GithubStatus {
  readonly context: string
  readonly state: string
  readonly target_url?: string | null
}

/** A check run as GET /repos/{owner}/{repo}/commits/{ref}/check-runs lists it. */
export interface GithubCheckRun {
  readonly name: string
  readonly status: string
  readonly conclusion?: string | null
  readonly html_url?: string | null
  readonly details_url?: string | null
}

type CheckState = CiResult['checks'][number]['state']

/** Conclusions of a finished check run that do not fail the commit; any other (failure, cancelled, timed_out, action_required, stale...) does. */
const PASSING = new Set(['success', 'neutral', 'skipped'])

/** Reads commit's statuses and check runs (every page of each) and combines them. */
export async function readCi(octokit: Octokit, owner: string, repo: string, commit: string): Promise<CiResult> {
  // The combined status answers at most 100 contexts per page; more than that on one commit is not a CI anyone runs.
  const status = await octokit.rest.repos.getCombinedStatusForRef({ owner, repo, ref: commit, per_page: 100 })
  const checkRuns = await octokit.paginate(octokit.rest.checks.listForRef, { owner, repo, ref: commit, per_page: 100, filter: 'latest' })
  return combineCi(status.data.statuses as GithubStatus[], checkRuns as GithubCheckRun[])
}

/** none without any status or check run; pending while any runs; failure when any failed; success otherwise. */
export function combineCi(statuses: readonly GithubStatus[], checkRuns: readonly GithubCheckRun[]): CiResult {
  const checks = [
    ...statuses.map((s) => ({ name: s.context, state: statusState(s.state), url: s.target_url ?? '' })),
    ...checkRuns.map((run) => ({ name: run.name, state: checkRunState(run), url: run.html_url ?? run.details_url ?? '' })),
  ]
  const any = (state: CheckState): boolean => checks.some((check) => check.state === state)
  const state = checks.length === 0 ? 'none' : any('pending') ? 'pending' : any('failure') ? 'failure' : 'success'
  return { state, checks }
}

/** success, pending, and failure for failure, error or anything GitHub may add. */
function statusState(state: string): CheckState {
  return state === 'success' ? 'success' : state === 'pending' ? 'pending' : 'failure'
}

/** Anything not completed (queued, in_progress, waiting, requested, pending) still runs. */
function checkRunState(run: GithubCheckRun): CheckState {
  if (run.status !== 'completed') return 'pending'
  return PASSING.has(run.conclusion ?? '') ? 'success' : 'failure'
}
