/** The object store's settings (SVC_OBJECT_DIR, or S3_* when S3_ENDPOINT is set), read by config.ts. */
import { resolve } from 'node:path'
import { ConfigError, text, url, type Env } from './values.js'

export interface ObjectStoreConfig {
  readonly kind: 'fs' | 's3'
  /** Local folder when kind is fs. */
  readonly dir: string
  readonly s3: { endpoint: string; bucket: string; region: string; accessKeyId: string; secretAccessKey: string } | undefined
}

/** The store the environment names: a folder under dataDir unless S3_ENDPOINT is set, then S3 with its required settings. */
export function objectStore(env: Env, dataDir: string): ObjectStoreConfig {
  const endpoint = url(env, 'S3_ENDPOINT')
  const dir = resolve(text(env, 'SVC_OBJECT_DIR') ?? `${dataDir}/objects`)
  if (endpoint === undefined) return { kind: 'fs', dir, s3: undefined }
  const required = (name: string): string => {
    const value = text(env, name)
    if (value === undefined) throw new ConfigError(name, `is required when S3_ENDPOINT is set. Set it, or unset S3_ENDPOINT to keep objects in ${dir}.`)
    return value
  }
  return {
    kind: 's3',
    dir,
    s3: {
      endpoint,
      bucket: required('S3_BUCKET'),
      region: text(env, 'S3_REGION') ?? 'us-east-1',
      accessKeyId: required('S3_ACCESS_KEY_ID'),
      secretAccessKey: required('S3_SECRET_ACCESS_KEY'),
    },
  }
}
