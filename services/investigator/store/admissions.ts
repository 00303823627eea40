/**
 * Opening investigations: one per issue episode, at most one in flight per issue. The issue's own
 * status moves in the same transaction as the investigation row (grouper-issues.ts), so the issue
 * list never shows a state the investigation does not have.
 */
import { UniqueConstraintViolationException } from '@mikro-orm/core'
import type { EntityManager } from '@mikro-orm/postgresql'
import type { Orm } from '../../../shared/orm.js'
import { ACTIVE_STATES, Investigation, InvestigationOutcome, type InvestigationTrigger } from './entities.js'
import { setIssueStatus } from './grouper-issues.js'

export interface AdmitRequest {
  issueId: string
  projectId: string
  trigger: InvestigationTrigger
  requestedBy?: string
  /** How long the new row may wait for a worker to take it before the sweeper dispatches it again. */
  leaseMs: number
}

/** The latest investigation of an issue with its outcome, if any. */
export interface Latest {
  investigation: Investigation
  outcome: InvestigationOutcome | null
}

/** The issue's latest investigation (highest episode), or undefined when it was never investigated. */
export async function latestInvestigation(em: EntityManager, issueId: string): Promise<Latest | undefined> {
  const investigation = await em.findOne(Investigation, { issueId }, { orderBy: { episode: 'desc' } })
  if (!investigation) return undefined
  return { investigation, outcome: await em.findOne(InvestigationOutcome, { investigationId: investigation.id }) }
}

/**
 * Opens the next episode's investigation in state queued, or answers undefined when one is in
 * flight already (the partial unique index says so, also under a race between two admitters).
 */
export async function openInvestigation(orm: Orm, request: AdmitRequest): Promise<Investigation | undefined> {
  const em = orm.em.fork() as EntityManager
  try {
    return await em.transactional(async (tx) => {
      const active = await tx.count(Investigation, { issueId: request.issueId, state: { $in: [...ACTIVE_STATES] } })
      if (active > 0) return undefined
      const latest = await tx.findOne(Investigation, { issueId: request.issueId }, { orderBy: { episode: 'desc' } })
      const investigation = Object.assign(new Investigation(), {
        issueId: request.issueId,
        projectId: request.projectId,
        episode: (latest?.episode ?? 0) + 1,
        trigger: request.trigger,
        requestedBy: request.requestedBy ?? null,
        leaseUntil: new Date(Date.now() + request.leaseMs),
      })
      await tx.persist(investigation).flush()
      await setIssueStatus(tx, request.issueId, 'queued', '', '')
      return investigation
    })
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) return undefined
    throw error
  }
}
