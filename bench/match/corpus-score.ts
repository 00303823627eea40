/**
 * The matching corpus's score: each decision weighed, in the order it was taken, against the
 * ground truth of its finding and of the known problem it joined (that of the finding which opened
 * it), and each check against what its recording showed.
 *
 * - joined right: joined the known problem of its own problem;
 * - opened right: opened a known problem for a problem that had none;
 * - split: opened a known problem for a problem that had one already (it should have joined);
 * - merge: joined the known problem of another problem (across controls when of another control);
 * - a wrong confirmation: a check confirmed on a recording that did not show the problem; a missed
 *   one: a check not confirmed on a recording that showed it.
 */
import { controlOf } from '../../test/fixtures/matching-corpus/corpus.js'
import type { CorpusRun } from './corpus.js'

export interface CorpusScore {
  findings: number
  problems: number
  controls: number
  knownProblems: number
  joinedRight: number
  openedRight: number
  splits: number
  merges: number
  /** Of the merges, those that joined another control's known problem. */
  mergesAcrossControls: number
  /** Findings no action of the corpus accounts for (none expected), and findings judged not a problem. */
  unaccounted: number
  /** Of the checks on a recording that showed the known problem's problem, those not confirmed (missed), and those refuted. */
  checks: { confirmedRight: number; confirmedWrong: number; confirmedByAnotherControl: number; missed: number; refutedWrong: number; total: number }
  /** One line per merge, split and wrong confirmation, for the reader. */
  notes: string[]
}

/** Scores a run of the corpus. */
export function scoreMatching(run: CorpusRun): CorpusScore {
  const ticketProblem = new Map<string, string>()
  const opened = new Set<string>()
  const score: CorpusScore = { findings: run.decisions.length, problems: 0, controls: 0, knownProblems: 0, joinedRight: 0, openedRight: 0, splits: 0, merges: 0, mergesAcrossControls: 0, unaccounted: 0, checks: { confirmedRight: 0, confirmedWrong: 0, confirmedByAnotherControl: 0, missed: 0, refutedWrong: 0, total: run.checks.length }, notes: [] }
  const distance = (d: number | null): string => (d === null ? 'no distance' : `distance ${d.toFixed(3)}`)
  for (const d of run.decisions) {
    if (d.problem === undefined || d.decision === 'not_a_problem' || d.ticket === undefined) {
      score.unaccounted++
      score.notes.push(`unaccounted: finding ${d.key} (${d.kind} on ${d.target} on ${d.page}) ${d.decision}`)
      continue
    }
    if (d.decision === 'created') {
      ticketProblem.set(d.ticket, d.problem)
      if (opened.has(d.problem)) {
        score.splits++
        score.notes.push(`split: finding ${d.key} (${d.problem}, ${d.target}) opened another known problem`)
      } else score.openedRight++
      opened.add(d.problem)
      continue
    }
    const joined = ticketProblem.get(d.ticket)!
    if (joined === d.problem) {
      score.joinedRight++
      continue
    }
    score.merges++
    if (controlOf(joined) !== controlOf(d.problem)) score.mergesAcrossControls++
    score.notes.push(`merge: finding ${d.key} (${d.problem}, ${d.target} on ${d.page}) joined ${d.ticket} (${joined}) at ${distance(d.distance)}`)
  }
  const problems = new Set(run.decisions.flatMap((d) => (d.problem === undefined ? [] : [d.problem])))
  score.problems = problems.size
  score.controls = new Set([...problems].map(controlOf)).size
  score.knownProblems = ticketProblem.size
  for (const check of run.checks) {
    const problem = ticketProblem.get(check.ticket)
    if (problem === undefined) continue
    const shown = run.shown.get(check.session) ?? new Set<string>()
    if (check.verdict === 'confirmed' && shown.has(problem)) score.checks.confirmedRight++
    else if (check.verdict === 'confirmed') {
      score.checks.confirmedWrong++
      const sameControl = [...shown].some((other) => controlOf(other) === controlOf(problem))
      if (!sameControl) score.checks.confirmedByAnotherControl++
      score.notes.push(`wrong confirmation: ${check.ticket} (${problem}) confirmed by session ${check.session}, which showed ${[...shown].join(', ') || 'nothing'}`)
    } else if (shown.has(problem)) {
      score.checks.missed++
      score.notes.push(`missed: ${check.ticket} (${problem}) ${check.verdict} on session ${check.session}, which showed it`)
      if (check.verdict === 'refuted') score.checks.refutedWrong++
    }
  }
  return score
}

/** The score as bench:match prints it. */
export function formatScore(score: CorpusScore, recordings: number): string[] {
  const c = score.checks
  return [
    `matching corpus: ${recordings} recordings in Chromium, ${score.findings} findings of ${score.problems} problems on ${score.controls} controls, ${score.knownProblems} known problems opened`,
    `  joins right ${score.joinedRight}, opened right ${score.openedRight}, splits ${score.splits}, merges ${score.merges} (${score.mergesAcrossControls} of two controls), unaccounted ${score.unaccounted}`,
    `  checks ${c.total}: confirmed right ${c.confirmedRight}, confirmed wrong ${c.confirmedWrong} (${c.confirmedByAnotherControl} by another control's finding), missed ${c.missed} (${c.refutedWrong} refuted)`,
    ...score.notes.map((note) => `  ${note}`),
  ]
}
