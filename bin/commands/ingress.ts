/** svc ingress: run the HTTP ingress alone (compose and fleets), on SVC_INGRESS_THREADS threads. */
import { Command } from 'clipanion'
import { loadContext, requireExternal, tellReady, untilSignal } from '../context.js'
import { startIngressThreads } from '../ingress-threads.js'
import { oauthWarnings } from '../../services/web/accounts/oauth-settings.js'

export class IngressCommand extends Command {
  static override paths = [['ingress']]
  static override usage = Command.Usage({ description: 'Run the ingress (ingestion, API, dashboard, /health) on INGESTION_PORT, on SVC_INGRESS_THREADS threads.' })

  async execute(): Promise<number> {
    const { config, log } = loadContext('ingress')
    for (const warning of oauthWarnings(config)) log.warn(warning)
    const { databaseUrl, redisUrl } = requireExternal(config, 'ingress')
    if (config.ingressThreads > 1) {
      try {
        const threads = await startIngressThreads(config.ingressThreads, config.ingestionPort, log)
        tellReady()
        const reason = await Promise.race([untilSignal(log), threads.failed])
        await threads.stop()
        return reason.startsWith('SIG') ? 0 : 1
      } catch (error) {
        this.context.stderr.write(`svc ingress: ${(error as Error).message}\n`)
        return 1
      }
    }
    // Imported only here: with several threads, each thread loads them and this process only waits.
    const [{ createDb }, { createObjectStore }, { createRedis, streamKeys }, { startFront }, { loadConfiguredPlugins }] = await Promise.all([
      import('../../shared/db/index.js'),
      import('../../shared/object-store.js'),
      import('../../shared/redis.js'),
      import('../front/index.js'),
      import('../../shared/plugins/loader.js'),
    ])
    const db = createDb(databaseUrl, { applicationName: 'svc-ingress', log })
    const redis = createRedis(redisUrl, { enableAutoPipelining: true }, log)
    try {
      const ingress = await startFront({ db, objects: await createObjectStore(config.objectStore, log), redis, keys: streamKeys(config.redisKeyPrefix), log, config, plugins: await loadConfiguredPlugins(config, log), port: config.ingestionPort, host: config.ingestionHost })
      tellReady()
      await untilSignal(log)
      await ingress.stop()
      return 0
    } catch (error) {
      this.context.stderr.write(`svc ingress: ${(error as Error).message}\n`)
      return 1
    } finally {
      redis.disconnect()
      await db.close()
    }
  }
}
