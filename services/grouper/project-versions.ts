/**
 * Which fingerprint version each project groups with (projects.grouping_version), remembered for
 * half a minute: a batch costs no query while its projects are known, and `svc grouping-upgrade`
 * takes effect within that time.
 */
import type { Db } from '../../shared/db.js'
import { CURRENT_GROUPING_VERSION } from './grouping/index.js'

const TTL_MS = 30_000

export class ProjectVersions {
  readonly #known = new Map<string, { version: number; until: number }>()

  constructor(readonly db: Db) {}

  /** The version of each project in ids; a project that is gone groups with the current one. */
  async of(ids: Iterable<string>): Promise<Map<string, number>> {
    const now = Date.now()
    const out = new Map<string, number>()
    const missing: string[] = []
    for (const id of new Set(ids)) {
      const known = this.#known.get(id)
      if (known && known.until > now) out.set(id, known.version)
      else missing.push(id)
    }
    if (missing.length === 0) return out
    const { rows } = await this.db.query<{ id: string; grouping_version: number }>('SELECT id, grouping_version FROM projects WHERE id = ANY($1::uuid[])', [missing])
    for (const id of missing) {
      const version = rows.find((row) => row.id === id)?.grouping_version ?? CURRENT_GROUPING_VERSION
      this.#known.set(id, { version, until: now + TTL_MS })
      out.set(id, version)
    }
    return out
  }
}
