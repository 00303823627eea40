/** svc seed: create the development project and its known ingest key (scripts/seed-e2e.sql). */
import { Command } from 'clipanion'
import { createDb } from '../../shared/db/index.js'
import { applySeed, SEED_INGEST_KEY } from '../../shared/db/seed.js'
import { loadContext } from '../context.js'

export class SeedCommand extends Command {
  static override paths = [['seed']]
  static override usage = Command.Usage({ description: 'Create the e2e test project and its development ingest key (safe to run twice).' })

  async execute(): Promise<number> {
    const { config } = loadContext('seed')
    if (!config.databaseUrl) {
      this.context.stderr.write('svc seed: DATABASE_URL is not set. "svc up" seeds the embedded database itself.\n')
      return 2
    }
    const db = createDb(config.databaseUrl, { max: 1 })
    try {
      await applySeed(db)
      this.context.stdout.write(`seeded: project e2e, development ingest key ${SEED_INGEST_KEY}\n`)
      return 0
    } finally {
      await db.close()
    }
  }
}
