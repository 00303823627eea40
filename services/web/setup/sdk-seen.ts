/**
 * Records that a browser SDK checked in for a project (a ping from a page), which moves its setup
 * session to app_reporting. Pings come once per tab session, but a busy app still sends many: each
 * project is written at most once a minute per process, off the request's path.
 */
import type { Redis } from 'ioredis'
import type { Db } from '../../../shared/db/index.js'
import { publishWake, type StreamKeys } from '../../../shared/redis.js'
import { MINUTE } from '../../../shared/time.js'

export class SdkSeen {
  readonly #db: Db
  readonly #redis: Redis
  readonly #keys: StreamKeys
  readonly #written = new Map<string, number>()

  constructor(db: Db, redis: Redis, keys: StreamKeys) {
    this.#db = db
    this.#redis = redis
    this.#keys = keys
  }

  /** Notes a browser ping for projectId; never throws and never delays the answer. */
  note(projectId: string): void {
    const now = Date.now()
    if ((this.#written.get(projectId) ?? 0) > now - MINUTE) return
    if (this.#written.size > 10_000) this.#written.clear()
    this.#written.set(projectId, now)
    void this.#db
      .query('UPDATE projects SET sdk_seen_at = now() WHERE id = $1', [projectId])
      .then(() => publishWake(this.#redis, this.#keys.wakeProject(projectId)))
      .catch(() => this.#written.delete(projectId)) // try again on the next ping
  }
}
