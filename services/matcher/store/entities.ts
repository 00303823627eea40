/**
 * The matcher's tables as MikroORM entities (migration 078 creates them, 081 adds the control
 * identity; the ORM never changes the schema): findings, known problems (tickets), their matches,
 * the matching decisions, the issue's recordings and the matcher's jobs. Vectors go through
 * pgvector's own MikroORM type, so a finding's or a ticket's embedding reads and writes as
 * number[]. A ticket carries a version column: every write to it is an optimistic-lock update.
 */
import { randomUUID } from 'node:crypto'
import { ArrayType, EntitySchema, type Type } from '@mikro-orm/core'
import { VectorType } from 'pgvector/mikro-orm'
import { leasedProperties } from '../../../shared/jobs/leased-columns.js'

export const FINDING_KINDS = ['rage_click', 'dead_click', 'error_after_click', 'form_abandon'] as const
export type FindingKind = (typeof FINDING_KINDS)[number]

export const TICKET_STATES = ['candidate', 'queued', 'analyzing', 'awaiting_approval', 'insight', 'needs_human', 'investigated', 'fixing', 'pr_draft', 'pr_created', 'archived'] as const
export type TicketState = (typeof TICKET_STATES)[number]

export type DecisionKind = 'joined' | 'created' | 'not_a_problem'
export type EmbeddingOf = 'narrative' | 'subject'
export type DecidedBy = 'embeddings' | 'no_embeddings' | 'model'

/** One moment of friction in one recording (friction_findings). */
export class FrictionFinding {
  id: string = randomUUID()
  projectId!: string
  environmentId: string | null = null
  recordingId!: string
  kind!: FindingKind
  page!: string
  target!: string
  at!: Date
  userKey: string | null = null
  sessionId: string | null = null
  narrative!: string
  narrativeBy: 'mechanical' | 'model' = 'mechanical'
  /** Its control (migration 081): the page's screen and the names the control went by. */
  screen = ''
  controlNames: string[] = []
  /** What matching embeds: what is specific to the finding (narrative.ts subjectOf). */
  subject = ''
  embedding: number[] | null = null
  embeddingModel: string | null = null
  /** What the vector was computed from: its subject, or (before 081) its narrative. */
  embeddingOf: EmbeddingOf | null = null
  createdAt: Date = new Date()
}

/** A known problem (tickets): one per friction-kind issue. */
export class Ticket {
  id: string = randomUUID()
  projectId!: string
  environmentId: string | null = null
  issueId!: string
  state: TicketState = 'candidate'
  previousState: TicketState | null = null
  kind!: FindingKind
  page!: string
  target!: string
  narrative!: string
  /** Its control: its first finding's screen, and every name its findings went by (the first, then the most recent 19). */
  screen = ''
  controlNames: string[] = []
  subject = ''
  embedding: number[] | null = null
  embeddingModel: string | null = null
  embeddingOf: EmbeddingOf | null = null
  pages: string[] = []
  matched = 0
  users = 0
  checksConfirmed = 0
  checksRefuted = 0
  checksInconclusive = 0
  checksNextAt = 3
  publishedAt: Date | null = null
  unpublishedAt: Date | null = null
  sameFixTicketId: string | null = null
  sameFix: 'asked' | 'same' | 'different' | null = null
  createdAt: Date = new Date()
  updatedAt: Date = new Date()
  version = 1
}

/** A finding that joined a ticket: the ticket's evidence (ticket_matches). */
export class TicketMatch {
  ticketId!: string
  findingId!: string
  projectId!: string
  recordingId!: string
  at!: Date
  userKey: string | null = null
  createdAt: Date = new Date()
}

/** One ticket the matcher weighed for a finding, as matching_decisions.shortlist keeps it. */
export interface ShortlistEntry {
  ticketId: string
  /** Cosine distance to the finding's narrative; null when either has no vector of the same model. */
  distance: number | null
  /** The ticket is of the finding's screen. */
  sharesScreen: boolean
  /** The ticket is of the finding's control: its screen, and a name in common (only such a ticket may be joined). */
  sameControl: boolean
  /** Its subject reads as the finding's, word for word (what an error is compared by when there is no distance). */
  sameSubject: boolean
  checksConfirmed: number
}

/** What matching decided for a finding (matching_decisions). */
export class MatchingDecision {
  findingId!: string
  projectId!: string
  environmentId: string | null = null
  decision!: DecisionKind
  ticketId: string | null = null
  distance: number | null = null
  shortlist: ShortlistEntry[] = []
  decidedBy!: DecidedBy
  decidedAt: Date = new Date()
}

/** A friction-kind issue's recording at one moment (issue_recordings). */
export class IssueRecording {
  issueId!: string
  projectId!: string
  recordingId!: string
  at!: Date
}

/** One of the matcher's jobs: scan a recording, match a finding, confirm a ticket (friction_jobs). */
export class FrictionJob {
  id: string = randomUUID()
  kind!: 'scan' | 'match' | 'confirm'
  projectId!: string
  environmentId: string | null = null
  subject!: string
  state: 'pending' | 'claimed' | 'completed' | 'failed' = 'pending'
  source: 'live' | 'backfill' = 'live'
  allowMissingEmbeddings = false
  notBefore: Date = new Date()
  attempts = 0
  /** Null until the job is first dispatched; on a pending job, when to dispatch it again. */
  leaseUntil: Date | null = null
  /** When its latest claim started it. */
  startedAt: Date | null = null
  version = 1
  error: string | null = null
  createdAt: Date = new Date()
  updatedAt: Date = new Date()
}

// pgvector declares its type as string to string; it reads and writes number[] (or null).
const vector = { type: new VectorType() as unknown as Type<number[] | null, string | null>, nullable: true } as const

/**
 * A text[] literal with every element quoted: pages and control names are untrusted text, and the
 * ORM's own array literal leaves one such as NULL unquoted (read back as a null element); a raw
 * query's parameter would spread a JavaScript array into a list instead.
 */
export function textArrayLiteral(items: readonly string[]): string {
  return `{${items.map((item) => `"${item.replace(/[\\"]/g, '\\$&')}"`).join(',')}}`
}

/** text[] written as textArrayLiteral writes it. */
class QuotedTextArrayType extends ArrayType<string> {
  override convertToDatabaseValue(value: string[] | null): string | null {
    return value ? textArrayLiteral(value) : null
  }
}

export const FrictionFindingSchema = new EntitySchema<FrictionFinding>({
  class: FrictionFinding,
  tableName: 'friction_findings',
  properties: {
    id: { type: 'uuid', primary: true },
    projectId: { type: 'uuid' },
    environmentId: { type: 'uuid', nullable: true },
    recordingId: { type: 'uuid' },
    kind: { type: 'string' },
    page: { type: 'text' },
    target: { type: 'text' },
    at: { type: 'datetime' },
    userKey: { type: 'text', nullable: true },
    sessionId: { type: 'text', nullable: true },
    narrative: { type: 'text' },
    narrativeBy: { type: 'string' },
    screen: { type: 'text' },
    controlNames: { type: new QuotedTextArrayType(), columnType: 'text[]' },
    subject: { type: 'text' },
    embedding: vector,
    embeddingModel: { type: 'text', nullable: true },
    embeddingOf: { type: 'string', nullable: true },
    createdAt: { type: 'datetime' },
  },
})

export const TicketSchema = new EntitySchema<Ticket>({
  class: Ticket,
  tableName: 'tickets',
  properties: {
    id: { type: 'uuid', primary: true },
    projectId: { type: 'uuid' },
    environmentId: { type: 'uuid', nullable: true },
    issueId: { type: 'uuid' },
    state: { type: 'string' },
    previousState: { type: 'string', nullable: true },
    kind: { type: 'string' },
    page: { type: 'text' },
    target: { type: 'text' },
    narrative: { type: 'text' },
    screen: { type: 'text' },
    controlNames: { type: new QuotedTextArrayType(), columnType: 'text[]' },
    subject: { type: 'text' },
    embedding: vector,
    embeddingModel: { type: 'text', nullable: true },
    embeddingOf: { type: 'string', nullable: true },
    pages: { type: new QuotedTextArrayType(), columnType: 'text[]' },
    matched: { type: 'integer' },
    users: { type: 'integer' },
    checksConfirmed: { type: 'integer' },
    checksRefuted: { type: 'integer' },
    checksInconclusive: { type: 'integer' },
    checksNextAt: { type: 'integer' },
    publishedAt: { type: 'datetime', nullable: true },
    unpublishedAt: { type: 'datetime', nullable: true },
    sameFixTicketId: { type: 'uuid', nullable: true },
    sameFix: { type: 'string', nullable: true },
    createdAt: { type: 'datetime' },
    updatedAt: { type: 'datetime' },
    version: { type: 'integer', version: true },
  },
})

export const TicketMatchSchema = new EntitySchema<TicketMatch>({
  class: TicketMatch,
  tableName: 'ticket_matches',
  properties: {
    ticketId: { type: 'uuid', primary: true },
    findingId: { type: 'uuid', primary: true },
    projectId: { type: 'uuid' },
    recordingId: { type: 'uuid' },
    at: { type: 'datetime' },
    userKey: { type: 'text', nullable: true },
    createdAt: { type: 'datetime' },
  },
})

export const MatchingDecisionSchema = new EntitySchema<MatchingDecision>({
  class: MatchingDecision,
  tableName: 'matching_decisions',
  properties: {
    findingId: { type: 'uuid', primary: true },
    projectId: { type: 'uuid' },
    environmentId: { type: 'uuid', nullable: true },
    decision: { type: 'string' },
    ticketId: { type: 'uuid', nullable: true },
    distance: { type: 'float', nullable: true },
    shortlist: { type: 'json' },
    decidedBy: { type: 'string' },
    decidedAt: { type: 'datetime' },
  },
})

export const IssueRecordingSchema = new EntitySchema<IssueRecording>({
  class: IssueRecording,
  tableName: 'issue_recordings',
  properties: {
    issueId: { type: 'uuid', primary: true },
    projectId: { type: 'uuid' },
    recordingId: { type: 'uuid', primary: true },
    at: { type: 'datetime', primary: true },
  },
})

export const FrictionJobSchema = new EntitySchema<FrictionJob>({
  class: FrictionJob,
  tableName: 'friction_jobs',
  properties: {
    id: { type: 'uuid', primary: true },
    kind: { type: 'string' },
    projectId: { type: 'uuid' },
    environmentId: { type: 'uuid', nullable: true },
    subject: { type: 'uuid' },
    ...leasedProperties('when due'),
    source: { type: 'string' },
    allowMissingEmbeddings: { type: 'boolean' },
    error: { type: 'text', nullable: true },
    createdAt: { type: 'datetime' },
    updatedAt: { type: 'datetime' },
  },
})

/** Every entity of the matcher, for createOrm. */
export const MATCHER_ENTITIES = [FrictionFindingSchema, TicketSchema, TicketMatchSchema, MatchingDecisionSchema, IssueRecordingSchema, FrictionJobSchema]
