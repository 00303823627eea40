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
  return { eligible: lag + pending + retry, heldBack, pending, deadLettered: dead }
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
