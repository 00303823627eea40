/**
 * Opening investigations: one per issue episode, at most one in flight per issue. The issue's own
 * status moves in the same transaction as the investigation row (grouper-issues.ts), so the issue
 * list never shows a state the investigation does not have.
 */
import { UniqueConstraintViolationException } from '@mikro-orm/core'
import type { EntityManager } from '@mikro-orm/postgresql'
import type { Orm } from '../../../shared/db/orm.js'
import { ACTIVE_STATES, Investigation, InvestigationOutcome, type InvestigationTrigger } from './entities.js'
import { setIssuesStatus, setIssueStatus } from './grouper-issues.js'

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

/**
 * Opens the next episode's investigation of each issue that has none in flight, in one transaction
 * (one read, one batched insert, one status update): admission opens many at once when a busy
 * stream makes many issues qualify together, and a transaction each cost it several round trips
 * per issue. A race with another admitter (the partial unique index) falls back to one at a time.
 */
export async function openInvestigations(orm: Orm, requests: readonly AdmitRequest[]): Promise<Investigation[]> {
  if (requests.length === 0) return []
  if (requests.length === 1) return [await openInvestigation(orm, requests[0]!)].filter((v): v is Investigation => v !== undefined)
  const em = orm.em.fork() as EntityManager
  try {
    return await em.transactional(async (tx) => {
      const existing = await tx.find(Investigation, { issueId: { $in: requests.map((r) => r.issueId) } }, { fields: ['id', 'issueId', 'episode', 'state'] })
      const episodes = new Map<string, number>()
      const inFlight = new Set<string>()
      for (const row of existing) {
        episodes.set(row.issueId, Math.max(episodes.get(row.issueId) ?? 0, row.episode))
        if ((ACTIVE_STATES as readonly string[]).includes(row.state)) inFlight.add(row.issueId)
      }
      const opened = requests
        .filter((request) => !inFlight.has(request.issueId))
        .map((request) =>
          Object.assign(new Investigation(), {
            issueId: request.issueId,
            projectId: request.projectId,
            episode: (episodes.get(request.issueId) ?? 0) + 1,
            trigger: request.trigger,
            requestedBy: request.requestedBy ?? null,
            leaseUntil: new Date(Date.now() + request.leaseMs),
          }),
        )
      for (const investigation of opened) tx.persist(investigation)
      await tx.flush()
      await setIssuesStatus(tx, opened.map((investigation) => investigation.issueId).sort(), 'queued')
      return opened
    })
  } catch (error) {
    if (!(error instanceof UniqueConstraintViolationException)) throw error
    const opened: Investigation[] = []
    for (const request of requests) {
      const investigation = await openInvestigation(orm, request)
      if (investigation) opened.push(investigation)
    }
    return opened
  }
}