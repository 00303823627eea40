// svc environments, run as an operator runs it: a table, --json, and the refusals with their exit codes and stable codes.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { createDb } from '../../../shared/db/index.js'
import { migrate, readMigrations } from '../../../shared/db/migrate.js'
import { applySeed, SEED_PROJECT_ID } from '../../../shared/db/seed.js'
import { runSvc, seedEnvironment, seedRecording, seedTicket } from '../../helpers/investigation/friction-seed.js'
import { createTestDatabase } from '../../helpers/stack.js'

const P = SEED_PROJECT_ID

async function seeded(t: { teardown(fn: () => unknown): void }) {
  const url = await createTestDatabase(t)
  const db = createDb(url, { max: 2 })
  t.teardown(() => db.close())
  await migrate(db)
  await applySeed(db)
  const production = await seedEnvironment(db, P, 'production')
  const staging = await seedEnvironment(db, P, 'staging')
  const { rows: [development] } = await db.query<{ id: string }>(`SELECT id FROM environments WHERE project_id = $1 AND name = 'development'`, [P])
  await seedRecording(db, P, production, 90)
  await seedRecording(db, P, production, 30)
  await seedRecording(db, P, production, 5, { open: true })
  await seedTicket(db, P, production, 'candidate')
  await seedTicket(db, P, production, 'archived')
  const { rows: [last] } = await db.query<{ last_at: Date }>('SELECT max(last_at) AS last_at FROM recordings WHERE project_id = $1 AND environment_id = $2', [P, production])
  return { url, db, production, staging, development: development!.id, lastAt: last!.last_at }
}

t.test('svc environments lists each environment of the project by name with its UUID, recordings and known problems', async (t) => {
  const s = await seeded(t)
  const table = runSvc(['environments', '--project', P], { DATABASE_URL: s.url })
  t.equal(table.status, 0, table.stderr)
  t.equal(table.stderr, '')
  const lines = table.stdout.trimEnd().split('\n')
  t.match(lines[0], /^UUID +NAME +FIRST NAMED \(UTC\) +RECORDINGS +CLOSED +LAST RECORDING \(UTC\) +KNOWN PROBLEMS$/, 'a header naming each column')
  t.equal(lines.length, 4, 'one line per environment')
  t.match(lines[1], new RegExp(`^${s.development} +development +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d +0 +0 +- +0$`), 'by name: development, with nothing recorded')
  const lastAt = s.lastAt.toISOString().slice(0, 19).replace('T', ' ')
  t.match(lines[2], new RegExp(`^${s.production} +production +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d +3 +2 +${lastAt} +1$`), 'production: 3 recordings, 2 closed, the latest activity, 1 known problem not archived')
  t.match(lines[3], new RegExp(`^${s.staging} +staging `))
  const column = lines[0]!.indexOf('NAME')
  t.ok(lines.slice(1).every((line) => /\s/.test(line[column - 1]!) && line.slice(column).match(/^\S/)), 'the columns line up')

  const json = runSvc(['environments', '--project', P, '--json'], { DATABASE_URL: s.url })
  t.equal(json.status, 0, json.stderr)
  const body = JSON.parse(json.stdout) as { project_id: string; environments: Array<Record<string, unknown>> }
  t.equal(body.project_id, P)
  t.same(body.environments.map((e) => e.name), ['development', 'production', 'staging'])
  t.match(body.environments[1], { id: s.production, name: 'production', created_at: /^\d{4}-\d\d-\d\dT/, recordings: 3, closed_recordings: 2, last_recording_at: s.lastAt.toISOString(), known_problems: 1 })
  t.match(body.environments[2], { id: s.staging, recordings: 0, closed_recordings: 0, last_recording_at: null, known_problems: 0 })

  const upper = runSvc(['environments', '--project', P.toUpperCase()], { DATABASE_URL: s.url })
  t.equal(upper.status, 0, 'a UUID in capitals is the same project')

  const { rows: [other] } = await s.db.query<{ id: string }>(`INSERT INTO projects (name) VALUES ('Blog') RETURNING id`)
  const none = runSvc(['environments', '--project', other!.id], { DATABASE_URL: s.url })
  t.equal(none.status, 0)
  t.equal(none.stdout, `Project ${other!.id} has no environment yet: one is made when the first event or recording naming it is stored.\n`)
  t.same(JSON.parse(runSvc(['environments', '--project', other!.id, '--json'], { DATABASE_URL: s.url }).stdout), { project_id: other!.id, environments: [] })
})

t.test('svc environments refuses a missing or malformed project with exit 2 and an unknown one with exit 1, with stable codes under --json', async (t) => {
  const s = await seeded(t)
  const run = (args: string[], env: Record<string, string | undefined> = {}) => runSvc(['environments', ...args], { DATABASE_URL: s.url, ...env })
  const cases: Array<[string[], number, string, RegExp]> = [
    [[], 2, 'missing_flag', /--project is required: the project's UUID/],
    [['--project', 'e2e'], 2, 'invalid_uuid', /--project must be a project UUID like 00000000-0000-4000-8000-000000000000, got "e2e"/],
    [['--project', 'shop\u001b[2J'], 2, 'invalid_uuid', /--project must be a project UUID .*, got "shop\?\[2J"/],
    [['--project', '11111111-1111-4111-8111-111111111111'], 1, 'project_not_found', /no project 11111111-1111-4111-8111-111111111111\. Check the id on the dashboard/],
  ]
  for (const [args, status, code, message] of cases) {
    const plain = run(args)
    t.equal(plain.status, status, `exit ${status} for ${args.join(' ') || 'no flags'}`)
    t.match(plain.stderr, new RegExp(`^svc environments: ${message.source}`))
    t.equal(plain.stdout, '', 'nothing on stdout')
    t.notOk(plain.stderr.includes('\u001b'), 'no escape sequence reaches the terminal')
    const json = run([...args, '--json'])
    t.equal(json.status, status)
    t.match(JSON.parse(json.stderr), { code, message }, `--json: ${code}`)
  }

  const dataDir = mkdtempSync(join(tmpdir(), 'svc-environments-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const noUrl = run(['--project', P, '--json'], { DATABASE_URL: undefined, SVC_DATA_DIR: dataDir })
  t.equal(noUrl.status, 2)
  t.match(JSON.parse(noUrl.stderr), { code: 'database_url_missing', message: /DATABASE_URL is not set, and there is no embedded database/ })

  const oldUrl = await createTestDatabase(t)
  const oldDb = createDb(oldUrl, { max: 1 })
  t.teardown(() => oldDb.close())
  await migrate(oldDb, readMigrations().filter((m) => m.version <= 10))
  const unmigrated = runSvc(['environments', '--project', P, '--json'], { DATABASE_URL: oldUrl })
  t.equal(unmigrated.status, 1)
  t.match(JSON.parse(unmigrated.stderr), { code: 'not_migrated', message: /not migrated to 078 \(known problems\): run "svc migrate" first/ })
})

t.test('svc environments --help says where its UUIDs go', async (t) => {
  const help = runSvc(['environments', '--help'], {})
  t.equal(help.status, 0)
  t.match(help.stdout.replace(/\s+/g, ' '), /--environment of svc backfill-tickets and svc reset-friction-tickets/)
  t.match(help.stdout, /--json/)
})
