/**
 * Confirmation and the publish gate (docs/known-problems.md, "Checks and the publish gate"): what
 * the matcher's `confirm` job runs for a ticket.
 */
export { confirmTicket, judgeRecording, nextUtcDay, utcDayOf, type ConfirmDeps, type ConfirmOutcome, type ConfirmStatus } from './confirm-ticket.js'
export { confirmedShare, gateAction, publishGate, runGate, type GateAction, type GateCounts, type GateDeps, type GateOutcome } from './publish-gate.js'
export { clickedTargetJudged, showsFriction, verdictOf, VERDICTS, type CheckedTicket, type RecordingFinding, type Verdict } from './verdict.js'
export * from './thresholds.js'
