import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { createDb } from '../../../shared/db/index.js'
import { startEmbeddedPostgres } from '../../../shared/embedded/index.js'
import { createLogger } from '../../../shared/log.js'
import { SEED_INGEST_KEY } from '../../../shared/db/seed.js'
import { startSvcUp, type SvcUp } from '../../helpers/processes.js'
import { postEvent, sampleEvent, waitFor } from '../../helpers/stack.js'

// A real browser's events: admission does not count test tools' user agents as users.
const BROWSER = { url: 'http://localhost:5173/cart', user_agent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36' }

/** Command lines of live processes that name the folder (pgrep exits 1 when there are none). */
function processesMentioning(dir: string): string[] {
  try {
    return execFileSync('pgrep', ['-af', dir], { encoding: 'utf8' }).trim().split('\n').filter(Boolean)
  } catch {
    return []
  }
}

/** `svc up` on embedded defaults in a data folder. */
function up(t: Test, dataDir: string): Promise<SvcUp> {
  return startSvcUp(t, { SVC_DATA_DIR: dataDir, LOG_LEVEL: 'warn', DATABASE_URL: undefined, REDIS_URL: undefined })
}

t.test('svc up on embedded defaults: event in, issue stored, data kept across a restart, Ctrl-C stops every child', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-up-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))

  const first = await up(t, dataDir)
  t.match(first.output(), SEED_INGEST_KEY, 'prints the development key')
  t.match(first.output(), /http:\/\/localhost:\d+/, 'prints the URL')
  const health = await fetch(`${first.base}/health`)
  t.same(await health.json(), { status: 'ok', service: 'svc-ingress', restarts: 0 })
  const headers = { 'Content-Type': 'application/json', 'X-API-Key': SEED_INGEST_KEY }
  const answer = await postEvent(first.base, sampleEvent({ session_id: 'one', context: BROWSER }), headers)
  t.equal(answer.status, 202, 'the seeded key is accepted')
  // Every service's queue drained (the grouper's, then the investigator's admission of the issue).
  const workerHealth = await waitFor(async () => {
    const text = await (await fetch(first.health)).text()
    return /^queue_depth: eligible=0 held_back=0$/m.test(text) ? text : undefined
  }, 10_000, 50)
  t.match(workerHealth, /^status: ok$/m)
  t.match(workerHealth, /^queue_depth: eligible=0 held_back=0$/m)
  t.equal(await first.stop(), 0, 'Ctrl-C exits cleanly')

  const second = await up(t, dataDir)
  const again = await postEvent(second.base, sampleEvent({ session_id: 'two', context: BROWSER }), headers)
  t.equal(again.status, 202)
  await waitFor(async () => /^queue_depth: eligible=0 held_back=0$/m.test(await (await fetch(second.health)).text()), 10_000, 50)
  t.equal(await second.stop(), 0)

  // The data folder is free again once up has stopped: open it directly and look.
  const pg = await startEmbeddedPostgres({ dataDir, log: createLogger('silent') })
  const db = createDb(pg.url, { max: 1 })
  try {
    const { rows } = await db.query<{ id: string; event_count: string; session_count: number; status: string; reason_code: string }>('SELECT id, event_count, session_count, status, reason_code FROM issues')
    t.equal(rows.length, 1, 'one issue')
    t.equal(Number(rows[0]!.event_count), 2, 'both events, one from each run, were kept')
    t.equal(rows[0]!.session_count, 2)
    // Two sessions make it qualify; the embedded investigator (its ORM on PGlite's one connection)
    // stops it at once, since no model is configured.
    t.equal(rows[0]!.status, 'needs_human', 'two sessions qualify it for an investigation')
    t.equal(rows[0]!.reason_code, 'missing_model_key', 'which stops at once without a model key')
    const { rows: events } = await db.query<{ id: string }>('SELECT id FROM events ORDER BY received_at')
    t.same(events.map((e) => e.id), [answer.body.id, again.body.id])
  } finally {
    await db.close()
    await pg.stop()
  }
  t.same(processesMentioning(dataDir), [], 'no redis-server or other child outlives svc up')
})
