import { spawnSync } from 'node:child_process'
import t from 'tap'
import { parseKey } from '../../../shared/keys.js'
import { DashboardClient } from '../../helpers/dashboard.js'
import { childEnv } from '../../helpers/env.js'
import { SVC } from '../../helpers/processes.js'
import { postEvent, sampleEvent, startTestStack, type TestStack } from '../../helpers/stack.js'

function runner(stack: TestStack) {
  return (args: string[], env: Record<string, string | undefined> = {}) =>
    spawnSync(process.execPath, [SVC, 'create-project', ...args], { env: childEnv({ DATABASE_URL: stack.databaseUrl, LOG_LEVEL: 'info', ...env }), encoding: 'utf8' })
}

t.test('svc create-project --json prints the project and its three working keys once, owned by the account named', async (t) => {
  const stack = await startTestStack(t)
  const client = new DashboardClient(stack.baseUrl)
  await client.signUp('Owner@Example.test')
  const run = runner(stack)

  const made = run(['--name', 'Shop', '--repo', 'acme/shop', '--owner-email', 'owner@example.test', '--json'], { SVC_BASE_URL: 'https://svc.example.test' })
  t.equal(made.status, 0, made.stderr)
  const answer = JSON.parse(made.stdout) as Record<string, string>
  t.equal(made.stdout, `${JSON.stringify(answer)}\n`, 'stdout is one JSON line')
  t.match(answer, { name: 'Shop', repo: 'acme/shop', dashboard_url: `https://svc.example.test/projects/${answer.project_id}` })
  const { rows: numbered } = await stack.db.query<{ dsn_number: string }>('SELECT dsn_number FROM projects WHERE id = $1', [answer.project_id])
  t.equal(answer.sentry_dsn, `https://${answer.ingest_key}@svc.example.test/${numbered[0]!.dsn_number}`, "the Sentry DSN is the ingest key at the service's address, the project's number last")
  t.match(numbered[0]!.dsn_number, /^\d+$/, 'the number is all digits, as Sentry SDKs require')
  t.same([parseKey(answer.ingest_key!)?.kind, parseKey(answer.sourcemap_key!)?.kind, parseKey(answer.api_key!)?.kind], ['ingest', 'sourcemap', 'api'])
  for (const field of ['ingest_key', 'sourcemap_key', 'api_key']) t.notMatch(made.stderr, parseKey(answer[field]!)!.secret, `the ${field} is not on stderr, where the log goes`)
  t.match(made.stderr, '"project created"', 'the log line names the project by id')

  const { rows } = await stack.db.query<{ email: string; codehost_repo: string }>('SELECT u.email, p.codehost_repo FROM projects p JOIN users u ON u.id = p.owner_id WHERE p.id = $1', [answer.project_id])
  t.same(rows, [{ email: 'Owner@Example.test', codehost_repo: 'acme/shop' }], 'owned by the account, the email matched without regard to case')
  const event = await postEvent(stack.baseUrl, sampleEvent(), { 'Content-Type': 'application/json', 'X-API-Key': answer.ingest_key! })
  t.equal(event.status, 202, 'the ingest key ingests')
  const read = await fetch(`${stack.baseUrl}/api/v1/projects/${answer.project_id}/issues`, { headers: { authorization: `Bearer ${answer.api_key}` } })
  t.equal(read.status, 200, 'the api key reads the project')
  const home = await client.get('/')
  t.match(home.text, `/projects/${answer.project_id}`, "the project is on its owner's dashboard")
})

t.test('svc create-project without --json prints the keys and the snippets on stdout, the once-only warning on stderr', async (t) => {
  const stack = await startTestStack(t, { ingress: false })
  const made = runner(stack)(['--name', 'Blog'])
  t.equal(made.status, 0, made.stderr)
  const ingest = /ingest key: +(\S+)/.exec(made.stdout)?.[1] ?? ''
  const sourcemap = /source-map key: +(\S+)/.exec(made.stdout)?.[1] ?? ''
  const api = /api key: +(\S+)/.exec(made.stdout)?.[1] ?? ''
  t.same([parseKey(ingest)?.kind, parseKey(sourcemap)?.kind, parseKey(api)?.kind], ['ingest', 'sourcemap', 'api'])
  t.match(made.stdout, `apiKey: '${ingest}'`, 'the SDK snippet is filled in')
  t.match(made.stdout, `SVC_SOURCEMAP_KEY=${sourcemap} `, 'the source-map command is filled in')
  t.match(made.stdout, `export SVC_API_KEY=${api}`, 'the tool server snippet is filled in')
  t.match(made.stdout, new RegExp(`sentry dsn: +http://${ingest}@[^/\\s]+/\\d+\\n`), 'the Sentry DSN is printed')
  t.match(made.stdout, /Sentry\.init\(\{ dsn: 'http:\/\/svc_pk_/, 'with the Sentry snippet')
  t.match(made.stderr, 'The keys are shown once')
  t.match(made.stderr, 'The project has no owner', 'it says nobody sees it on a dashboard')
  const { rows } = await stack.db.query<{ owner_id: string | null }>("SELECT owner_id FROM projects WHERE name = 'Blog'")
  t.same(rows, [{ owner_id: null }])
})

t.test('svc create-project refuses bad input with exit 2 or 1, a code under --json, and writes nothing', async (t) => {
  const stack = await startTestStack(t, { ingress: false })
  const run = runner(stack)
  const before = (await stack.db.query('SELECT id FROM projects')).rows.length
  const cases: Array<[string[], number, string, RegExp, Record<string, string>?]> = [
    [['--json'], 2, 'missing_flag', /--name is required/],
    [['--name', '', '--json'], 2, 'invalid_project_name', /1 to 200 characters/],
    [['--name', 'Shop', '--repo', 'acme', '--json'], 2, 'invalid_repo', /owner\/name/],
    [['--name', 'Shop', '--owner-email', 'nobody@example.test', '--json'], 1, 'owner_not_found', /no account has the email "nobody@example.test"/],
    [['--name', 'Shop', '--repo', 'acme/shop', '--json'], 2, 'repo_needs_codehost_check', /attach it in the project settings/, { CODEHOST_TOKEN: 'test-token' }],
  ]
  for (const [args, status, code, message, env] of cases) {
    const refused = run(args, { LOG_LEVEL: 'silent', ...env })
    t.equal(refused.status, status, `${code}: exit ${status}`)
    t.equal(refused.stdout, '', `${code}: nothing on stdout`)
    const body = JSON.parse(refused.stderr.trim().split('\n').pop()!) as { code: string; message: string }
    t.equal(body.code, code)
    t.match(body.message, message)
  }
  const plain = run(['--name', ' '], { LOG_LEVEL: 'silent' })
  t.equal(plain.status, 2)
  t.match(plain.stderr, /^svc create-project: --name: Give the project a name/, 'without --json the refusal is a line naming the command')
  t.equal((await stack.db.query('SELECT id FROM projects')).rows.length, before, 'no project was created')
})
