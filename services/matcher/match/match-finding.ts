/**
 * One matching decision: for a finding, join the known problem it shows, open a new one, or judge
 * it not a problem (docs/known-problems.md, "Matching"). The finding's vector is computed first,
 * outside any lock; then, in one transaction holding the environment's lock, the decision is read
 * again, the shortlist is read and the decision, the ticket (or its update), its evidence, the
 * issue's recording and the matching_decisions row are written together.
 *
 * The spec's matcher read the ticket list before taking the lock, so two jobs could both see no
 * ticket and both create one (hence its advice to run one matcher during a backfill); here the
 * shortlist is read only once the lock is held, so the second job sees the first one's ticket.
 */
import type { EntityManager } from '@mikro-orm/postgresql'
import type { Orm } from '../../../shared/db/orm.js'
import { FrictionFinding, MatchingDecision, Ticket, type DecidedBy, type DecisionKind, type ShortlistEntry, type TicketState } from '../store/entities.js'
import { embedFinding, type Embedder } from './embed-finding.js'
import { lockEnvironment } from './environment-lock.js'
import { chooseTicket } from './rule.js'
import { getShortlist } from './shortlist.js'
import { createTicket, joinTicket } from './tickets.js'

export interface MatchDeps {
  orm: Orm
}

/** The ticket a decision joined or created, as the decision left it (what scheduling checks needs). */
export interface DecidedTicket {
  id: string
  issueId: string
  state: TicketState
  /** Distinct recordings matched: checks start when it reaches checksNextAt. */
  matched: number
  users: number
  checksNextAt: number
}

/** What matching decided for one finding. */
export interface Decision {
  findingId: string
  decision: DecisionKind
  decidedBy: DecidedBy
  /** The ticket joined or created; null for not_a_problem (or a ticket deleted since). */
  ticket: DecidedTicket | null
  /** Cosine distance to the ticket joined; null otherwise. */
  distance: number | null
  shortlist: ShortlistEntry[]
  decidedAt: Date
  /** True when an earlier run had decided it (nothing was written this time). */
  alreadyDecided: boolean
}

/**
 * Decides findingId once: an existing decision is answered as it is. Without an embedder and
 * without a stored vector of its subject every finding opens a new ticket (decided_by
 * no_embeddings); an empty narrative is not_a_problem. With one, it joins a ticket of its own
 * control only (rule.ts). Undefined when the finding is gone (its recording was deleted). Throws
 * MatchError for a malformed vector, and the plugin's EmbeddingsUnavailable as it is.
 */
export async function matchFinding(deps: MatchDeps, findingId: string, embedder: Embedder | undefined): Promise<Decision | undefined> {
  const em = deps.orm.em.fork() as EntityManager
  const earlier = await em.findOne(MatchingDecision, { findingId })
  if (earlier) return answer(em, earlier, true)
  const finding = await em.findOne(FrictionFinding, findingId)
  if (!finding) return undefined
  const hasNarrative = finding.narrative.trim() !== ''
  if (hasNarrative && embedder) await embedFinding(em, finding, embedder)
  // A vector of the narrative (kept from before migration 081, no embedder to replace it) is none.
  const vector = finding.embeddingOf === 'subject' ? finding.embedding : null
  const decidedBy: DecidedBy = vector ? 'embeddings' : 'no_embeddings'

  const fresh = deps.orm.em.fork() as EntityManager
  return fresh.transactional(async (tx) => {
    await lockEnvironment(tx, finding.projectId, finding.environmentId)
    // Another matcher may have decided it while this one embedded or waited for the lock.
    const raced = await tx.findOne(MatchingDecision, { findingId })
    if (raced) return answer(tx, raced, true)
    const row = Object.assign(new MatchingDecision(), { findingId, projectId: finding.projectId, environmentId: finding.environmentId, decidedBy })
    let ticket: Ticket | undefined
    if (!hasNarrative) {
      row.decision = 'not_a_problem'
    } else {
      const { projectId, environmentId, kind, screen, controlNames: names, subject, embeddingModel } = finding
      row.shortlist = await getShortlist(tx, { projectId, environmentId, kind, screen, names, subject, embedding: vector, embeddingModel })
      const chosen = vector ? chooseTicket(kind, row.shortlist) : undefined
      row.decision = chosen ? 'joined' : 'created'
      row.distance = chosen?.distance ?? null
      ticket = chosen ? await joinTicket(tx, chosen.ticketId, finding) : await createTicket(tx, finding)
      row.ticketId = ticket.id
    }
    await tx.persist(row).flush()
    return toDecision(row, ticket, false)
  })
}

/** A stored decision as a Decision, with its ticket as it is now. */
async function answer(em: EntityManager, row: MatchingDecision, alreadyDecided: boolean): Promise<Decision> {
  const ticket = row.ticketId ? await em.findOne(Ticket, row.ticketId) : null
  return toDecision(row, ticket ?? undefined, alreadyDecided)
}

function toDecision(row: MatchingDecision, ticket: Ticket | undefined, alreadyDecided: boolean): Decision {
  return {
    findingId: row.findingId,
    decision: row.decision,
    decidedBy: row.decidedBy,
    ticket: ticket ? { id: ticket.id, issueId: ticket.issueId, state: ticket.state, matched: ticket.matched, users: ticket.users, checksNextAt: ticket.checksNextAt } : null,
    distance: row.distance,
    shortlist: row.shortlist,
    decidedAt: row.decidedAt,
    alreadyDecided,
  }
}
