/**
 * The writes that end a consumer's hold on an entry, each one MULTI: acknowledge it, move it to the
 * group's delayed set for a retry, replace it by its parts, or dead-letter it. An entry read from
 * the group's retry stream is also deleted there, so that stream holds only waiting entries. And
 * the move that brings delayed entries back once they are due.
 */
import type { ChainableCommander, Redis } from 'ioredis'
import type { StreamEntry } from './entry.js'
import type { GroupKeys } from './names.js'

function release(multi: ChainableCommander, keys: GroupKeys, entry: StreamEntry): ChainableCommander {
  multi.xack(entry.source, keys.group, entry.id)
  if (entry.source === keys.retry) multi.xdel(entry.source, entry.id)
  return multi
}

/** Acknowledges entries whose work committed. */
export async function acknowledge(redis: Redis, keys: GroupKeys, entries: readonly StreamEntry[]): Promise<void> {
  const multi = redis.multi()
  for (const entry of entries) release(multi, keys, entry)
  await multi.exec()
}

/** Parks entry in the delayed set, due after delayMs, on its next attempt. */
export async function delayRetry(redis: Redis, keys: GroupKeys, entry: StreamEntry, delayMs: number): Promise<void> {
  const item = JSON.stringify({ f: entry.fields, a: entry.attempt + 1, o: entry.origin })
  await release(redis.multi().zadd(keys.delayed, Date.now() + delayMs, item), keys, entry).exec()
}

/** Replaces entry by its parts, due at once on the retry path, with the attempts it has used. */
export async function replaceByParts(redis: Redis, keys: GroupKeys, entry: StreamEntry, parts: ReadonlyArray<Record<string, string>>): Promise<void> {
  const now = Date.now()
  const multi = redis.multi()
  for (const f of parts) multi.zadd(keys.delayed, now, JSON.stringify({ f, a: entry.attempt, o: entry.origin }))
  await release(multi, keys, entry).exec()
}

/** Copies entry with its error to the dead-letter stream and releases it. */
export async function deadLetter(redis: Redis, keys: GroupKeys, entry: StreamEntry, error: Error): Promise<void> {
  const fields = Object.entries(entry.fields).flat()
  const multi = redis.multi().xadd(keys.dead, '*', ...fields, '__origin', entry.origin, '__group', keys.group, '__attempts', String(entry.attempt), '__error', String(error.message).slice(0, 2000))
  await release(multi, keys, entry).exec()
}

// Moves due entries from the delayed set to the retry stream, atomically, so two consumers
// running it at once cannot move one entry twice.
const MOVE_DUE_LUA = `
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
for _, item in ipairs(due) do
  local entry = cjson.decode(item)
  local args = {}
  for k, v in pairs(entry.f) do table.insert(args, k); table.insert(args, v) end
  table.insert(args, '__attempt'); table.insert(args, tostring(entry.a))
  table.insert(args, '__origin'); table.insert(args, entry.o)
  redis.call('XADD', KEYS[2], '*', unpack(args))
  redis.call('ZREM', KEYS[1], item)
end
return #due
`

/**
 * Moves up to limit due entries from the group's delayed set to its retry stream. The runtime's
 * scripts go by EVAL rather than defineCommand: the connection is shared and auto-pipelined, and
 * a command defined while an automatic pipeline is open crashes ioredis ("results[i] is not
 * iterable", ioredis issue 1931). Redis caches the compiled script either way.
 */
export async function moveDue(redis: Redis, keys: GroupKeys, now: number, limit: number): Promise<number> {
  return (await redis.eval(MOVE_DUE_LUA, 2, keys.delayed, keys.retry, now, limit)) as number
}
