/**
 * Which fingerprint version each project groups with (projects.grouping_version), and the one it
 * grouped with before its last upgrade (projects.grouping_previous_version), remembered for half a
 * minute: a batch costs no query while its projects are known, and `svc grouping-upgrade` takes
 * effect within that time.
 */
import type { Db } from '../../shared/db/index.js'
import { CURRENT_GROUPING_VERSION } from './grouping/index.js'

const TTL_MS = 30_000

export interface ProjectGrouping {
  version: number
  /** Set after an upgrade: an error new to version joins the open issue this version's fingerprint has. */
  previous: number | undefined
}

export class ProjectVersions {
  readonly #known = new Map<string, { grouping: ProjectGrouping; until: number }>()

  constructor(readonly db: Db) {}

  /** The grouping of each project in ids; a project that is gone groups with the current version. */
  async of(ids: Iterable<string>): Promise<Map<string, ProjectGrouping>> {
    const now = Date.now()
    const out = new Map<string, ProjectGrouping>()
    const missing: string[] = []
    for (const id of new Set(ids)) {
      const known = this.#known.get(id)
      if (known && known.until > now) out.set(id, known.grouping)
      else missing.push(id)
    }
    if (missing.length === 0) return out
    const { rows } = await this.db.query<{ id: string; grouping_version: number; grouping_previous_version: number | null }>(
      'SELECT id, grouping_version, grouping_previous_version FROM projects WHERE id = ANY($1::uuid[])',
      [missing],
    )
    for (const id of missing) {
      const row = rows.find((candidate) => candidate.id === id)
      const version = row?.grouping_version ?? CURRENT_GROUPING_VERSION
      const previous = row?.grouping_previous_version ?? undefined
      const grouping = { version, previous: previous !== version ? previous : undefined }
      this.#known.set(id, { grouping, until: now + TTL_MS })
      out.set(id, grouping)
    }
    return out
  }
}
