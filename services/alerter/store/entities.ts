/**
 * The alerter's delivery table as a MikroORM entity (migration 086 creates it; the ORM never
 * changes the schema): one chat message folding a project's firings, which is also the leased job
 * that posts it. Rules and firings are written in SQL (rules.ts, record-firings.ts).
 */
import { randomUUID } from 'node:crypto'
import { EntitySchema } from '@mikro-orm/core'
import { leasedProperties } from '../../../shared/jobs/leased-columns.js'

export const DELIVERY_STATES = ['pending', 'sending', 'delivered', 'failed', 'broken'] as const
export type DeliveryState = (typeof DELIVERY_STATES)[number]

/** One alert message of a project (alert_deliveries). */
export class AlertDelivery {
  id: string = randomUUID()
  projectId!: string
  state: DeliveryState = 'pending'
  attempts = 0
  sends = 0
  notBefore: Date = new Date()
  leaseUntil: Date | null = null
  startedAt: Date | null = null
  version = 1
  message: string | null = null
  createdAt: Date = new Date()
  updatedAt: Date = new Date()
  firstSentAt: Date | null = null
  deliveredAt: Date | null = null
  error = ''
}

export const AlertDeliverySchema = new EntitySchema<AlertDelivery>({
  class: AlertDelivery,
  tableName: 'alert_deliveries',
  properties: {
    id: { type: 'uuid', primary: true },
    projectId: { type: 'uuid' },
    ...leasedProperties('when due'),
    sends: { type: 'integer' },
    message: { type: 'text', nullable: true },
    createdAt: { type: 'datetime' },
    updatedAt: { type: 'datetime' },
    firstSentAt: { type: 'datetime', nullable: true },
    deliveredAt: { type: 'datetime', nullable: true },
    error: { type: 'text' },
  },
})

/** Every entity of the alerter, for createOrm. */
export const ALERTER_ENTITIES = [AlertDeliverySchema]
