/**
 * The id an accepted event is stored under. When the sender gave its own (`event_id`, as the SDK
 * does), the id is derived from it and the project: the same event sent again, because an answer
 * was lost (a Redis restart between the write and the reply, a connection cut after the 202), gets
 * the same id and is stored once. Derived, not taken as it is, so one project's ids can never
 * collide with another's. Without one, a random id: such a sender's resends are new events.
 */
import { createHash, randomUUID } from 'node:crypto'

/** UUID version 5 (RFC 9562): SHA-1 of the project's id as namespace and the sender's id. */
export function storedEventId(projectId: string, senderEventId: string | undefined): string {
  if (!senderEventId) return randomUUID()
  const name = senderEventId.replaceAll('-', '').toLowerCase()
  const hash = createHash('sha1').update(Buffer.from(projectId.replaceAll('-', ''), 'hex')).update(name).digest()
  hash[6] = (hash[6]! & 0x0f) | 0x50
  hash[8] = (hash[8]! & 0x3f) | 0x80
  const hex = hash.subarray(0, 16).toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}
