/**
 * The investigator's tables as MikroORM entities (migration 006 creates them; the ORM never changes
 * the schema). Investigation carries a version column: every state change is an optimistic-lock
 * update, so a worker that lost its run (its lease lapsed and another took over) cannot write over it.
 */
import { randomUUID } from 'node:crypto'
import { BigIntType, EntitySchema } from '@mikro-orm/core'
import { leasedProperties } from '../../../shared/jobs/leased-columns.js'
import { FixEvidenceSchema, FixSchema } from './fix-entities.js'

export const ACTIVE_STATES = ['queued', 'analyzing'] as const
export const OUTCOME_KINDS = ['investigated', 'insight', 'needs_human'] as const
export type ActiveState = (typeof ACTIVE_STATES)[number]
export type OutcomeKind = (typeof OUTCOME_KINDS)[number]
export type InvestigationState = ActiveState | OutcomeKind
export type InvestigationTrigger = 'auto' | 'regression' | 'manual' | 'agent'

export class Investigation {
  id: string = randomUUID()
  issueId!: string
  projectId!: string
  episode!: number
  trigger!: InvestigationTrigger
  requestedBy: string | null = null
  state: InvestigationState = 'queued'
  attempts = 0
  leaseUntil!: Date
  release: string | null = null
  repo = ''
  repoUrl = ''
  commitSha = ''
  model = ''
  turns = 0
  inputTokens = 0
  outputTokens = 0
  durationMs = 0
  version = 1
  createdAt: Date = new Date()
  startedAt: Date | null = null
  finishedAt: Date | null = null
}

export class InvestigationStep {
  id?: string
  investigationId!: string
  attempt!: number
  seq!: number
  kind!: 'model' | 'tool' | 'check'
  name = ''
  detail = ''
  inputTokens = 0
  outputTokens = 0
  durationMs = 0
  createdAt: Date = new Date()
}

/** Outside-the-code cause of an insight. */
export interface OutsideCause {
  kind: string
  name: string
  evidence: string
}

export class InvestigationOutcome {
  investigationId!: string
  kind!: OutcomeKind
  reasonCode = ''
  reasonMessage = ''
  remediation = ''
  summary = ''
  chain: string[] = []
  fix = ''
  cause: OutsideCause | null = null
  confidence: number | null = null
  createdAt: Date = new Date()
}

export class InvestigationCitation {
  id?: string
  investigationId!: string
  path!: string
  lineStart!: number
  lineEnd!: number
  quote!: string
}

const counter = { type: new BigIntType('number'), default: 0 } as const

export const InvestigationSchema = new EntitySchema<Investigation>({
  class: Investigation,
  tableName: 'investigations',
  properties: {
    id: { type: 'uuid', primary: true },
    issueId: { type: 'uuid' },
    projectId: { type: 'uuid' },
    episode: { type: 'integer' },
    trigger: { type: 'string' },
    requestedBy: { type: 'uuid', nullable: true },
    ...leasedProperties('at once'),
    release: { type: 'text', nullable: true },
    repo: { type: 'text' },
    repoUrl: { type: 'text' },
    commitSha: { type: 'text' },
    model: { type: 'text' },
    turns: { type: 'integer' },
    inputTokens: counter,
    outputTokens: counter,
    durationMs: { type: 'integer' },
    createdAt: { type: 'datetime' },
    finishedAt: { type: 'datetime', nullable: true },
  },
})

export const InvestigationStepSchema = new EntitySchema<InvestigationStep>({
  class: InvestigationStep,
  tableName: 'investigation_steps',
  properties: {
    id: { type: 'bigint', primary: true, autoincrement: true },
    investigationId: { type: 'uuid' },
    attempt: { type: 'integer' },
    seq: { type: 'integer' },
    kind: { type: 'string' },
    name: { type: 'text' },
    detail: { type: 'text' },
    inputTokens: { type: 'integer' },
    outputTokens: { type: 'integer' },
    durationMs: { type: 'integer' },
    createdAt: { type: 'datetime' },
  },
})

export const InvestigationOutcomeSchema = new EntitySchema<InvestigationOutcome>({
  class: InvestigationOutcome,
  tableName: 'investigation_outcomes',
  properties: {
    investigationId: { type: 'uuid', primary: true },
    kind: { type: 'string' },
    reasonCode: { type: 'text' },
    reasonMessage: { type: 'text' },
    remediation: { type: 'text' },
    summary: { type: 'text' },
    chain: { type: 'json' },
    fix: { type: 'text' },
    cause: { type: 'json', nullable: true },
    confidence: { type: 'float', nullable: true },
    createdAt: { type: 'datetime' },
  },
})

export const InvestigationCitationSchema = new EntitySchema<InvestigationCitation>({
  class: InvestigationCitation,
  tableName: 'investigation_citations',
  properties: {
    id: { type: 'bigint', primary: true, autoincrement: true },
    investigationId: { type: 'uuid' },
    path: { type: 'text' },
    lineStart: { type: 'integer' },
    lineEnd: { type: 'integer' },
    quote: { type: 'text' },
  },
})

/** Every entity of the investigator (the fix stage's included), for createOrm. */
export const INVESTIGATOR_ENTITIES = [InvestigationSchema, InvestigationStepSchema, InvestigationOutcomeSchema, InvestigationCitationSchema, FixSchema, FixEvidenceSchema]
