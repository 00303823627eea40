/**
 * Why an investigation stopped (outcome needs_human): a stable code, a message saying what
 * happened, and the one thing a person should do next. docs/errors.md lists the same codes; a
 * unit test keeps the two in step, and keeps the operator's tools that write a stop of their own
 * (svc reset-friction-tickets, scripts/retire-friction-buckets.sql) to these codes and words.
 */
import { JobStop } from '../../shared/jobs/index.js'
import { CodehostUnreachable } from '../../shared/plugins/types.js'
import type { OutcomeRecord } from './store/run-record.js'

export const STOPS = {
  missing_model_key: 'Set MODEL_API_KEY (and SVC_MODEL_PLUGIN, SVC_MODEL_NAME, SVC_MODEL_BASE_URL for another provider) on the workers, restart them, then press Investigate again.',
  codehost_not_connected: "Attach the repository to the project (its codehost_repo) and give the workers access to it: CODEHOST_TOKEN with contents read, or the code-host app installed on it; then press Investigate again.",
  repo_access_denied: "Grant the token or the app read access to the repository's contents (or correct the project's codehost_repo), then press Investigate again.",
  codehost_unavailable: 'The code host did not answer; check its status and the workers\' network, then press Investigate again.',
  no_app_frames: "Nothing to investigate in this repository: the stack's code is not in it. Attach the repository the code comes from, or treat the error as coming from outside your code.",
  sourcemap_missing: 'Upload source maps for the release the events name (svc-sourcemaps, or the Vite plugin), then press Investigate again once a new event arrives.',
  model_unavailable: "The model provider did not answer in time or refused for load; check its status and your rate limits, then press Investigate again.",
  model_rejected: 'The model provider refused the request: check MODEL_API_KEY, SVC_MODEL_NAME and SVC_MODEL_BASE_URL, restart the workers, then press Investigate again.',
  model_malformed_output: 'The model kept answering with malformed tool calls; try another model (SVC_MODEL_NAME), then press Investigate again.',
  budget_exhausted: 'Raise the budget (INVESTIGATION_MAX_TURNS, INVESTIGATION_MAX_TOKENS, INVESTIGATION_MAX_SECONDS, INVESTIGATION_PROJECT_DAILY_TOKENS) or wait for the next UTC day, then press Investigate again.',
  unverified_analysis: 'The analysis cited code it had not read or that is not in the repository, so it was discarded. Press Investigate again, or investigate by hand from the stack.',
  low_confidence: 'The model could not tell the cause with enough confidence. Look at the stack and breadcrumbs yourself; more events or source context may help a later run.',
  lease_lost: 'No worker finished the investigation within its leases and retries: check that investigator workers are running and healthy (worker /health), then press Investigate again.',
  investigation_failed: 'The investigation failed on an internal error (the worker log has it, under the investigation id); press Investigate again, and report it if it repeats.',
  // The fix stage's stops (docs/fixes.md).
  sandbox_template_missing: 'Set SVC_SANDBOX_JAVASCRIPT_TEMPLATE on the workers to a template folder (sandbox-templates/javascript, or your own), restart them, then press Fix this.',
  sandbox_unavailable: "The sandbox could not run the project (it could not start, or installing the dependencies failed); check the worker log and the template's install command, then press Fix this.",
  template_mismatch: 'The sandbox template does not fit this repository (the message says what is missing): set what it names in the repository (a lock file; vitest, jest, mocha or node:test with tests it finds), or set SVC_SANDBOX_JAVASCRIPT_TEMPLATE on the workers to a template whose commands fit it (docs/sandbox.md) and restart them, then press Fix this.',
  codehost_cannot_push: 'Give the token or the app write access to the repository (contents and pull requests: read and write), then press Fix this.',
  tests_failed: 'The fix broke tests that pass without it (listed in the message). Fix it by hand from the root cause, or press Fix this to try again.',
  repro_not_achievable: 'No test could be written that fails without the fix, so the change is unverified. Write a failing test by hand and press Fix this, or turn on limited drafts in the project settings to get an unverified draft.',
  verification_failed: 'The build failed or the regression test still fails with the fix. Fix it by hand from the root cause, or press Fix this to try again.',
  review_vetoed: 'An independent review of the diff refused it (its reason is in the message). Fix it by hand from the root cause, or press Fix this to try again.',
  pr_exists: "The fix branch has an open pull request with commits the service did not push; it will not overwrite a person's work. Merge or close that pull request, then press Fix this.",
  fix_failed: 'The fix failed on an internal error (the worker log has it, under the fix id); press Fix this, and report it if it repeats.',
  // Written from outside the runs, by the operator's tools (docs/upgrade-078.md), as the run's outcome.
  known_problems_reset: "Nothing to press: this environment's known problems were reset (svc reset-friction-tickets) and this issue archived with them. Check the known problems list once svc backfill-tickets has matched the recordings again; one published then is investigated afresh.",
  friction_group_retired: 'Nothing to press: friction groups were retired when known problems replaced them (scripts/retire-friction-buckets.sql). Check the known problems list once svc backfill-tickets has matched the recordings; one published then is investigated and fixed afresh.',
} as const

export type StopCode = keyof typeof STOPS

/** The needs_human outcome for code, with message. */
export function stop(code: StopCode, message: string): OutcomeRecord {
  return { kind: 'needs_human', reasonCode: code, reasonMessage: message, remediation: STOPS[code] }
}

/** A run that decided to stop: thrown inside the run, turned into its outcome by the job runner. */
export class Stop extends JobStop {
  override name = 'Stop'
  constructor(
    override readonly code: StopCode,
    message: string,
  ) {
    super(code, message)
  }
}

/** The stop of a run whose last attempt failed with error: the code host's outage names itself, anything else is internal. */
export function failureCode(error: unknown, internal: 'investigation_failed' | 'fix_failed'): StopCode {
  return error instanceof CodehostUnreachable ? 'codehost_unavailable' : internal
}
