/**
 * The fix stage's tables as MikroORM entities (migration 007). Fix carries a version column like
 * Investigation: every state change is an optimistic-lock update. FixEvidence rows are the executed
 * checks (E0, E1, E2), never claims.
 */
import { randomUUID } from 'node:crypto'
import { BigIntType, EntitySchema } from '@mikro-orm/core'
import { leasedProperties } from '../../../shared/jobs/leased-columns.js'

export const FIX_ACTIVE_STATES = ['queued', 'fixing'] as const
/** merged and closed: the delivered pull request's end, seen by the webhook or the poller (pull-requests/). */
export const FIX_FINAL_STATES = ['pr_draft', 'pr_created', 'needs_human', 'merged', 'closed'] as const
export type FixState = (typeof FIX_ACTIVE_STATES)[number] | (typeof FIX_FINAL_STATES)[number]
/** auto: after an automatic investigation; manual: a person asked; agent: a coding agent asked over the tool server (drafts only). */
export type FixTrigger = 'auto' | 'manual' | 'agent'
export type Delivery = 'draft' | 'limited_draft' | 'ready'
export type EvidenceTier = 'setup' | 'E0' | 'E1' | 'E2'
/** The delivered pull request's state as last seen on the code host ('' before the first look). */
export type PullRequestSeenState = '' | 'open' | 'merged' | 'closed'

export class Fix {
  id: string = randomUUID()
  investigationId!: string
  issueId!: string
  projectId!: string
  trigger!: FixTrigger
  requestedBy: string | null = null
  state: FixState = 'queued'
  attempts = 0
  leaseUntil!: Date
  repo = ''
  baseSha = ''
  branch = ''
  testFile = ''
  summary = ''
  diff = ''
  review: '' | 'approved' | 'vetoed' = ''
  reviewReason = ''
  delivery: '' | Delivery = ''
  prNumber: number | null = null
  prUrl = ''
  headSha = ''
  /** The pull request was ready for review (not a draft) right after this fix delivered to it. */
  prReady = false
  ciState = ''
  ciCheckedAt: Date | null = null
  prState: PullRequestSeenState = ''
  prMergedAt: Date | null = null
  prClosedAt: Date | null = null
  prMergeSha = ''
  /** When the poller last read the pull request: it reads the oldest first. */
  prCheckedAt: Date | null = null
  reasonCode = ''
  reasonMessage = ''
  remediation = ''
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

export class FixEvidence {
  id?: string
  fixId!: string
  attempt!: number
  seq!: number
  tier!: EvidenceTier
  phase!: 'baseline' | 'fix'
  command!: string
  exitCode: number | null = null
  timedOut = false
  outputCapped = false
  infraError = ''
  met!: boolean
  excerpt = ''
  durationMs = 0
  createdAt: Date = new Date()
}

const counter = { type: new BigIntType('number'), default: 0 } as const

export const FixSchema = new EntitySchema<Fix>({
  class: Fix,
  tableName: 'fixes',
  properties: {
    id: { type: 'uuid', primary: true },
    investigationId: { type: 'uuid' },
    issueId: { type: 'uuid' },
    projectId: { type: 'uuid' },
    trigger: { type: 'string' },
    requestedBy: { type: 'uuid', nullable: true },
    ...leasedProperties('at once'),
    repo: { type: 'text' },
    baseSha: { type: 'text' },
    branch: { type: 'text' },
    testFile: { type: 'text' },
    summary: { type: 'text' },
    diff: { type: 'text' },
    review: { type: 'string' },
    reviewReason: { type: 'text' },
    delivery: { type: 'string' },
    prNumber: { type: 'integer', nullable: true },
    prUrl: { type: 'text' },
    headSha: { type: 'text' },
    prReady: { type: 'boolean' },
    ciState: { type: 'text' },
    ciCheckedAt: { type: 'datetime', nullable: true },
    prState: { type: 'string' },
    prMergedAt: { type: 'datetime', nullable: true },
    prClosedAt: { type: 'datetime', nullable: true },
    prMergeSha: { type: 'text' },
    prCheckedAt: { type: 'datetime', nullable: true },
    reasonCode: { type: 'text' },
    reasonMessage: { type: 'text' },
    remediation: { type: 'text' },
    model: { type: 'text' },
    turns: { type: 'integer' },
    inputTokens: counter,
    outputTokens: counter,
    durationMs: { type: 'integer' },
    createdAt: { type: 'datetime' },
    finishedAt: { type: 'datetime', nullable: true },
  },
})

export const FixEvidenceSchema = new EntitySchema<FixEvidence>({
  class: FixEvidence,
  tableName: 'fix_evidence',
  properties: {
    id: { type: 'bigint', primary: true, autoincrement: true },
    fixId: { type: 'uuid' },
    attempt: { type: 'integer' },
    seq: { type: 'integer' },
    tier: { type: 'string' },
    phase: { type: 'string' },
    command: { type: 'text' },
    exitCode: { type: 'integer', nullable: true },
    timedOut: { type: 'boolean' },
    outputCapped: { type: 'boolean' },
    infraError: { type: 'text' },
    met: { type: 'boolean' },
    excerpt: { type: 'text' },
    durationMs: { type: 'integer' },
    createdAt: { type: 'datetime' },
  },
})
