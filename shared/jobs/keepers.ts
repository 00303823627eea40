/**
 * What keeps a running job's holds alive: a renewal every third of the lease (a lapsed lease is
 * what the sweeper takes back), and the wait for a fleet slot that keeps the queued row's lease
 * alive meanwhile, so a job waiting its turn is not mistaken for a lost one.
 */
import type { EntityManager } from '@mikro-orm/postgresql'
import { sleep, SECOND } from '../time.js'
import type { FleetSlots } from './slots.js'

/** How often a waiting job asks for a slot. */
const SLOT_POLL = 1 * SECOND

/** Calls renew every leaseMs / 3 until the returned function is called; a failed renewal is left to the next. */
export function keepRenewing(renew: () => Promise<unknown>, leaseMs: number): () => void {
  const timer = setInterval(() => void renew().catch(() => undefined), leaseMs / 3)
  return () => clearInterval(timer)
}

/** Waits for a fleet slot, keeping the queued row's lease alive; false when the job should not go on (aborted, or the row moved on). */
export async function waitForSlot(slots: FleetSlots, leaseMs: number, em: EntityManager, row: { leaseUntil: Date | null }, holder: string, signal: AbortSignal): Promise<boolean> {
  let lastRenewal = Date.now()
  while (!(await slots.tryAcquire(holder))) {
    if (signal.aborted) return false
    if (Date.now() - lastRenewal >= leaseMs / 3) {
      lastRenewal = Date.now()
      row.leaseUntil = new Date(Date.now() + leaseMs)
      try {
        await em.flush()
      } catch {
        return false // the row moved on (a person stopped it, or another worker claimed it)
      }
    }
    await sleep(SLOT_POLL, signal)
  }
  return true
}
