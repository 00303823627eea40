/**
 * svc up (npm start): the whole service on one machine. Redis is spawned unless REDIS_URL is set.
 * Without DATABASE_URL every actor runs in one supervised process on the embedded PGlite database
 * (PGlite has one owner); with DATABASE_URL the worker and the ingress run as supervised processes
 * of their own, so one that crashes is restarted while the other keeps serving. This process only
 * supervises, for as long as the service runs: it loads no service code (the parts warn about their
 * own settings) and no database client unless it migrates an external database.
 */
import { Command } from 'clipanion'
// Not shared/embedded/index.js: that would load PGlite, which only the all-in-one part opens.
import { startEmbeddedRedis } from '../../shared/embedded/redis.js'
import { applySeed, SEED_INGEST_KEY } from '../../shared/db/seed.js'
import { loadContext, untilSignal, type Context } from '../context.js'
import { Supervisor, type PartSpec } from '../supervisor.js'

type Stop = () => Promise<unknown>

export class UpCommand extends Command {
  static override paths = [['up']]
  static override usage = Command.Usage({ description: 'Run the whole service on this machine with embedded defaults (Redis spawned, PGlite) unless REDIS_URL / DATABASE_URL are set; parts that crash are restarted.' })

  async execute(): Promise<number> {
    const ctx = loadContext('up')
    const stops: Stop[] = []
    try {
      let redisUrl = ctx.config.redisUrl
      if (!redisUrl) {
        const redis = await startEmbeddedRedis({ dataDir: ctx.config.dataDir, log: ctx.log })
        stops.push(redis.stop)
        redisUrl = redis.url
      }
      const supervisor = new Supervisor(ctx.log)
      stops.push(() => supervisor.stop())
      await supervisor.start(await parts(ctx, redisUrl))
      this.context.stdout.write(banner(ctx))
      const reason = await untilSignal(ctx.log)
      ctx.log.info('stopping', { reason })
      return 0
    } catch (error) {
      this.context.stderr.write(`svc up: ${(error as Error).message}\n`)
      return 1
    } finally {
      for (const stop of stops.reverse()) await stop().catch((error: unknown) => ctx.log.warn('shutdown step failed', { error }))
    }
  }
}

/** The processes to supervise; with DATABASE_URL, the database is migrated and seeded once first. */
async function parts({ config }: Context, redisUrl: string): Promise<PartSpec[]> {
  const env = { ...process.env, REDIS_URL: redisUrl }
  if (!config.databaseUrl) return [{ name: 'all-in-one', args: ['all-in-one'], env }]
  const [{ createDb }, { migrate }] = await Promise.all([import('../../shared/db/index.js'), import('../../shared/db/migrate.js')])
  const db = createDb(config.databaseUrl, { max: 2, applicationName: 'svc-up' })
  try {
    await migrate(db)
    await applySeed(db)
  } finally {
    await db.close()
  }
  return [
    { name: 'worker', args: ['worker'], env },
    { name: 'ingress', args: ['ingress'], env },
  ]
}

function banner({ config }: Context): string {
  const base = config.baseUrl
  return [
    `svc is running at ${base}`,
    `  development ingest key (public, for the seeded e2e project only): ${SEED_INGEST_KEY}`,
    `  send an error:  curl -i ${base}/api/v1/events -H 'Content-Type: application/json' -H 'X-API-Key: ${SEED_INGEST_KEY}' \\`,
    `                  -d '{"timestamp":"2026-01-01T00:00:00Z","error":{"type":"Error","message":"hello","stack":""},"breadcrumbs":[],"context":{"url":"http://localhost/","user_agent":"curl"},"sdk_version":"curl","platform":"javascript"}'`,
    // The README's first run: on the embedded start-up the first account owns the seeded project.
    ...(config.databaseUrl ? [] : [`  dashboard:      ${base}: the first account that signs up owns the e2e project and sees that event`]),
    `  worker health:  http://localhost:${config.workerHealthPort}/health`,
    `  data:           ${config.databaseUrl ? 'DATABASE_URL' : config.dataDir}`,
    '  A part that crashes is restarted; Ctrl-C stops everything.',
    '',
  ].join('\n')
}
