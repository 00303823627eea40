/** Creating groups and reading their depth and activity. */
import type { Redis } from 'ioredis'
import { groupKeys, pairs } from './names.js'

/** Creates the group on the stream and on its retry stream (from the start; idempotent). */
export async function ensureGroup(redis: Redis, stream: string, group: string): Promise<void> {
  for (const key of [stream, groupKeys(stream, group).retry]) {
    try {
      await redis.xgroup('CREATE', key, group, '0', 'MKSTREAM')
    } catch (error) {
      if (!String((error as Error).message).includes('BUSYGROUP')) throw error
    }
  }
}

export interface Depth {
  /** Undelivered + redelivered-for-retry + delivered-but-unacknowledged entries. */
  eligible: number
  /** Entries waiting out a retry backoff. */
  heldBack: number
  /** Delivered and not yet acknowledged (part of eligible). */
  pending: number
  /** Never delivered to the group yet (part of eligible). */
  lag: number
  /** On the group's retry stream: due again, or taken again and not yet settled (part of eligible). */
  retry: number
  deadLettered: number
}

/** Reads a group's queue depth. */
export async function queueDepth(redis: Redis, stream: string, group: string): Promise<Depth> {
  const keys = groupKeys(stream, group)
  const info = await groupInfo(redis, stream, group)
  let lag = 0
  let pending = 0
  if (info) {
    pending = Number(info.pending ?? 0)
    lag = info.lag === null || info.lag === undefined ? await countAfter(redis, stream, String(info['last-delivered-id'])) : Number(info.lag)
  } else {
    lag = await redis.xlen(stream).catch(() => 0)
  }
  // Handled retry entries are deleted, so the retry stream holds exactly the waiting and in-flight ones.
  const [retry, heldBack, dead] = await Promise.all([redis.xlen(keys.retry), redis.zcard(keys.delayed), redis.xlen(keys.dead)])
  return { eligible: lag + pending + retry, heldBack, pending, lag, retry, deadLettered: dead }
}

/** How many consumers a group has and the smallest idle time among them (Infinity if none). */
export async function groupActivity(redis: Redis, stream: string, group: string): Promise<{ consumers: number; minIdleMs: number }> {
  let rows: unknown[]
  try {
    rows = (await redis.xinfo('CONSUMERS', stream, group)) as unknown[]
  } catch {
    return { consumers: 0, minIdleMs: Infinity }
  }
  const idles = rows.map((row) => Number(pairs(row as unknown[]).idle ?? Infinity))
  return { consumers: rows.length, minIdleMs: Math.min(Infinity, ...idles) }
}

// Removes, in one step, the consumers holding nothing that have been idle past ARGV[2] ms. One step,
// because a consumer removed while it holds entries would take them out of the pending list for good.
const PRUNE_LUA = `
local removed = 0
for _, row in ipairs(redis.call('XINFO', 'CONSUMERS', KEYS[1], ARGV[1])) do
  local c = {}
  for i = 1, #row, 2 do c[row[i]] = row[i + 1] end
  if tonumber(c['pending']) == 0 and tonumber(c['idle']) > tonumber(ARGV[2]) then
    redis.call('XGROUP', 'DELCONSUMER', KEYS[1], ARGV[1], c['name'])
    removed = removed + 1
  end
end
return removed
`

/**
 * Forgets the group's consumers that hold nothing and were last seen over idleMs ago: every process
 * start names its consumers afresh, so each restart or crash would otherwise leave names behind.
 */
export async function pruneConsumers(redis: Redis, stream: string, group: string, idleMs: number): Promise<number> {
  try {
    return (await redis.eval(PRUNE_LUA, 1, stream, group, idleMs)) as number
  } catch (error) {
    if (/no such key|NOGROUP/i.test(String((error as Error).message))) return 0
    throw error
  }
}

/** XINFO GROUPS entry for one group, or undefined when the stream or group does not exist. */
export async function groupInfo(redis: Redis, stream: string, group: string): Promise<Record<string, unknown> | undefined> {
  let rows: unknown[]
  try {
    rows = (await redis.xinfo('GROUPS', stream)) as unknown[]
  } catch {
    return undefined
  }
  return rows.map((row) => pairs(row as unknown[])).find((row) => row.name === group)
}

async function countAfter(redis: Redis, stream: string, lastDelivered: string): Promise<number> {
  // Only when Redis cannot say the lag (after deletions): count, bounded, what lies past the group.
  const entries = await redis.xrange(stream, `(${lastDelivered}`, '+', 'COUNT', 100_000)
  return entries.length
}
