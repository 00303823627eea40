import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { SEED_INGEST_KEY, SEED_PROJECT_ID } from '../../../shared/db/seed.js'
import { DashboardClient } from '../../helpers/dashboard.js'
import { startSvcUp } from '../../helpers/processes.js'
import { waitFor } from '../../helpers/stack.js'

/** The README's "Send an error" curl: its key header and its body, as a reader would copy them. */
function readmeCurl(): { key: string; body: string } {
  const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8')
  const command = /curl -i http:\/\/localhost:8082\/api\/v1\/events[^`]*?-d '([^']+)'/.exec(readme)
  const key = command && /-H 'X-API-Key: ([^']+)'/.exec(command[0])
  if (!command || !key) throw new Error("the README has no curl event with -H 'X-API-Key: …' and -d '…'")
  return { key: key[1]!, body: command[1]! }
}

t.test("first run: after svc up, the README's curl event, then signing up, the event's issue is on the new account's dashboard", async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-first-run-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const curl = readmeCurl()
  t.equal(curl.key, SEED_INGEST_KEY, "the README's curl event uses the seeded project's key")

  const up = await startSvcUp(t, { SVC_DATA_DIR: dataDir, LOG_LEVEL: 'warn', DATABASE_URL: undefined, REDIS_URL: undefined })
  t.match(up.output(), 'the first account that signs up owns the e2e project', 'the banner says where the dashboard is and who gets the project')
  const sent = await fetch(`${up.base}/api/v1/events`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-API-Key': curl.key }, body: curl.body })
  t.equal(sent.status, 202, 'the event is accepted')

  // Step 3 of the README's first run: open the dashboard and sign up.
  const person = new DashboardClient(up.base)
  const home = await person.get('/')
  t.equal(home.status, 302, 'the dashboard asks a stranger to sign in')
  const signedUp = await person.signUp('first@example.test')
  t.equal(signedUp.status, 303)
  const projects = await person.get('/')
  t.match(projects.text, `href="/projects/${SEED_PROJECT_ID}"`, 'the development project is on the first account\'s dashboard')
  const issues = await waitFor(async () => {
    const page = await person.get(`/projects/${SEED_PROJECT_ID}/issues`)
    return page.text.includes('x is undefined') ? page : undefined
  }, 5_000, 100)
  t.equal(issues.status, 200)
  t.match(issues.text, 'TypeError', "the curl event's issue is listed")

  const later = new DashboardClient(up.base)
  await later.signUp('second@example.test')
  t.notMatch((await later.get('/')).text, SEED_PROJECT_ID, 'a second account does not get it')
  t.equal(await up.stop(), 0)
})
