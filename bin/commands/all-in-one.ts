/**
 * svc all-in-one: every actor in one process on the embedded database (PGlite has one owner, so
 * the worker and the ingress share its one connection). `svc up` runs this under its supervisor
 * when DATABASE_URL is unset, with REDIS_URL pointing at the Redis it spawned.
 */
import { Command } from 'clipanion'
import { createDb } from '../../shared/db/index.js'
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../shared/embedded/index.js'
import { migrate } from '../../shared/db/migrate.js'
import { createObjectStore } from '../../shared/object-store.js'
import { createOrm } from '../../shared/db/orm.js'
import { loadConfiguredPlugins, loadModelPlugin } from '../../shared/plugins/loader.js'
import { createRedis, streamKeys } from '../../shared/redis.js'
import { applySeed } from '../../shared/db/seed.js'
import { startWorker, WORKER_ENTITIES } from '../../services/worker/index.js'
import { loadFixes } from '../../services/worker/fixes.js'
import { loadContext, tellReady, untilSignal } from '../context.js'
import { startFront } from '../front/index.js'
import { oauthWarnings } from '../../services/web/accounts/oauth-settings.js'

type Stop = () => Promise<unknown>

export class AllInOneCommand extends Command {
  static override paths = [['all-in-one']]
  static override usage = Command.Usage({ description: 'Run every actor in one process on the embedded database (what svc up supervises without DATABASE_URL); needs REDIS_URL.' })

  async execute(): Promise<number> {
    const ctx = loadContext('all-in-one')
    const { config, log } = ctx
    for (const warning of oauthWarnings(config)) log.warn(warning)
    if (!config.redisUrl) {
      this.context.stderr.write('svc all-in-one: REDIS_URL is not set. Run "svc up", which starts Redis and this command together.\n')
      return 2
    }
    const stops: Stop[] = []
    try {
      let databaseUrl = config.databaseUrl
      let pool: EmbeddedPostgres['pool'] | undefined
      if (!databaseUrl) {
        const pg = await startEmbeddedPostgres({ dataDir: config.dataDir, log })
        stops.push(pg.stop)
        databaseUrl = pg.url
        pool = pg.pool
      }
      const db = createDb(databaseUrl, { ...pool, applicationName: 'svc-all-in-one', log })
      stops.push(() => db.close())
      await migrate(db)
      await applySeed(db)
      const redis = createRedis(config.redisUrl, { enableAutoPipelining: true }, log)
      stops.push(async () => redis.disconnect())
      const keys = streamKeys(config.redisKeyPrefix)
      const objects = await createObjectStore(config.objectStore, log)
      const plugins = await loadConfiguredPlugins(config, log)
      const tools = { model: await loadModelPlugin(config, log), codehost: plugins.codehost }
      // One ORM for the worker's actors and the web side: both borrow PGlite's one connection anyway.
      const orm = await createOrm(db, WORKER_ENTITIES)
      stops.push(() => orm.close())
      const worker = await startWorker({ db, objects, redis, keys, log, services: config.services, timing: config.stream, healthPort: config.workerHealthPort, restarts: config.restarts, investigations: config.investigations, recordings: config.recordings, retention: config.data, matcher: { limits: config.friction, embeddings: config }, digests: { settings: config.digest, chat: plugins.chat, baseUrl: config.baseUrl }, alerts: config.alerts, tools, fixes: await loadFixes(config, log), orm })
      stops.push(() => worker.stop())
      const ingress = await startFront({ db, objects, redis, keys, log, config, plugins, port: config.ingestionPort, host: config.ingestionHost, orm })
      stops.push(() => ingress.stop())
      tellReady()
      await untilSignal(log)
      return 0
    } catch (error) {
      this.context.stderr.write(`svc all-in-one: ${(error as Error).message}\n`)
      return 1
    } finally {
      for (const stop of stops.reverse()) await stop().catch((error: unknown) => log.warn('shutdown step failed', { error }))
    }
  }
}
