/**
 * svc up (npm start): the whole service on one machine. Redis is spawned unless REDIS_URL is set;
 * without DATABASE_URL the embedded PGlite database is used and every actor runs in this process
 * (PGlite has one owner); with DATABASE_URL the ingress and worker run as child processes.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { Command } from 'clipanion'
import { createDb } from '../../shared/db.js'
import { startEmbeddedPostgres, startEmbeddedRedis } from '../../shared/embedded/index.js'
import { migrate } from '../../shared/migrate.js'
import { createObjectStore } from '../../shared/object-store.js'
import { createRedis, streamKeys } from '../../shared/redis.js'
import { applySeed, SEED_INGEST_KEY } from '../../shared/seed.js'
import { startIngress } from '../../services/ingress/index.js'
import { startWorker } from '../../services/worker/index.js'
import { loadContext, untilSignal, type Context } from '../context.js'
import { loadConfiguredPlugins } from '../../shared/plugins/loader.js'
import { oauthWarnings } from '../../services/ingress/dashboard/oauth-settings.js'

type Stop = () => Promise<unknown>

export class UpCommand extends Command {
  static override paths = [['up']]
  static override usage = Command.Usage({ description: 'Run the whole service on this machine with embedded defaults (Redis spawned, PGlite) unless REDIS_URL / DATABASE_URL are set.' })

  async execute(): Promise<number> {
    const ctx = loadContext('up')
    for (const warning of oauthWarnings(ctx.config)) ctx.log.warn(warning)
    const stops: Stop[] = []
    try {
      let redisUrl = ctx.config.redisUrl
      if (!redisUrl) {
        const redis = await startEmbeddedRedis({ dataDir: ctx.config.dataDir, log: ctx.log })
        stops.push(redis.stop)
        redisUrl = redis.url
      }
      const { stopped } = ctx.config.databaseUrl ? await runChildren(ctx, ctx.config.databaseUrl, redisUrl, stops) : await runEmbedded(ctx, redisUrl, stops)
      this.context.stdout.write(banner(ctx))
      const reason = await Promise.race([untilSignal(ctx.log), stopped])
      ctx.log.info('stopping', { reason })
      return reason.startsWith('child') ? 1 : 0
    } catch (error) {
      this.context.stderr.write(`svc up: ${(error as Error).message}\n`)
      return 1
    } finally {
      for (const stop of stops.reverse()) await stop().catch((error: unknown) => ctx.log.warn('shutdown step failed', { error }))
    }
  }
}

async function prepareDatabase(url: string, max: number): Promise<ReturnType<typeof createDb>> {
  const db = createDb(url, { max, applicationName: 'svc-up' })
  await migrate(db)
  await applySeed(db)
  return db
}

/** Every actor in this process; `stopped` never settles (only a signal ends embedded mode). */
async function runEmbedded(ctx: Context, redisUrl: string, stops: Stop[]): Promise<{ stopped: Promise<string> }> {
  const pg = await startEmbeddedPostgres({ dataDir: ctx.config.dataDir, log: ctx.log })
  stops.push(pg.stop)
  // One connection: PGlite's socket server hangs when connections interleave transactions.
  const db = await prepareDatabase(pg.url, 1)
  stops.push(() => db.close())
  const redis = createRedis(redisUrl, { enableAutoPipelining: true })
  stops.push(async () => redis.disconnect())
  const keys = streamKeys(ctx.config.redisKeyPrefix)
  const objects = await createObjectStore(ctx.config.objectStore, ctx.log)
  const worker = await startWorker({ db, objects, redis, keys, log: ctx.log, services: ctx.config.services, timing: ctx.config.stream, healthPort: ctx.config.workerHealthPort })
  stops.push(() => worker.stop())
  const ingress = await startIngress({ db, objects, redis, keys, log: ctx.log, config: ctx.config, plugins: await loadConfiguredPlugins(ctx.config, ctx.log), port: ctx.config.ingestionPort, host: ctx.config.ingestionHost })
  stops.push(() => ingress.stop())
  return { stopped: new Promise<string>(() => {}) }
}

/** Ingress and worker as child processes; `stopped` settles when either exits. */
async function runChildren(ctx: Context, databaseUrl: string, redisUrl: string, stops: Stop[]): Promise<{ stopped: Promise<string> }> {
  const db = await prepareDatabase(databaseUrl, 2)
  await db.close()
  const entry = fileURLToPath(new URL('../svc.js', import.meta.url))
  const env = { ...process.env, REDIS_URL: redisUrl }
  const children: ChildProcess[] = ['worker', 'ingress'].map((command) => spawn(process.execPath, [entry, command], { env, stdio: 'inherit' }))
  for (const child of children) {
    stops.push(
      () =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve()
          child.once('exit', () => resolve())
          child.kill('SIGTERM')
        }),
    )
  }
  const stopped = new Promise<string>((resolve) => {
    for (const child of children) child.once('exit', (code) => resolve(`child ${child.spawnargs.at(-1)} exited with ${code}`))
  })
  return { stopped }
}

function banner({ config }: Context): string {
  const base = config.baseUrl
  return [
    `svc is running at ${base}`,
    `  development ingest key (public, for the seeded e2e project only): ${SEED_INGEST_KEY}`,
    `  send an error:  curl -i ${base}/api/v1/events -H 'Content-Type: application/json' -H 'X-API-Key: ${SEED_INGEST_KEY}' \\`,
    `                  -d '{"timestamp":"2026-01-01T00:00:00Z","error":{"type":"Error","message":"hello","stack":""},"breadcrumbs":[],"context":{"url":"http://localhost/","user_agent":"curl"},"sdk_version":"curl","platform":"javascript"}'`,
    `  worker health:  http://localhost:${config.workerHealthPort}/health`,
    `  data:           ${config.databaseUrl ? 'DATABASE_URL' : config.dataDir}`,
    '  Ctrl-C stops everything.',
    '',
  ].join('\n')
}
