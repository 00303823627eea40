/**
 * Where large blobs go (source maps, recording chunks): put, get and delete by key, served by an
 * objectstore plugin. objectstore-fs (a local folder, SVC_OBJECT_DIR) is the default;
 * objectstore-s3 is chosen when S3_ENDPOINT is set. Services see only ObjectStore.
 */
import type { ObjectStoreConfig } from './config/index.js'
import { createLogger, type Logger } from './log.js'
import { loadPlugin } from './plugins/loader.js'
import { PluginError } from './plugins/plugin-error.js'
import { ObjectStoreUnavailable, type ObjectStorePlugin } from './plugins/types.js'
import { SECOND } from './time.js'

export { ObjectStoreUnavailable }

/**
 * A store of objects by key; get answers undefined for a missing key, delete ignores one, and each
 * throws ObjectStoreUnavailable when the store cannot be used.
 */
export type ObjectStore = Pick<ObjectStorePlugin, 'put' | 'get' | 'delete'>

/** The variable behind each setting, so a bad one is reported with what to fix. */
const SETTING_SOURCES = Object.freeze({
  dir: 'SVC_OBJECT_DIR',
  endpoint: 'S3_ENDPOINT',
  bucket: 'S3_BUCKET',
  region: 'S3_REGION',
  accessKeyId: 'S3_ACCESS_KEY_ID',
  secretAccessKey: 'S3_SECRET_ACCESS_KEY',
})

/**
 * Loads the store the configuration names and checks it once. A misconfigured store (no such
 * bucket, credentials refused, a folder that cannot be written) stops start-up with a
 * PluginError; a store that is merely down only logs a warning, since ingestion does not need it
 * and uploads answer 503 until it is back.
 */
export async function createObjectStore(config: ObjectStoreConfig, log: Logger = createLogger('warn')): Promise<ObjectStore> {
  const name = config.kind === 's3' ? 'objectstore-s3' : 'objectstore-fs'
  const settings: Record<string, unknown> = config.kind === 's3' && config.s3 ? { ...config.s3 } : { dir: config.dir }
  const pluginLog = log.child({ plugin: name })
  const store = await loadPlugin('objectstore', name, settings, { log: pluginLog }, { settingSources: SETTING_SOURCES })
  try {
    await store.check()
  } catch (error) {
    if (!(error instanceof ObjectStoreUnavailable)) throw error
    if (error.fault === 'misconfigured') throw new PluginError(name, 'objectstore', `cannot be used: ${error.message}`)
    pluginLog.warn('object store unavailable at start-up; source-map uploads answer 503 until it is back', { error: error.message })
  }
  return store
}

/** How long the setup step waits for a store that does not answer yet (it may still be starting), and how often it asks. */
const PREPARE_PATIENCE = { withinMs: 60 * SECOND, everyMs: 1 * SECOND } as const

/**
 * Makes the configured store ready (the S3 bucket created if missing, the folder made) and proves
 * it usable: the compose setup step, safe to rerun. A store that is down is asked again until
 * options.withinMs has passed, since a container reported healthy may not serve every request
 * yet; a misconfigured one (credentials refused, a bucket of someone else's) fails at once.
 * Answers where the objects now go; throws ObjectStoreUnavailable or PluginError.
 */
export async function prepareObjectStore(config: ObjectStoreConfig, options: { log?: Logger; withinMs?: number; everyMs?: number } = {}): Promise<string> {
  const { withinMs, everyMs } = { ...PREPARE_PATIENCE, ...options }
  const name = config.kind === 's3' ? 'objectstore-s3' : 'objectstore-fs'
  const settings: Record<string, unknown> = config.kind === 's3' && config.s3 ? { ...config.s3 } : { dir: config.dir }
  const log = (options.log ?? createLogger('warn')).child({ plugin: name })
  const store = await loadPlugin('objectstore', name, settings, { log }, { settingSources: SETTING_SOURCES })
  const deadline = Date.now() + withinMs
  for (;;) {
    try {
      await (store.prepare ? store.prepare() : store.check())
      break
    } catch (error) {
      if (!(error instanceof ObjectStoreUnavailable) || error.fault !== 'down' || Date.now() + everyMs > deadline) throw error
      log.info('object store not answering yet; asking again', { error: error.message })
      await new Promise((resolve) => setTimeout(resolve, everyMs))
    }
  }
  return config.kind === 's3' && config.s3 ? `bucket "${config.s3.bucket}" at ${new URL(config.s3.endpoint).origin}` : `folder ${config.dir}`
}
