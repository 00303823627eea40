/**
 * A project's DSN for Sentry's SDKs (docs/sentry-sdk.md): the service's public address with the
 * ingest key as the user part and the project's DSN number as the last path segment, so an app
 * that ships @sentry/browser switches by changing this one string. Sentry's SDKs post to
 * <address>/api/<number>/envelope/, which the ingress answers.
 */
import type { Queryable } from '../../../shared/db/index.js'

/** The DSN for ingestToken (an svc_pk_ key) of the project numbered dsnNumber, served at baseUrl. */
export function sentryDsn(baseUrl: string, ingestToken: string, dsnNumber: number | string): string {
  const url = new URL(baseUrl)
  const path = url.pathname.replace(/\/+$/, '')
  return `${url.protocol}//${ingestToken}@${url.host}${path}/${dsnNumber}`
}

/** The two lines a Sentry SDK user changes: the DSN, in the init they already have. */
export function sentrySnippet(dsn: string): string {
  return `import * as Sentry from '@sentry/browser'\n\nSentry.init({ dsn: '${dsn}' })`
}

/** The project's DSN number, or undefined for an unknown project. */
export async function readDsnNumber(db: Queryable, projectId: string): Promise<string | undefined> {
  const { rows } = await db.query<{ dsn_number: string }>('SELECT dsn_number FROM projects WHERE id = $1', [projectId])
  return rows[0]?.dsn_number
}
