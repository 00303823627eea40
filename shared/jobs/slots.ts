/**
 * A fleet-wide cap on leased jobs running at once (the investigator's INVESTIGATION_MAX_CONCURRENT,
 * shared by investigations and fixes): a Redis sorted set of holders scored by the time their hold
 * lapses. A holder renews while it runs, so a worker that died frees its slot within one lease; a
 * cap of 0 pauses the jobs everywhere.
 */
import type { Redis } from 'ioredis'

// KEYS[1] slots; ARGV: holder, now, lapse, max. Drops lapsed holders, then takes a slot if one is free.
const ACQUIRE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
  return 1
end
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[4]) then
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
  return 1
end
return 0`

// Renews only a hold that still exists (XX), so a lapsed one is not brought back.
const RENEW = `return redis.call('ZADD', KEYS[1], 'XX', 'CH', ARGV[2], ARGV[1])`

export class FleetSlots {
  constructor(
    private readonly redis: Redis,
    private readonly key: string,
    readonly max: number,
    private readonly leaseMs: number,
  ) {}

  /** Takes a slot for holder if one is free now. */
  async tryAcquire(holder: string): Promise<boolean> {
    if (this.max <= 0) return false
    const now = Date.now()
    return (await this.redis.eval(ACQUIRE, 1, this.key, holder, now, now + this.leaseMs, this.max)) === 1
  }

  /** Pushes holder's lapse time forward; false when the hold had lapsed already. */
  async renew(holder: string): Promise<boolean> {
    return (await this.redis.eval(RENEW, 1, this.key, holder, Date.now() + this.leaseMs)) === 1
  }

  async release(holder: string): Promise<void> {
    await this.redis.zrem(this.key, holder)
  }

  /** Holders whose hold has not lapsed: the jobs running across the fleet. */
  async running(): Promise<number> {
    return this.redis.zcount(this.key, Date.now(), '+inf')
  }
}
