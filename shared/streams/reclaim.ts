/** Finding the entries other consumers left pending past their lease (XAUTOCLAIM), with their delivery counts. */
import type { Redis } from 'ioredis'
import { toEntry, type StreamEntry } from './entry.js'
import { compareIds } from './names.js'

interface Claimant {
  group: string
  consumer: string
  leaseMs: number
}

/**
 * Claims, page by page, the entries of source idle for at least the lease, for claimant; each page
 * comes with the attempt each entry is on (its deliveries, the reclaim included).
 */
export async function* reclaimable(redis: Redis, source: string, claimant: Claimant, pageSize: number, goOn: () => boolean): AsyncGenerator<StreamEntry[]> {
  let cursor = '0-0'
  do {
    const [next, rows] = (await redis.xautoclaim(source, claimant.group, claimant.consumer, claimant.leaseMs, cursor, 'COUNT', pageSize)) as [string, Array<[string, string[]] | null>]
    cursor = next
    // Entries deleted from the stream while pending come back as null or without fields.
    const claimed = rows.filter((row): row is [string, string[]] => row !== null && Array.isArray(row[1]))
    if (claimed.length === 0) continue
    const counts = await deliveryCounts(redis, source, claimant, claimed.map(([id]) => id))
    yield claimed.map(([id, flat]) => toEntry(source, id, flat, counts.get(id) ?? 2))
  } while (cursor !== '0-0' && goOn())
}

async function deliveryCounts(redis: Redis, source: string, claimant: Claimant, ids: string[]): Promise<Map<string, number>> {
  const sorted = [...ids].sort(compareIds)
  const rows = (await redis.xpending(source, claimant.group, sorted[0]!, sorted.at(-1)!, ids.length * 2, claimant.consumer)) as Array<[string, string, number, number]>
  return new Map(rows.map(([id, , , count]) => [id, Number(count)]))
}
