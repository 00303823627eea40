/**
 * Matching (docs/known-problems.md, "Matching"): a finding joins a known problem, opens one, or is
 * not a problem, decided under its environment's lock.
 */
export { matchFinding, type Decision, type DecidedTicket, type MatchDeps } from './match-finding.js'
export { MatchError, embedFinding, checkedVector, type Embedder } from './embed-finding.js'
export { ENVIRONMENT_LOCK_SQL, lockEnvironment } from './environment-lock.js'
export { MAX_JOIN_DISTANCE, chooseTicket, joins, nearEnough } from './rule.js'
export { ITERATIVE_SCAN_SQL, SHORTLIST_EACH, getShortlist, shortlistStatements, type ShortlistQuery, type Statement } from './shortlist.js'
export { TICKET_PAGES_MAX, withPage } from './tickets.js'
