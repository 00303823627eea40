/**
 * One investigation from its subject to its outcome: check what it needs (model, repository,
 * placed frames; a known problem has no frames and starts from its recorded data), clone the
 * repository at the release's commit, converse, hold the answer to the evidence bar, and say which
 * of the three outcomes it is. Every way it can fail ends in a Stop.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { normalizeSourcePath } from '../../../shared/domain/source-path.js'
import { CodehostUnreachable, RepositoryDenied, type CodehostPlugin, type ModelPlugin } from '../../../shared/plugins/types.js'
import { checkEvidence } from '../analysis/evidence.js'
import { parseAnswer } from '../analysis/answer.js'
import { frictionMessage, frictionSystemPrompt } from '../analysis/friction-prompt.js'
import { eventMessage, systemPrompt, type InvestigationInput } from '../analysis/prompt.js'
import { indexRepository, repoPathOf } from '../analysis/repo-paths.js'
import { createRepoTools } from '../analysis/repo-tools.js'
import { converse, type Budgets } from '../agent-loop.js'
import { Stop, stop } from '../stops.js'
import type { OutcomeRecord, RunRecord } from '../store/run-record.js'
import type { Tools } from '../tools.js'
import type { Subject, SubjectEvent } from './subject.js'


/** Below this the answer is not trusted to name a cause. */
const MIN_CONFIDENCE = 0.5

/** The stop of a worker without a model, decided before anything is read. */
export function modelPreflight(tools: Tools): OutcomeRecord | undefined {
  return tools.model ? undefined : stop('missing_model_key', 'No model is configured: MODEL_API_KEY is not set on the worker.')
}

/** A stop that needs no clone or model: what is missing before any work starts, or undefined. */
export function preflight(subject: Subject, tools: Tools): OutcomeRecord | undefined {
  const noModel = modelPreflight(tools)
  if (noModel) return noModel
  if (!subject.project.repo) return stop('codehost_not_connected', 'The project has no repository attached (codehost_repo is empty).')
  if (!tools.codehost?.repositories) return stop('codehost_not_connected', `The workers cannot read ${subject.project.repo}: neither CODEHOST_TOKEN nor a code-host app is configured.`)
  // A known problem has no stack: the model starts from the clicked element instead.
  if (subject.issue.kind === 'friction') return subject.friction ? undefined : stop('investigation_failed', 'The known problem of this friction issue is gone (its ticket was deleted), so there is nothing to investigate.')
  const event = subject.event
  const appFrames = (event?.frames ?? []).filter((frame) => frame.inApp)
  if (!event || appFrames.length === 0) return stop('no_app_frames', 'No frame of the stack is in the application\'s own code (no stack, or only browser, extension and library frames).')
  if (!appFrames.some((frame) => frame.original)) {
    const reasons = [...new Set(appFrames.map((frame) => frame.unresolved ?? 'no_mapping'))].join(', ')
    return stop('sourcemap_missing', `The application frames could not be mapped to source (${reasons}) for release ${event.release ?? '(none)'}.`)
  }
  return undefined
}

/** Runs the investigation after preflight passed; throws Stop, CodehostUnreachable or an Error. */
export async function investigate(subject: Subject, tools: { model: ModelPlugin; codehost: CodehostPlugin }, budgets: Budgets, record: RunRecord, signal: AbortSignal): Promise<OutcomeRecord> {
  const repositories = tools.codehost.repositories!
  const { repo, installationId } = subject.project
  const event = subject.event
  // A known problem's commit: the release of its most recent matched recording, else the default branch.
  const release = subject.friction ? subject.friction.recordings.find((recording) => recording.release)?.release : event!.release
  const dir = await mkdtemp(join(tmpdir(), 'svc-investigation-'))
  try {
    let commit: string | undefined
    try {
      const info = await repositories.info(repo, installationId)
      await record.setSubject({ repo, repoUrl: info.webUrl, model: tools.model.label, release: release ?? null })
      if (release) commit = await resolveRelease(repositories, repo, installationId, release)
      const started = Date.now()
      const clone = await repositories.clone(repo, installationId, join(dir, 'repo'), { commit, signal })
      commit = clone.commit
      await record.step({ kind: 'check', name: 'clone', detail: `${repo}@${commit}${release ? ` for release ${release}` : ' (default branch head)'}`, durationMs: Date.now() - started })
      await record.setSubject({ commitSha: commit })
    } catch (error) {
      if (error instanceof RepositoryDenied) throw new Stop('repo_access_denied', `The code host refused access to ${repo}.`)
      throw error
    }
    const root = join(dir, 'repo')
    const index = await indexRepository(root)
    const repoTools = createRepoTools(root, index)
    const opening = subject.friction
      ? { system: frictionSystemPrompt(), firstMessage: frictionMessage(subject.friction, { fullName: repo, commit }) }
      : { system: systemPrompt(), firstMessage: eventMessage(inputOf(subject, event!, placedFrames(event!, index, repo, commit), repo, commit)) }
    const answer = await converse(
      tools.model,
      { what: 'investigation', ...opening, tools: repoTools, finish: { name: 'submit_answer', parse: answerOf }, record },
      budgets,
      signal,
    )
    const evidence = await checkEvidence(answer, { dir: root, readFiles: repoTools.readFiles })
    if (!evidence.ok) {
      // The problems go to the record for operators; the rejected analysis itself is not kept.
      await record.step({ kind: 'check', name: 'evidence', detail: evidence.problems.join('; ') })
      throw new Stop('unverified_analysis', `The analysis failed the evidence check (${evidence.problems.length} problem${evidence.problems.length === 1 ? '' : 's'}): every cited file must be read in the run and every quote must match ${repo} at ${commit.slice(0, 12)}.`)
    }
    await record.step({ kind: 'check', name: 'evidence', detail: `${evidence.citations.length} citations verified` })
    if (answer.outcome === 'undetermined' || answer.confidence < MIN_CONFIDENCE) {
      throw new Stop('low_confidence', `The model could not name the cause with enough confidence (${answer.confidence.toFixed(2)}).`)
    }
    const citations = evidence.citations.map((c) => ({ path: c.path, lineStart: c.lineStart, lineEnd: c.lineEnd, quote: c.quote }))
    const common = { summary: answer.summary, chain: answer.chain, confidence: answer.confidence, citations }
    if (answer.outcome === 'in_code') return { kind: 'investigated', ...common, fix: answer.fix ?? '' }
    return { kind: 'insight', ...common, cause: answer.cause }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** The event's frames with their repository paths; a stop when none of the app's is in the repository. */
function placedFrames(event: SubjectEvent, index: Awaited<ReturnType<typeof indexRepository>>, repo: string, commit: string): InvestigationInput['frames'] {
  const frames = event.frames.map((frame) => ({ ...frame, repoPath: frame.original ? repoPathOf(index, normalizeSourcePath(frame.original.file)) : undefined }))
  if (!frames.some((frame) => frame.inApp && frame.repoPath)) {
    const files = [...new Set(frames.filter((frame) => frame.inApp && frame.original).map((frame) => normalizeSourcePath(frame.original!.file)))].slice(0, 5).join(', ')
    throw new Stop('no_app_frames', `None of the stack's source files is in ${repo} at ${commit.slice(0, 12)} (${files}): the code that threw comes from elsewhere.`)
  }
  return frames
}

function answerOf(input: unknown) {
  const parsed = parseAnswer(input)
  return parsed.ok ? { ok: true as const, value: parsed.answer } : parsed
}

/** The commit a release names: as is, then its version part ("shop@1.4.0" → "1.4.0", "v1.4.0"). */
async function resolveRelease(repositories: NonNullable<CodehostPlugin['repositories']>, repo: string, installationId: string, release: string): Promise<string | undefined> {
  const version = release.includes('@') ? release.slice(release.lastIndexOf('@') + 1) : undefined
  for (const ref of [release, version, version && `v${version}`]) {
    if (!ref || !/^[\w.@/+-]{1,200}$/.test(ref)) continue
    try {
      const commit = await repositories.resolveCommit(repo, installationId, ref)
      if (commit) return commit
    } catch (error) {
      if (error instanceof CodehostUnreachable) throw error
    }
  }
  return undefined
}

function inputOf(subject: Subject, event: SubjectEvent, frames: InvestigationInput['frames'], repo: string, commit: string): InvestigationInput {
  return {
    issue: { title: subject.issue.title, culprit: subject.issue.culprit, events: subject.issue.events, users: subject.issue.users, sessions: subject.issue.sessions, firstSeen: subject.issue.firstSeen, lastSeen: subject.issue.lastSeen },
    error: { type: event.type, message: event.message, stack: event.stack },
    frames: frames.map((frame) => ({ file: frame.file, line: frame.line, column: frame.column, function: frame.function, inApp: frame.inApp, repoPath: frame.repoPath, original: frame.original && { file: frame.original.file, line: frame.original.line, column: frame.original.column, function: frame.original.function } })),
    breadcrumbs: event.breadcrumbs,
    url: event.url,
    userAgent: event.userAgent,
    release: event.release,
    repository: { fullName: repo, commit },
  }
}
