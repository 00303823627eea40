/** svc worker: run consumer services (SVC_SERVICES, default all) with /health on WORKER_HEALTH_PORT. */
import { Command } from 'clipanion'
import { createDb } from '../../shared/db/index.js'
import { createObjectStore } from '../../shared/object-store.js'
import { loadConfiguredPlugins, loadModelPlugin } from '../../shared/plugins/loader.js'
import { createRedis, streamKeys } from '../../shared/redis.js'
import { startWorker } from '../../services/worker/index.js'
import { loadFixes } from '../../services/worker/fixes.js'
import { loadContext, requireExternal, tellReady, untilSignal } from '../context.js'

export class WorkerCommand extends Command {
  static override paths = [['worker']]
  static override usage = Command.Usage({ description: 'Run the consumer services named by SVC_SERVICES (default: all) with /health on WORKER_HEALTH_PORT (8081).' })

  async execute(): Promise<number> {
    const { config, log } = loadContext('worker')
    const { databaseUrl, redisUrl } = requireExternal(config, 'worker')
    const db = createDb(databaseUrl, { applicationName: 'svc-worker', log })
    const redis = createRedis(redisUrl, {}, log)
    try {
      const plugins = await loadConfiguredPlugins(config, log)
      const tools = { model: await loadModelPlugin(config, log), codehost: plugins.codehost }
      const worker = await startWorker({ db, objects: await createObjectStore(config.objectStore, log), redis, keys: streamKeys(config.redisKeyPrefix), log, services: config.services, timing: config.stream, healthPort: config.workerHealthPort, restarts: config.restarts, investigations: config.investigations, recordings: config.recordings, retention: config.data, matcher: { limits: config.friction, embeddings: config }, digests: { settings: config.digest, chat: plugins.chat, baseUrl: config.baseUrl }, alerts: config.alerts, tools, fixes: await loadFixes(config, log) })
      tellReady()
      await untilSignal(log)
      await worker.stop()
      return 0
    } catch (error) {
      this.context.stderr.write(`svc worker: ${(error as Error).message}\n`)
      return 1
    } finally {
      redis.disconnect()
      await db.close()
    }
  }
}
