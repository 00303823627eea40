/**
 * Finds or creates the environments a batch names, as one statement over arrays (known ones are not
 * looked up): the grouper's events and the recorder's chunks name them alike, so both make them here.
 */
import type pg from 'pg'
import type { KnownIds } from './known-ids.js'

/** What an event says of its environment. */
export interface EnvironmentCandidate {
  envelope: { projectId: string }
  facts: { environment: string | undefined }
}

/** The key of an event's environment among the known ids. */
export function environmentKey(x: EnvironmentCandidate): string {
  return `${x.envelope.projectId}|${x.facts.environment ?? ''}`
}

/** The environment id of each environment the batch names, by environmentKey. */
export async function upsertEnvironments(client: pg.PoolClient, prepared: readonly EnvironmentCandidate[], known: KnownIds): Promise<Map<string, string>> {
  const ids = new Map<string, string>()
  const wanted = new Map<string, [string, string]>()
  for (const x of prepared) {
    if (!x.facts.environment) continue
    const key = environmentKey(x)
    const id = known.get(key)
    if (id !== undefined) ids.set(key, id)
    else wanted.set(key, [x.envelope.projectId, x.facts.environment])
  }
  if (wanted.size === 0) return ids
  const pairs = [...wanted.values()].sort(byTuple)
  const projects = pairs.map((p) => p[0])
  const names = pairs.map((p) => p[1])
  await client.query(
    `INSERT INTO environments (project_id, name) SELECT * FROM unnest($1::uuid[], $2::text[]) ON CONFLICT DO NOTHING`,
    [projects, names],
  )
  const { rows } = await client.query<{ id: string; project_id: string; name: string }>(
    `SELECT e.id, e.project_id, e.name FROM environments e
     JOIN unnest($1::uuid[], $2::text[]) AS w(project_id, name) ON e.project_id = w.project_id AND e.name = w.name`,
    [projects, names],
  )
  for (const row of rows) ids.set(`${row.project_id}|${row.name}`, row.id)
  return ids
}

function byTuple(a: [string, string], b: [string, string]): number {
  return a[0] === b[0] ? (a[1] < b[1] ? -1 : 1) : a[0] < b[0] ? -1 : 1
}
