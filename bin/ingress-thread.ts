/**
 * One ingress thread: its own database pool, Redis connections and uWS app. It prepares (the slow
 * part: modules, plugins, the object-store check), says so, and listens only when the parent says
 * listen, so every thread binds at about the same moment: connections that arrive while only one
 * thread listens stay on it for their whole keep-alive life. Then it reports that it listens (or
 * why it could not) and stops when told.
 */
import { parentPort } from 'node:worker_threads'
import { createDb } from '../shared/db/index.js'
import { createObjectStore } from '../shared/object-store.js'
import { loadConfiguredPlugins } from '../shared/plugins/loader.js'
import { createRedis, streamKeys } from '../shared/redis.js'
import { loadContext, requireExternal } from './context.js'
import { startFront } from './front/index.js'
import type { ParentMessage, ThreadMessage } from './ingress-threads.js'
import { isMetricsMessage, threadMetrics } from './thread-metrics.js'

const port = parentPort!
const { config, log } = loadContext('ingress')
const { databaseUrl, redisUrl } = requireExternal(config, 'ingress')
// Key lookups are the only queries and are cached: a small pool per thread is plenty.
const db = createDb(databaseUrl, { max: 2, applicationName: 'svc-ingress', log })
const redis = createRedis(redisUrl, { enableAutoPipelining: true }, log)
const tell = (message: ThreadMessage): void => port.postMessage(message)
// Orders only: the metrics exchange shares the port (thread-metrics.ts).
const nextOrder = (): Promise<ParentMessage> =>
  new Promise((resolve) => {
    const take = (message: ParentMessage): void => {
      if (isMetricsMessage(message)) return
      port.off('message', take)
      resolve(message)
    }
    port.on('message', take)
  })
const scrapeMetrics = threadMetrics(port)
const release = async (): Promise<void> => {
  redis.disconnect()
  await db.close()
  port.close()
}

try {
  const firstOrder = nextOrder()
  const objects = await createObjectStore(config.objectStore, log)
  const plugins = await loadConfiguredPlugins(config, log)
  tell({ type: 'prepared' })
  const order = await firstOrder
  if (order.type !== 'listen') {
    await release()
  } else {
    const ingress = await startFront({ db, objects, redis, keys: streamKeys(config.redisKeyPrefix), log, config, plugins, port: order.port, host: config.ingestionHost, metrics: scrapeMetrics })
    void nextOrder().then(async () => {
      await ingress.stop()
      await release()
    })
    tell({ type: 'listening', port: ingress.port })
  }
} catch (error) {
  tell({ type: 'failed', message: (error as Error).message })
  await release()
}
