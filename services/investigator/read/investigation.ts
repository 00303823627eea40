/**
 * What people and agents read of an issue's investigation (the issue page, its JSON, the tool
 * server). Cited lines link into the repository at the investigation's commit; a stop shows its
 * reason and remediation; usage is shown with it. The one action they take, asking for another, is
 * a command: services/investigator/commands.ts.
 */
import type { EntityManager } from '@mikro-orm/postgresql'
import type { Orm } from '../../../shared/db/orm.js'
import { noiseNote } from '../admission-verdict.js'
import { readAdmissionNote, type AdmissionNote } from '../store/admission-notes.js'
import { latestInvestigation } from '../store/admissions.js'
import { ACTIVE_STATES, InvestigationCitation } from '../store/entities.js'

/** The states of an investigation in flight (queued, analyzing): another is refused meanwhile. */
export { ACTIVE_STATES }

export interface InvestigationView {
  id: string
  state: string
  trigger: string
  episode: number
  attempts: number
  createdAt: string
  startedAt: string | null
  finishedAt: string | null
  repository: { name: string; url: string; commit: string } | null
  release: string | null
  model: string
  usage: { turns: number; inputTokens: number; outputTokens: number; durationMs: number }
  outcome: {
    kind: string
    reasonCode: string
    reasonMessage: string
    remediation: string
    summary: string
    chain: string[]
    fix: string
    cause: { kind: string; name: string; evidence: string } | null
    confidence: number | null
  } | null
  citations: Array<{ path: string; lineStart: number; lineEnd: number; quote: string; url: string }>
}

/** The issue's latest investigation as people and agents read it; undefined when there is none. */
export async function readInvestigation(orm: Orm, issueId: string): Promise<InvestigationView | undefined> {
  const em = orm.em.fork() as EntityManager
  const latest = await latestInvestigation(em, issueId)
  if (!latest) return undefined
  const { investigation: v, outcome } = latest
  const citations = await em.find(InvestigationCitation, { investigationId: v.id }, { orderBy: { id: 'asc' } })
  const link = (path: string, a: number, b: number): string =>
    v.repoUrl && v.commitSha ? `${v.repoUrl}/blob/${v.commitSha}/${path.split('/').map(encodeURIComponent).join('/')}#L${a}${b > a ? `-L${b}` : ''}` : ''
  return {
    id: v.id,
    state: v.state,
    trigger: v.trigger,
    episode: v.episode,
    attempts: v.attempts,
    createdAt: v.createdAt.toISOString(),
    startedAt: v.startedAt?.toISOString() ?? null,
    finishedAt: v.finishedAt?.toISOString() ?? null,
    repository: v.repo ? { name: v.repo, url: v.repoUrl, commit: v.commitSha } : null,
    release: v.release,
    model: v.model,
    usage: { turns: v.turns, inputTokens: v.inputTokens, outputTokens: v.outputTokens, durationMs: v.durationMs },
    outcome: outcome && {
      kind: outcome.kind,
      reasonCode: outcome.reasonCode,
      reasonMessage: outcome.reasonMessage,
      remediation: outcome.remediation,
      summary: outcome.summary,
      chain: outcome.chain,
      fix: outcome.fix,
      cause: outcome.cause,
      confidence: outcome.confidence,
    },
    citations: citations.map((c) => ({ path: c.path, lineStart: c.lineStart, lineEnd: c.lineEnd, quote: c.quote, url: link(c.path, c.lineStart, c.lineEnd) })),
  }
}

/** Why an issue is not investigated, as people and agents read it; decidedAt is null for noise, which needs no decision. */
export interface NotInvestigated extends AdmissionNote {
  decidedAt: string | null
}

/**
 * Why a new issue was not investigated: noise as the grouper marked it (never sent to admission), else
 * as admission last decided; undefined for an issue that is not new, or that admission has not looked
 * at since it began keeping notes.
 */
export async function readNotInvestigated(orm: Orm, issue: { id: string; status: string; noise: string }): Promise<NotInvestigated | undefined> {
  if (issue.status !== 'new') return undefined
  if (issue.noise !== '') return { ...noiseNote(issue.noise), decidedAt: null }
  return readAdmissionNote(orm.em.fork() as EntityManager, issue.id)
}

/** Why Fix this is not offered for an issue (noise, or a stack without the app's own code), or undefined when it is. */
export function fixWithheld(issue: { kind: string; noise: string }, note: NotInvestigated | undefined): string | undefined {
  if (issue.kind !== 'error') return 'only error issues are fixed'
  if (issue.noise !== '') return 'the issue is marked as noise, which is never investigated or fixed'
  if (note?.code === 'no_app_frames') return `${note.message}; attach the repository the code comes from, or press Investigate now to have the clone checked`
  return undefined
}
