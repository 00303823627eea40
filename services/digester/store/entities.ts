/**
 * The digester's tables as MikroORM entities (migration 079 creates them; the ORM never changes
 * the schema): a digest per project and local date, which is also the leased job that writes,
 * checks and delivers it, and its items, the frozen facts of each entry it picked.
 */
import { randomUUID } from 'node:crypto'
import { EntitySchema } from '@mikro-orm/core'
import { leasedProperties } from '../../../shared/jobs/leased-columns.js'

export const DIGEST_STATES = ['queued', 'running', 'delivered', 'kept', 'empty', 'undelivered'] as const
export type DigestState = (typeof DIGEST_STATES)[number]
export type DigestStep = 'write' | 'check' | 'deliver'
export type ItemOutcome = 'cause_found' | 'outside_code' | 'fix_draft' | 'fix_ready' | 'fix_held' | 'fix_came_back'

/** A link in an item: what it is, and where. */
export interface ItemLink {
  label: string
  url: string
}

/** One project's digest for one local date (digests). */
export class Digest {
  id: string = randomUUID()
  projectId!: string
  localDate!: string
  timezone!: string
  dueAt!: Date
  state: DigestState = 'queued'
  step: DigestStep = 'write'
  notBefore!: Date
  attempts = 0
  leaseUntil: Date | null = null
  startedAt: Date | null = null
  version = 1
  windowStart: Date | null = null
  windowEnd: Date | null = null
  writtenBy: '' | 'model' | 'mechanical' = ''
  writtenText = ''
  writtenVersion = ''
  writeAttempts = 0
  writtenAt: Date | null = null
  checkedAt: Date | null = null
  payload: string | null = null
  deliveryAttempts = 0
  deliveredAt: Date | null = null
  errorCode = ''
  error = ''
  createdAt: Date = new Date()
  updatedAt: Date = new Date()
}

/** One entry of a digest with its frozen facts (digest_items). */
export class DigestItem {
  digestId!: string
  position!: number
  subject!: 'issue' | 'known_problem'
  issueId!: string
  ticketId: string | null = null
  title!: string
  outcome!: ItemOutcome
  users!: number
  prUrl = ''
  links: ItemLink[] = []
  completedAt!: Date
  mechanical!: string
  checkResult: '' | 'written' | 'mechanical' = ''
  checkReason = ''
}

export const DigestSchema = new EntitySchema<Digest>({
  class: Digest,
  tableName: 'digests',
  properties: {
    id: { type: 'uuid', primary: true },
    projectId: { type: 'uuid' },
    localDate: { type: 'string', columnType: 'date' },
    timezone: { type: 'text' },
    dueAt: { type: 'datetime' },
    ...leasedProperties('when due'),
    step: { type: 'string' },
    windowStart: { type: 'datetime', nullable: true },
    windowEnd: { type: 'datetime', nullable: true },
    writtenBy: { type: 'string' },
    writtenText: { type: 'text' },
    writtenVersion: { type: 'text' },
    writeAttempts: { type: 'integer' },
    writtenAt: { type: 'datetime', nullable: true },
    checkedAt: { type: 'datetime', nullable: true },
    payload: { type: 'text', nullable: true },
    deliveryAttempts: { type: 'integer' },
    deliveredAt: { type: 'datetime', nullable: true },
    errorCode: { type: 'text' },
    error: { type: 'text' },
    createdAt: { type: 'datetime' },
    updatedAt: { type: 'datetime' },
  },
})

export const DigestItemSchema = new EntitySchema<DigestItem>({
  class: DigestItem,
  tableName: 'digest_items',
  properties: {
    digestId: { type: 'uuid', primary: true },
    position: { type: 'integer', primary: true },
    subject: { type: 'string' },
    issueId: { type: 'uuid' },
    ticketId: { type: 'uuid', nullable: true },
    title: { type: 'text' },
    outcome: { type: 'string' },
    users: { type: 'integer' },
    prUrl: { type: 'text' },
    links: { type: 'json' },
    completedAt: { type: 'datetime' },
    mechanical: { type: 'text' },
    checkResult: { type: 'string' },
    checkReason: { type: 'text' },
  },
})

/** Every entity of the digester, for createOrm. */
export const DIGESTER_ENTITIES = [DigestSchema, DigestItemSchema]
