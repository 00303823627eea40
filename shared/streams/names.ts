/**
 * Key names the runtime derives from a stream and group. Retries belong to one group, so they
 * never re-enter the main stream (other groups would see them again):
 *   <stream>:delayed:<group>  sorted set: entries waiting out a backoff, scored by due time
 *   <stream>:retry:<group>    stream read only by <group>: entries whose backoff has passed
 *   <stream>:dead:<group>     stream: entries that failed their last attempt, with the error
 */
export interface GroupKeys {
  stream: string
  group: string
  delayed: string
  retry: string
  dead: string
}

/** The keys a group uses on a stream. */
export function groupKeys(stream: string, group: string): GroupKeys {
  return { stream, group, delayed: `${stream}:delayed:${group}`, retry: `${stream}:retry:${group}`, dead: `${stream}:dead:${group}` }
}

/** Compares two stream ids ("ms-seq") numerically. */
export function compareIds(a: string, b: string): number {
  const [am, as] = split(a)
  const [bm, bs] = split(b)
  return am === bm ? as - bs : am - bm
}

/** The smallest id greater than id. */
export function nextId(id: string): string {
  const [ms, seq] = split(id)
  return `${ms}-${seq + 1}`
}

function split(id: string): [number, number] {
  const [ms, seq] = id.split('-')
  return [Number(ms), Number(seq ?? 0)]
}

/** Turns Redis's flat [k1, v1, k2, v2] replies into an object. */
export function pairs(flat: readonly unknown[]): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (let i = 0; i + 1 < flat.length; i += 2) out[String(flat[i])] = flat[i + 1]
  return out
}
