/**
 * The project API's error catalogue (/api/v1/projects/...): what a coding agent (with the api key),
 * the dashboard, and anything else reading a project's issues or asking for a fix, is answered when it cannot be. Every answer that is not
 * a success carries `code` and `message`. docs/errors.md is kept in step by a test.
 */
import { CataloguedError, type ErrorDetail, type ErrorSpec } from '../../../shared/http/errors.js'

/** Every code the project API answers with: status and what the client should do next. */
export const PROJECT_API_ERRORS = {
  not_signed_in: { status: 401, message: 'No dashboard session came with the request. Sign in to the dashboard, then send the request again with its session cookie, or send Authorization: Bearer <api key>.' },
  key_malformed: { status: 401, message: 'The bearer token is not an api key (svc_ak_<id>_<secret>); it may be truncated. Copy the whole key again, or create one in Settings > API keys.' },
  key_unknown: { status: 401, message: 'The api key is not known or was revoked. Create a new one in the dashboard under Settings > API keys and use it instead.' },
  insufficient_scope: { status: 403, message: 'This key is not an api key (an ingest or source-map key cannot read the project API). Use the api key (svc_ak_...) from Settings > API keys.' },
  project_not_found: { status: 404, message: 'None of your projects has this id. Check the project id in the dashboard address; do not retry with the same one.' },
  issue_not_found: { status: 404, message: 'This project has no issue with this id. Check both ids: an issue belongs to exactly one project.' },
  recording_not_found: { status: 404, message: 'This project has no recording with this id (it may have passed its retention). Check both ids: a recording belongs to exactly one project.' },
  invalid_limit: { status: 400, message: 'limit must be a whole number from 1 to 50. Send it again with a limit in that range, or without one for the last 7 digests.' },
  invalid_filter: { status: 400, message: 'A parameter of the issue list is invalid (named in field; the message says what it takes). Fix it and send again; docs/issues.md lists the filters.' },
  invalid_assignee: { status: 400, message: 'user_id must be a member\'s user id (a UUID), "me" (the signed-in person), or null to unassign. Send the body again as {"user_id": ...}.' },
  assignee_not_member: { status: 409, message: 'The user named is not a member of this project, so the issue cannot be assigned to them; nothing changed. Use the id of a member (the members page lists them), or invite the person first.' },
  assignee_me_needs_person: { status: 400, message: 'An api key belongs to the project, not to a person, so "me" names nobody. Send the member\'s user id instead (or use the dashboard session of that person).' },
  invalid_id: { status: 400, message: 'The id named in field is not a UUID. Copy the project and issue ids from the dashboard address; do not retry with the same one.' },
  not_an_error: { status: 409, message: 'Only error issues are investigated and fixed. Check the issue kind; do not retry with this issue.' },
  noise_issue: { status: 409, message: 'The issue is marked as noise (its noise field says why), which is never investigated or fixed; do not retry with this issue.' },
  in_flight: { status: 409, message: 'An investigation or a fix of this issue is already in progress, so nothing was started. Wait for it to end (read the issue for its state), then ask again.' },
  invalid_json: { status: 400, message: 'The body is not a JSON object. Send Content-Type: application/json and one JSON object, for example {"mode": "now"}, or no body where the action takes none.' },
  unknown_field: { status: 400, message: 'The body has a field this action does not take (named in field). Remove it and send again; docs/dashboard.md lists each action\'s fields.' },
  invalid_mode: { status: 400, message: 'mode must be "now" (any later event reopens the issue) or "next_release" (only an event of a later release does). Send again with one of them.' },
  invalid_ignore: { status: 400, message: 'The ignore condition is invalid: until must be an ISO 8601 time in the future, more_events and more_users whole numbers from 1 to 1000000000. Send again with a valid condition, or none to ignore for good.' },
  invalid_reason: { status: 400, message: 'reason must be text of at most 1000 characters. Send it again shortened, or without it.' },
  invalid_issues: { status: 400, message: 'issues must be a list of 1 to 100 issue ids (UUIDs) of this project. Send a longer list as several requests of at most 100.' },
  invalid_action: { status: 400, message: 'action must be one of resolve, ignore, reopen. Send again with one of them (merge and unmerge have routes of their own).' },
  invalid_merge: { status: 400, message: 'into must name another issue (a UUID) of this project to merge this one into. Send again with the target issue\'s id.' },
  issue_merged: { status: 409, message: 'This issue was merged into another (merged_into), whose triage it shares; nothing changed. Use the target issue instead, or undo the merge first (POST .../unmerge).' },
  merge_refused: { status: 409, message: 'The merge cannot be made (the message says why); nothing changed. Fix what it names and send again.' },
  not_merged: { status: 409, message: 'This issue is not merged into another, so nothing was undone. Check the issue\'s history (GET .../history) for what happened to it.' },
  body_too_large: { status: 413, message: 'The body is over 64 KiB. An action takes a few short fields: send only those.' },
  cross_site_request: { status: 403, message: "The request came from another site's page (Origin or Sec-Fetch-Site), and the session cookie must not act for it. Send it from the dashboard's own origin or from a client outside the browser." },
  not_found: { status: 404, message: 'No such endpoint. Project endpoints live under /api/v1/projects/<project_id>.' },
  objectstore_unavailable: { status: 503, message: 'The object store that keeps recordings cannot be read right now. Retry in retry_after seconds; if it persists, check the service configuration.' },
  unavailable: { status: 503, message: 'The service cannot reach its database right now. Retry in retry_after seconds.' },
  internal_error: { status: 500, message: 'The service failed to handle the request. Retry once; if it persists, check the service logs.' },
} as const satisfies Record<string, ErrorSpec>

/** A code of the project API's catalogue. */
export type ProjectApiErrorCode = keyof typeof PROJECT_API_ERRORS

/** A failed project-API request: a catalogued code and its answer. */
export class ProjectApiError extends CataloguedError<ProjectApiErrorCode> {
  constructor(code: ProjectApiErrorCode, detail: ErrorDetail = {}) {
    super(code, PROJECT_API_ERRORS[code], detail)
    this.name = 'ProjectApiError'
  }
}
