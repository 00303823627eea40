import { randomUUID } from 'node:crypto'
import t from 'tap'
import { takeClosedPullRequest } from '../../../services/investigator/commands.js'
import { INVESTIGATOR_ENTITIES } from '../../../services/investigator/store/entities.js'
import { createDb } from '../../../shared/db/index.js'
import { migrate } from '../../../shared/db/migrate.js'
import { createOrm } from '../../../shared/db/orm.js'
import { applySeed, SEED_PROJECT_ID } from '../../../shared/db/seed.js'
import { runSvc, seedEnvironment, seedFix, seedTicket } from '../../helpers/investigation/friction-seed.js'
import { createTestDatabase } from '../../helpers/stack.js'
import { seededByHand } from '../../helpers/suite-invariants.js'

const P = SEED_PROJECT_ID

t.test('reset takes a known problem whose fix pull request was merged or closed as no longer open', async (t) => {
  for (const merged of [true, false]) {
    const url = await createTestDatabase(t)
    const db = createDb(url, { max: 2 })
    t.teardown(() => db.close())
    await migrate(db)
    await applySeed(db)
    await seededByHand(db)
    const orm = await createOrm(db, INVESTIGATOR_ENTITIES)
    t.teardown(() => orm.close())
    await db.query(`UPDATE projects SET codehost_repo = 'acme/shop' WHERE id = $1`, [P])
    const env = await seedEnvironment(db, P, 'production')
    const ticket = await seedTicket(db, P, env, 'pr_draft')
    await seedFix(db, ticket.issueId, P, 'pr_draft')
    const args = ['reset-friction-tickets', '--project', P, '--environment', env, '--since', '14d', '--confirm']
    t.match(runSvc(args, { DATABASE_URL: url }), { status: 1, stderr: /its fix pull request is open/ }, 'refused while it is open')

    const at = new Date()
    const taken = await takeClosedPullRequest(orm, { deliveryId: randomUUID(), event: 'pull_request', action: 'closed', repo: 'acme/shop', number: 7, merged, mergedAt: merged ? at : null, closedAt: at, mergeSha: merged ? 'b'.repeat(40) : '' })
    t.match(taken, { taken: true, outcome: merged ? 'merged' : 'closed' })
    const done = runSvc(args, { DATABASE_URL: url })
    t.equal(done.status, 0, `${merged ? 'merged' : 'closed'}: ${done.stderr}`)
    t.match(done.stdout, /archived 1 known problem\(s\) and 1 issue\(s\)/)
  }
})
