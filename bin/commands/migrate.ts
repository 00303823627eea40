/** svc migrate: apply pending migrations (the compose one-shot step). */
import { Command } from 'clipanion'
import { createDb } from '../../shared/db/index.js'
import { migrate } from '../../shared/db/migrate.js'
import { loadContext } from '../context.js'

export class MigrateCommand extends Command {
  static override paths = [['migrate']]
  static override usage = Command.Usage({ description: 'Apply every pending database migration (safe to rerun; concurrent runs wait for each other).' })

  async execute(): Promise<number> {
    const { config, log } = loadContext('migrate')
    if (!config.databaseUrl) {
      this.context.stderr.write('svc migrate: DATABASE_URL is not set. The embedded database is migrated by "svc up" itself.\n')
      return 2
    }
    const db = createDb(config.databaseUrl, { max: 1, applicationName: 'svc-migrate' })
    try {
      const result = await migrate(db)
      log.info('migrations applied', { applied: result.applied.map((m) => m.file), current: result.current })
      this.context.stdout.write(`migrated: ${result.applied.length} applied, schema at ${result.current}\n`)
      return 0
    } catch (error) {
      this.context.stderr.write(`svc migrate: ${(error as Error).message}\n`)
      return 1
    } finally {
      await db.close()
    }
  }
}
