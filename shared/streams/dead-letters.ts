/**
 * Dead letters: entries that failed their last attempt wait in `<stream>:dead:<group>` with the
 * error. Once the cause is fixed an operator lists them and replays them: each goes back on its
 * group's retry path (never the main stream, which other groups read) with fresh attempts, and
 * leaves the dead-letter stream in the same step, so a replay twice cannot double it.
 */
import type { Redis } from 'ioredis'
import { groupKeys } from './names.js'

export interface DeadLetter {
  id: string
  /** Id of the entry on the main stream it came from. */
  origin: string
  attempts: number
  error: string
  /** Events it carries (a packed entry carries several). */
  events: number
}

// KEYS[1] dead stream, KEYS[2] delayed set; ARGV[1] due time, ARGV[2..] dead-letter ids.
// Runtime fields (__origin, __group, __attempts, __error) are dropped; the entry's own fields go
// back as a retry with attempt 1. Answers how many were moved.
const REPLAY_LUA = `
local moved = 0
for i = 2, #ARGV do
  local rows = redis.call('XRANGE', KEYS[1], ARGV[i], ARGV[i])
  if #rows == 1 then
    local flat = rows[1][2]
    local fields = {}
    local origin = ARGV[i]
    for k = 1, #flat, 2 do
      local name = flat[k]
      if name == '__origin' then origin = flat[k + 1]
      elseif string.sub(name, 1, 2) ~= '__' then fields[name] = flat[k + 1] end
    end
    redis.call('ZADD', KEYS[2], tonumber(ARGV[1]), cjson.encode({ f = fields, a = 1, o = origin }))
    redis.call('XDEL', KEYS[1], ARGV[i])
    moved = moved + 1
  end
end
return moved
`

/** The oldest dead letters of a group, at most limit, without their payloads. */
export async function listDeadLetters(redis: Redis, stream: string, group: string, limit: number): Promise<DeadLetter[]> {
  const rows = (await redis.xrange(groupKeys(stream, group).dead, '-', '+', 'COUNT', limit)) as Array<[string, string[]]>
  return rows.map(([id, flat]) => {
    const fields: Record<string, string> = {}
    for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i]!] = flat[i + 1]!
    return { id, origin: fields.__origin ?? id, attempts: Number(fields.__attempts ?? 0), error: fields.__error ?? '', events: fields.n ? Number(fields.n) : 1 }
  })
}

/** Puts the named dead letters back on their group's retry path, due now; answers how many moved. */
export async function replayDeadLetters(redis: Redis, stream: string, group: string, ids: readonly string[]): Promise<number> {
  if (ids.length === 0) return 0
  const keys = groupKeys(stream, group)
  return Number(await redis.eval(REPLAY_LUA, 2, keys.dead, keys.delayed, Date.now(), ...ids))
}

/**
 * Removes dead letters older than keepMs from every group's dead-letter stream (XTRIM MINID: a
 * dead letter's id is the time it was dead-lettered). Exact trimming, unbounded by count: dead
 * letters are entries that failed every attempt, few by nature, and XTRIM frees whole nodes
 * cheaply. Answers how many went.
 */
export async function trimDeadLetters(redis: Redis, streams: ReadonlyArray<{ stream: string; groups: readonly string[] }>, keepMs: number, now: number = Date.now()): Promise<number> {
  const minId = `${Math.max(0, now - keepMs)}-0`
  const pipeline = redis.pipeline()
  for (const { stream, groups } of streams) for (const group of groups) pipeline.xtrim(groupKeys(stream, group).dead, 'MINID', minId)
  let removed = 0
  for (const [error, count] of (await pipeline.exec()) ?? []) {
    if (error) throw error
    removed += Number(count)
  }
  return removed
}
