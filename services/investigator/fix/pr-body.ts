/**
 * The pull request's title and description: root cause, the change, and the evidence as executed
 * (commands, exit codes, baseline against fix), leading with "Not verified" for a limited draft.
 * Issue titles and summaries come from browsers and a model: they are written as inert text.
 */
import type { Delivery, Fix, FixEvidence } from '../store/fix-entities.js'

export interface PrText {
  title: string
  body: string
}

export function prText(input: { fix: Fix; issueTitle: string; issueUrl: string; rootCause: string; chain: string[]; evidence: FixEvidence[]; delivery: Delivery }): PrText {
  const { fix, delivery } = input
  const lines: string[] = []
  if (delivery === 'limited_draft') lines.push('> **Not verified.** No test that fails without this change could be run (E2), so nothing shows it fixes the error. The build passes (E0), no test that passed before fails (E1), and an independent review approved the diff.', '')
  if (delivery === 'draft') lines.push('> Opened as a draft by an automatic run: review it before marking it ready.', '')
  lines.push(`Fixes the error ${inert(input.issueTitle)} (${input.issueUrl}).`, '', '## Root cause', '', inert(input.rootCause))
  if (input.chain.length > 0) lines.push('', ...input.chain.map((step, i) => `${i + 1}. ${inert(step)}`))
  lines.push('', '## The change', '', inert(fix.summary))
  if (fix.testFile) lines.push('', `Regression test: \`${inert(fix.testFile)}\``)
  lines.push('', '## Evidence (executed)', '', '| Check | Where | Command | Exit | Held |', '|---|---|---|---|---|')
  for (const row of input.evidence) lines.push(`| ${TIER[row.tier]} | ${row.phase} | \`${cell(row.command)}\` | ${row.timedOut ? 'timed out' : (row.exitCode ?? 'killed')} | ${row.met ? 'yes' : 'no'} |`)
  lines.push('', `Review: ${fix.review === 'approved' ? 'approved' : 'not approved'}: ${inert(fix.reviewReason)}`)
  lines.push('', `Base commit ${fix.baseSha}. Opened by the error-monitoring service; it never merges.`)
  return { title: `Fix: ${inert(input.issueTitle).slice(0, 200)}`, body: lines.join('\n').slice(0, 60_000) }
}

/** The evidence as a comment: each command's output tail, for the reviewer who wants to see it. */
export function evidenceComment(evidence: FixEvidence[]): string {
  const parts = ['Evidence of this fix, as executed in the sandbox:']
  for (const row of evidence) parts.push('', `**${TIER[row.tier]} (${row.phase})** \`${cell(row.command)}\`: ${row.timedOut ? 'timed out' : `exit ${row.exitCode ?? 'killed'}`}, ${row.met ? 'held' : 'did not hold'}`, '```', row.excerpt.slice(-1500).replaceAll('```', "'''"), '```')
  return parts.join('\n').slice(0, 60_000)
}

const TIER = { setup: 'install', E0: 'E0 build', E1: 'E1 suite', E2: 'E2 regression test' } as const

/** Text that cannot open HTML, links or mentions in the rendered Markdown. */
function inert(text: string): string {
  return text.replace(/[<>]/g, (c) => (c === '<' ? '&lt;' : '&gt;')).replace(/@(?=\w)/g, '@\u200b').slice(0, 4000)
}

function cell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('`', "'").slice(0, 200)
}
