import t, { type Test } from 'tap'
import { startFront } from '../../../bin/front/index.js'
import { SEED_PROJECT_ID } from '../../../shared/db/seed.js'
import { createLogger } from '../../../shared/log.js'
import { createObjectStore } from '../../../shared/object-store.js'
import { DashboardClient } from '../../helpers/dashboard.js'
import { startTestStack, type TestStack } from '../../helpers/stack.js'

/** The dashboard as the embedded start-up serves it: the same stack, its config without DATABASE_URL. */
async function embeddedFront(t: Test, stack: TestStack): Promise<string> {
  const log = createLogger('silent')
  const front = await startFront({ db: stack.db, objects: await createObjectStore(stack.config.objectStore, log), redis: stack.redis, keys: stack.keys, log, config: { ...stack.config, databaseUrl: undefined }, plugins: { codehost: undefined, chat: undefined }, port: 0, host: '127.0.0.1' })
  t.teardown(() => front.stop())
  return `http://127.0.0.1:${front.port}`
}

async function ownerEmail(stack: TestStack): Promise<string | null> {
  const { rows } = await stack.db.query<{ email: string | null }>('SELECT u.email FROM projects p LEFT JOIN users u ON u.id = p.owner_id WHERE p.id = $1', [SEED_PROJECT_ID])
  return rows[0]!.email
}

t.test('on the embedded start-up the first account to sign up owns the development project, and the next does not', async (t) => {
  const stack = await startTestStack(t, { ingress: false })
  const base = await embeddedFront(t, stack)
  const first = new DashboardClient(base)
  await first.signUp('first@example.test')
  t.equal(await ownerEmail(stack), 'first@example.test')
  const home = await first.get('/')
  t.match(home.text, `href="/projects/${SEED_PROJECT_ID}"`, "the development project is on the first account's dashboard")

  const second = new DashboardClient(base)
  await second.signUp('second@example.test')
  t.equal(await ownerEmail(stack), 'first@example.test', 'a second account does not take it')
  const empty = await second.get('/')
  t.notMatch(empty.text, SEED_PROJECT_ID)
  t.match(empty.text, 'You have no projects yet. <a href="/projects/new">Create a project</a>', 'the empty dashboard says what to do')
  t.match(empty.text, 'belongs to the first account that signed up', 'and who has the development project')
})

t.test('with DATABASE_URL configured no account is given the development project', async (t) => {
  const stack = await startTestStack(t)
  const client = new DashboardClient(stack.baseUrl)
  await client.signUp('first@example.test')
  t.equal(await ownerEmail(stack), null, 'the seeded project stays without an owner')
  const home = await client.get('/')
  t.notMatch(home.text, SEED_PROJECT_ID)
  t.match(home.text, 'Create a project')
  t.notMatch(home.text, 'development start-up', 'no word of a development project that is not offered')
})

t.test('of sign-ups at the same moment on the embedded start-up exactly one owns the development project', async (t) => {
  const stack = await startTestStack(t, { ingress: false })
  const base = await embeddedFront(t, stack)
  const clients = Array.from({ length: 4 }, () => new DashboardClient(base))
  const answers = await Promise.all(clients.map((client, i) => client.signUp(`racer${i}@example.test`)))
  t.same(answers.map((answer) => answer.status), [303, 303, 303, 303], 'every sign-up succeeds')
  // Which one depends on commit order (a sign-up that commits first sees no earlier account); that one does.
  t.match(await ownerEmail(stack), /^racer[0-3]@example\.test$/, 'one of them owns it')
  const listing = await Promise.all(clients.map(async (client) => (await client.get('/')).text.includes(`/projects/${SEED_PROJECT_ID}`)))
  t.equal(listing.filter(Boolean).length, 1, "exactly one dashboard lists it")
})

t.test('an account signing up after earlier accounts does not take an unowned development project', async (t) => {
  const stack = await startTestStack(t, { ingress: false })
  await stack.db.query(`INSERT INTO users (email, display_name, created_at) VALUES ('earlier@example.test', '', now() - interval '1 day')`)
  const base = await embeddedFront(t, stack)
  await new DashboardClient(base).signUp('later@example.test')
  t.equal(await ownerEmail(stack), null, 'the project waits for its first account, which was not this one')
})
