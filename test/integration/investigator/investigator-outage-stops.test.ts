import t from 'tap'
import type { EntityManager } from '@mikro-orm/postgresql'
import { Investigation } from '../../../services/investigator/store/entities.js'
import { startHarness, type Harness } from '../../helpers/investigation/investigation-harness.js'

// The sweeper's lease (2 s) lapses between the stream's retries (3 s, then 6 s), as it does with the
// defaults (60 s leases, 30 s then 60 s retries) once a run keeps failing: the attempts are spent by
// deliveries of both kinds, and the stop must still name the outage, not a lost worker.
const SPACED = { INVESTIGATION_LEASE_SECONDS: '2', SVC_STREAM_RETRY_BASE_MS: '3000' }

async function runOf(h: Harness, issueId: string): Promise<Investigation> {
  return (h.orm.em.fork() as EntityManager).findOneOrFail(Investigation, { issueId }, { orderBy: { episode: 'desc' } })
}

for (const [what, down] of [
  ['the API', (h: Harness) => h.github.failApi(503)],
  ['git', (h: Harness) => h.github.failGit(503)],
  ['the API and git', (h: Harness) => h.github.failWith(503)],
] as const) {
  t.test(`a code host whose ${what} answers 503 for the whole run stops it with codehost_unavailable, not lease_lost`, async (t) => {
    const h = await startHarness(t, { env: SPACED })
    down(h)
    const issue = await h.send('app', 2)
    const row = await h.settle(issue, 90_000)
    t.equal(row.status, 'needs_human')
    t.equal(row.reason_code, 'codehost_unavailable', `stopped with ${row.reason_code}: ${row.reason_message}`)
    t.match(row.reason_message, /503|did not answer|unavailable/i, 'the message says what the code host answered')
    const run = await runOf(h, issue)
    t.equal(run.attempts, h.stack.config.stream.maxAttempts, 'every attempt was spent before stopping')
    t.equal(h.models.turns.length, 0, 'the model was never asked')
    t.same(await h.violations(), [])
  })
}
