/**
 * One ingress thread: its own database pool, Redis connections and uWS app, listening on the port
 * the parent names. Tells the parent when it listens (or why it could not) and stops when told.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { createDb } from '../shared/db.js'
import { createObjectStore } from '../shared/object-store.js'
import { createRedis, streamKeys } from '../shared/redis.js'
import { startIngress } from '../services/ingress/index.js'
import { loadContext, requireExternal } from './context.js'
import type { ThreadMessage } from './ingress-threads.js'
import { loadConfiguredPlugins } from '../shared/plugins/loader.js'

const port = parentPort!
const { config, log } = loadContext('ingress')
const { databaseUrl, redisUrl } = requireExternal(config, 'ingress')
// Key lookups are the only queries and are cached: a small pool per thread is plenty.
const db = createDb(databaseUrl, { max: 2, applicationName: 'svc-ingress' })
const redis = createRedis(redisUrl, { enableAutoPipelining: true })
const tell = (message: ThreadMessage): void => port.postMessage(message)

try {
  const ingress = await startIngress({ db, objects: await createObjectStore(config.objectStore, log), redis, keys: streamKeys(config.redisKeyPrefix), log, config, plugins: await loadConfiguredPlugins(config, log), port: (workerData as { port: number }).port, host: config.ingestionHost })
  port.once('message', () => {
    void (async () => {
      await ingress.stop()
      redis.disconnect()
      await db.close()
      port.close()
    })()
  })
  tell({ type: 'listening', port: ingress.port })
} catch (error) {
  redis.disconnect()
  await db.close()
  tell({ type: 'failed', message: (error as Error).message })
  port.close()
}
