import t from 'tap'
import { createDb } from '../../../shared/db/index.js'
import { generateKey } from '../../../shared/keys.js'
import { migrate } from '../../../shared/db/migrate.js'
import { applySeed, SEED_INGEST_KEY, SEED_PROJECT_ID } from '../../../shared/db/seed.js'
import { KeyAuthenticator } from '../../../shared/key-auth.js'
import { createTestDatabase } from '../../helpers/stack.js'
import { refuseConnections } from '../../helpers/pg-faults.js'

t.test('while the database is unreachable, a key that verified before keeps ingesting past its cache period; an unseen key gets key_check_unavailable', async (t) => {
  const url = await createTestDatabase(t)
  const db = createDb(url, { max: 2 })
  t.teardown(() => db.close())
  await migrate(db)
  await applySeed(db)
  const auth = new KeyAuthenticator(db, { cacheMs: 50 })
  t.match(await auth.authenticate(SEED_INGEST_KEY, 'ingest'), { ok: true, projectId: SEED_PROJECT_ID })

  await refuseConnections(url, true)
  t.teardown(() => refuseConnections(url, false))
  await new Promise((resolve) => setTimeout(resolve, 100)) // the cache period is over
  t.equal(auth.cached(SEED_INGEST_KEY, 'ingest'), undefined, 'no longer answered from the cache')
  t.match(await auth.authenticate(SEED_INGEST_KEY, 'ingest'), { ok: true, projectId: SEED_PROJECT_ID }, 'still verifies: the database cannot be asked')
  t.match(await auth.authenticate(SEED_INGEST_KEY, 'sourcemap'), { ok: false, code: 'insufficient_scope' }, 'and still only for its own scope')
  t.same(await auth.authenticate(generateKey('ingest').token, 'ingest'), { ok: false, code: 'key_check_unavailable' }, 'a key never seen cannot be checked')
  t.ok(db.outage.downSince !== undefined, 'the outage is noted (and logged once)')

  await refuseConnections(url, false)
  await db.outage.untilBack(undefined)
  t.same(await auth.authenticate(generateKey('ingest').token, 'ingest'), { ok: false, code: 'key_unknown' }, 'once the database answers, an unknown key is unknown again')
})
