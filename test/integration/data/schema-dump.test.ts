import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import t from 'tap'
import { createDb } from '../../../shared/db/index.js'
import { migrate } from '../../../shared/db/migrate.js'
import { createTestDatabase } from '../../helpers/stack.js'

const DUMP = new URL('../../../migrations/schema.sql', import.meta.url)

/** pg_dump's schema with the noise that varies between runs removed (events' weekly partitions are named by the week a run made them). */
function schemaOf(url: string): string {
  const raw = execFileSync('pg_dump', ['--schema-only', '--no-owner', '--no-privileges', '--no-comments', '--exclude-table=schema_migrations', '--exclude-table=events_w*', url], { encoding: 'utf8' })
  return raw
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('--') && !/^SET |^SELECT pg_catalog\.set_config|^\\(un)?restrict /.test(line))
    .join('\n') + '\n'
}

t.test('migrations/schema.sql is what the migrations produce (UPDATE_SCHEMA=1 rewrites it)', async (t) => {
  const url = await createTestDatabase(t)
  const db = createDb(url, { max: 1 })
  t.teardown(() => db.close())
  await migrate(db)
  const actual = schemaOf(url)
  if (process.env.UPDATE_SCHEMA === '1') writeFileSync(DUMP, actual)
  t.equal(actual, readFileSync(DUMP, 'utf8'), 'a migration changed the schema: run UPDATE_SCHEMA=1 npm test -- test/integration/data/schema-dump.test.ts and commit migrations/schema.sql')
})
