/** Which consumer services a worker process hosts (SVC_SERVICES). */
import { ConfigError, text, type Env } from './values.js'

export const SERVICE_NAMES = ['grouper', 'investigator', 'recorder', 'matcher', 'digester', 'alerter'] as const
export type ServiceName = (typeof SERVICE_NAMES)[number]

/** Reads SVC_SERVICES: a comma-separated list of names, or all (the default). */
export function services(env: Env): readonly ServiceName[] {
  const raw = text(env, 'SVC_SERVICES')
  if (raw === undefined || raw === 'all') return [...SERVICE_NAMES]
  const names = raw.split(',').map((s) => s.trim()).filter(Boolean)
  for (const name of names) {
    if (!(SERVICE_NAMES as readonly string[]).includes(name)) {
      throw new ConfigError('SVC_SERVICES', `names unknown service "${name}"; known: ${SERVICE_NAMES.join(', ')} (or "all").`)
    }
  }
  return names as ServiceName[]
}
