/**
 * The digester's metrics (docs/metrics.md), declared in one place: how digests end, and how their
 * items came out of the check. The stream runtime already times each step as a batch of stream:digests.
 */
import { Counter } from '../../shared/metrics.js'

const digests = new Counter({ name: 'svc_digests_finished_total', help: 'Digests that ended, by state (delivered, kept, empty, undelivered).', labelNames: ['state'] })
const items = new Counter({ name: 'svc_digest_items_checked_total', help: 'Digest items checked, by result (written: the written paragraph was sent; mechanical: it fell back).', labelNames: ['result'] })

// Every value a label can take starts at 0, so the first of each shows in increase().
for (const state of ['delivered', 'kept', 'empty', 'undelivered']) digests.inc({ state }, 0)
for (const result of ['written', 'mechanical']) items.inc({ result }, 0)

/** Counts a digest's end, once it is committed. */
export function countDigestEnd(state: string): void {
  digests.inc({ state })
}

/** Counts the check's verdicts, once they are committed. */
export function countCheckedItems(written: number, mechanical: number): void {
  items.inc({ result: 'written' }, written)
  items.inc({ result: 'mechanical' }, mechanical)
}
