/**
 * A project's intake tallies by UTC hour, in Redis (StreamKeys.intakeTally): events the ingress
 * refused (429) and events the grouper counted without storing them whole (docs/quotas.md). The
 * settings page's storage panel and /metrics sum the last 24 hours. A tally is a figure for people,
 * not a record: a process that dies between its work and its HINCRBY leaves it one short.
 */
import type { Redis } from 'ioredis'
import type { StreamKeys } from '../redis.js'
import { HOUR } from '../time.js'

export type IntakeTallyField = 'refused' | 'sampled'

/** Hours a tally key lives: the current hour plus 48 full ones, so 24 full hours are always there. */
export const INTAKE_TALLY_TTL_SECONDS = 49 * 60 * 60

/** The hour number a time falls in (the tally key's suffix). */
export function tallyHour(at: number = Date.now()): number {
  return Math.floor(at / HOUR)
}

/** Adds n to a project's tally for the current hour. */
export async function addIntakeTally(redis: Redis, keys: StreamKeys, projectId: string, field: IntakeTallyField, n: number, at = Date.now()): Promise<void> {
  if (n <= 0) return
  const key = keys.intakeTally(projectId, tallyHour(at))
  await redis.multi().hincrby(key, field, n).expire(key, INTAKE_TALLY_TTL_SECONDS).exec()
}

/** The project's tallies over the last 24 hours (the current hour and the 23 before it). */
export async function intakeLastDay(redis: Redis, keys: StreamKeys, projectId: string, at = Date.now()): Promise<Record<IntakeTallyField, number>> {
  const now = tallyHour(at)
  const pipeline = redis.pipeline()
  for (let h = now - 23; h <= now; h++) pipeline.hmget(keys.intakeTally(projectId, h), 'refused', 'sampled')
  const answers = (await pipeline.exec()) ?? []
  const sum = { refused: 0, sampled: 0 }
  for (const [error, values] of answers) {
    if (error) throw error
    const [refused, sampled] = values as Array<string | null>
    sum.refused += Number(refused ?? 0)
    sum.sampled += Number(sampled ?? 0)
  }
  return sum
}
