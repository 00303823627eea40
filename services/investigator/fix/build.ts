/**
 * One fix from a verified root cause to its end: clone at the investigation's commit, converse in
 * a sandbox (a failing test first, then the change), collect the evidence in fresh sandboxes, have
 * the diff reviewed independently, and deliver by the rules, or stop with the reason.
 */
import { execFile } from 'node:child_process'
import { cp, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { CodehostPlugin, ModelPlugin } from '../../../shared/plugins/types.js'
import { RepositoryDenied } from '../../../shared/plugins/repository-types.js'
import { SandboxTemplateMissing, SandboxUnavailable, type SandboxPlugin } from '../../../shared/plugins/sandbox-types.js'
import type { Orm } from '../../../shared/db/orm.js'
import { converse, type Budgets } from '../agent-loop.js'
import { Stop } from '../stops.js'
import type { FixEnd, FixRecord } from '../store/fix-record.js'
import { commandsFor } from './commands.js'
import { decideDelivery } from './delivery-rules.js'
import { deliverFix } from './pull-request.js'
import { collectEvidence, type EvidenceLimits } from './evidence.js'
import { createFixTools, SUBMIT_FIX_TOOL } from './fix-tools.js'
import { evidenceComment, prText } from './pr-body.js'
import { fixMessage, fixSystemPrompt } from './prompt.js'
import { reviewFix } from './review.js'
import type { FixSubject } from './subject.js'

const run = promisify(execFile)

export interface FixContext {
  orm: Orm
  model: ModelPlugin
  codehost: CodehostPlugin
  sandboxes: SandboxPlugin
  template: string | undefined
  limits: EvidenceLimits
  /** The issue's page, for the pull request's description. */
  issueUrl: string
}

/** Builds and delivers the fix; throws Stop for a reasoned stop, CodehostUnreachable or an Error for the stream to retry. */
export async function buildFix(context: FixContext, subject: FixSubject, record: FixRecord, budgets: Budgets, signal: AbortSignal): Promise<FixEnd> {
  const repositories = context.codehost.repositories!
  const { repo, installationId } = subject.project
  const dir = await mkdtemp(join(tmpdir(), 'svc-fix-'))
  try {
    const base = join(dir, 'base')
    const work = join(dir, 'work')
    let defaultBranch: string
    try {
      defaultBranch = (await repositories.info(repo, installationId)).defaultBranch
      await repositories.clone(repo, installationId, base, { commit: record.fix.baseSha || undefined, signal })
    } catch (error) {
      if (error instanceof RepositoryDenied) throw new Stop('repo_access_denied', `The code host refused access to ${repo}.`)
      throw error
    }
    await cp(base, work, { recursive: true })
    await record.set({ model: context.model.label, repo })

    const answer = await converseInSandbox(context, subject, work, record, budgets, signal)
    const diff = await diffOf(work)
    if (diff.trim() === '') throw new Stop('verification_failed', 'The fix changed nothing in the repository.')
    await record.set({ summary: answer.summary.slice(0, 4000), diff: diff.slice(0, 200_000), testFile: answer.testFile ?? '' })

    const evidence = await collectEvidence({ sandboxes: context.sandboxes, template: context.template, record, limits: context.limits, signal }, { base, fix: work }, answer.testFile)
    const checksHeld = !evidence.infra && evidence.e0 && evidence.e1.met && evidence.e2 !== 'still_failing'
    const review = checksHeld ? await reviewFix(context.model, { summary: answer.summary, diff, evidence: evidenceComment(record.checks) }, budgets, record, signal) : undefined
    if (review) await record.set({ review: review.approve ? 'approved' : 'vetoed', reviewReason: review.reason })
    const decision = decideDelivery({ trigger: record.fix.trigger, limitedDrafts: subject.project.limitedDrafts, evidence, review })
    if (decision.kind === 'stop') throw new Stop(decision.code, decision.message)

    const text = prText({ fix: record.fix, issueTitle: subject.issue.title, issueUrl: context.issueUrl, rootCause: subject.rootCause.summary, chain: subject.rootCause.chain, evidence: record.checks, delivery: decision.delivery })
    const pr = await deliverFix({ orm: context.orm, pullRequests: context.codehost.pullRequests!, repo, installationId, defaultBranch, workDir: work, record, delivery: decision.delivery, text, comment: evidenceComment(record.checks), issueUrl: context.issueUrl, signal })
    return { kind: 'delivered', delivery: decision.delivery, ...pr }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** The fix conversation in its own sandbox (destroyed after); answers the summary and the declared test. */
async function converseInSandbox(context: FixContext, subject: FixSubject, work: string, record: FixRecord, budgets: Budgets, signal: AbortSignal): Promise<{ summary: string; testFile: string | undefined }> {
  const sandbox = await openSandbox(context, signal)
  try {
    await sandbox.copyIn(work)
    const commands = await commandsFor(sandbox)
    const install = await sandbox.run(commands.install, { timeoutMs: context.limits.installMs, network: true, signal })
    if (install.exitCode === 127) throw new Stop('template_mismatch', `The install command (${commands.install}) was not found in the sandbox (exit 127; ${commands.summary}).`)
    if (install.infraError || install.exitCode !== 0) throw new Stop('sandbox_unavailable', `Installing the dependencies in the sandbox failed (${install.infraError ?? (install.timedOut ? 'timed out' : `exit ${install.exitCode}`)}).`)
    const tools = createFixTools(work, sandbox, context.limits.toolMs, signal)
    const input = { error: subject.error, ...subject.rootCause, citations: subject.citations, testCommand: commands.testFile }
    const submitted = await converse(context.model, { what: 'fix', system: fixSystemPrompt(), firstMessage: fixMessage(input), tools, finish: { name: SUBMIT_FIX_TOOL.name, parse: parseSubmit }, record }, budgets, signal)
    // The declared test counts; a regression test named only at the end counts if it was written.
    const named = submitted.regressionTest ? await tools.run('declare_test', { path: submitted.regressionTest }) : undefined
    return { summary: submitted.summary, testFile: tools.declared ?? (named && !named.isError ? submitted.regressionTest : undefined) }
  } finally {
    await sandbox.destroy().catch(() => undefined)
  }
}

async function openSandbox(context: FixContext, signal: AbortSignal) {
  try {
    return await context.sandboxes.create({ template: context.template, signal })
  } catch (error) {
    if (error instanceof SandboxTemplateMissing) throw new Stop('sandbox_template_missing', error.message)
    if (error instanceof SandboxUnavailable) throw new Stop('sandbox_unavailable', error.message)
    throw error
  }
}

function parseSubmit(input: unknown): { ok: true; value: { summary: string; regressionTest: string } } | { ok: false; problems: string[] } {
  const raw = input as { summary?: unknown; regression_test?: unknown }
  if (typeof raw.summary !== 'string' || raw.summary.trim() === '') return { ok: false, problems: ['summary must say what the change does'] }
  return { ok: true, value: { summary: raw.summary, regressionTest: typeof raw.regression_test === 'string' ? raw.regression_test.trim() : '' } }
}

/** The work tree's changes against its commit, new files included (git's own diff; no network, no token). */
async function diffOf(work: string): Promise<string> {
  await run('git', ['-C', work, 'add', '--intent-to-add', '--all'])
  const { stdout } = await run('git', ['-C', work, '-c', 'core.quotepath=off', 'diff', '--no-color', '--no-ext-diff'], { maxBuffer: 8 * 1024 * 1024 })
  return stdout
}

