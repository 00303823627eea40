/**
 * A matching decision's writes, in the transaction that holds the environment's lock: a new ticket
 * with its friction-kind issue, or a finding joining a ticket; either way the finding becomes the
 * ticket's evidence (ticket_matches) and the issue's recording at that moment (issue_recordings).
 */
import { randomUUID } from 'node:crypto'
import { LockMode } from '@mikro-orm/core'
import type { EntityManager } from '@mikro-orm/postgresql'
import { withNames } from '../friction/control.js'
import { IssueRecording, Ticket, TicketMatch, type FrictionFinding } from '../store/entities.js'
import { openFrictionIssue, touchFrictionIssue } from '../../grouper/commands/friction-issues.js'

/** How many screens a ticket remembers: its first, then the most recently seen. */
export const TICKET_PAGES_MAX = 20

/** Opens a ticket (state candidate) and its friction-kind issue for finding, its first evidence. */
export async function createTicket(tx: EntityManager, finding: FrictionFinding): Promise<Ticket> {
  const id = randomUUID()
  const users = finding.userKey === null ? 0 : 1
  const issueId = await openFrictionIssue(tx, { projectId: finding.projectId, ticketId: id, narrative: finding.narrative, page: finding.page, target: finding.target, state: 'candidate', at: finding.at, users })
  const ticket = Object.assign(new Ticket(), {
    id,
    projectId: finding.projectId,
    environmentId: finding.environmentId,
    issueId,
    kind: finding.kind,
    page: finding.page,
    target: finding.target,
    narrative: finding.narrative,
    screen: finding.screen,
    controlNames: [...finding.controlNames],
    subject: finding.subject,
    embedding: finding.embedding,
    embeddingModel: finding.embedding ? finding.embeddingModel : null,
    embeddingOf: finding.embedding ? finding.embeddingOf : null,
    pages: [finding.page],
    matched: 1,
    users,
  })
  // Flushed one step at a time: the entities declare no relations, so the ORM would not know the
  // ticket must be in before the rows that reference it.
  await tx.persist(ticket).flush()
  await addEvidence(tx, ticket, finding)
  return ticket
}

/**
 * Joins finding to the ticket: its evidence, then the ticket's counts taken again from its evidence
 * (matched: distinct recordings; users: distinct user keys), its pages, the names its control went
 * by (so a control renamed one step at a time, its text in one release and its id in a later one,
 * is still followed), and its issue's last sighting and users. The ticket row is locked for the update: a confirmation writing its checks
 * at the same time waits rather than failing the version check.
 */
export async function joinTicket(tx: EntityManager, ticketId: string, finding: FrictionFinding): Promise<Ticket> {
  const ticket = await tx.findOneOrFail(Ticket, ticketId, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true })
  await addEvidence(tx, ticket, finding)
  const [counts] = await tx.execute<{ recordings: string; users: string }[]>(
    'SELECT count(DISTINCT recording_id) AS recordings, count(DISTINCT user_key) AS users FROM ticket_matches WHERE ticket_id = ?',
    [ticket.id],
  )
  ticket.matched = Number(counts?.recordings ?? ticket.matched + 1)
  ticket.users = Number(counts?.users ?? ticket.users)
  ticket.pages = withPage(ticket.pages, finding.page)
  ticket.controlNames = withNames(ticket.controlNames, finding.controlNames)
  ticket.updatedAt = new Date()
  await tx.flush()
  await touchFrictionIssue(tx, ticket.issueId, finding.at, ticket.users)
  return ticket
}

/** pages with page seen again: kept as they are if it is there, else added, forgetting the oldest but the first beyond TICKET_PAGES_MAX. */
export function withPage(pages: readonly string[], page: string): string[] {
  if (pages.includes(page)) return [...pages]
  const next = [...pages, page]
  return next.length <= TICKET_PAGES_MAX ? next : [next[0]!, ...next.slice(next.length - TICKET_PAGES_MAX + 1)]
}

async function addEvidence(tx: EntityManager, ticket: Ticket, finding: FrictionFinding): Promise<void> {
  const match = Object.assign(new TicketMatch(), { ticketId: ticket.id, findingId: finding.id, projectId: finding.projectId, recordingId: finding.recordingId, at: finding.at, userKey: finding.userKey })
  await tx.persist(match).flush()
  // Two findings of one recording at one moment on one problem are one row of the issue's recordings.
  await tx.createQueryBuilder(IssueRecording).insert({ issueId: ticket.issueId, projectId: finding.projectId, recordingId: finding.recordingId, at: finding.at }).onConflict().ignore().execute()
}
