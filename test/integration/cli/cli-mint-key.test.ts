import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { parseKey } from '../../../shared/keys.js'
import { childEnv } from '../../helpers/env.js'
import { postEvent, sampleEvent, startTestStack } from '../../helpers/stack.js'

const SVC = fileURLToPath(new URL('../../../bin/svc.js', import.meta.url))

t.test('svc mint-key prints a working key once and stores only its hash', async (t) => {
  const stack = await startTestStack(t)
  const run = (...args: string[]) => spawnSync(process.execPath, [SVC, 'mint-key', ...args], { env: childEnv({ DATABASE_URL: stack.databaseUrl, LOG_LEVEL: 'silent' }), encoding: 'utf8' })

  const minted = run('--project', stack.projectId, '--kind', 'ingest', '--label', 'ci')
  t.equal(minted.status, 0, minted.stderr)
  const token = minted.stdout.trim()
  t.equal(minted.stdout, `${token}\n`, 'stdout is exactly the key')
  t.notMatch(minted.stderr, token, 'the key is not repeated on stderr')
  t.equal(parseKey(token)?.kind, 'ingest')
  const stored = await stack.db.query<{ label: string; dump: string }>('SELECT label, row_to_json(api_keys)::text AS dump FROM api_keys WHERE id = $1', [parseKey(token)!.id])
  t.equal(stored.rows[0]?.label, 'ci')
  t.notMatch(stored.rows[0]!.dump, parseKey(token)!.secret, 'the secret itself is not stored')
  const answer = await postEvent(stack.baseUrl, sampleEvent(), { 'Content-Type': 'application/json', 'X-API-Key': token })
  t.equal(answer.status, 202, 'the minted key ingests')

  const sourcemap = run('--project', stack.projectId, '--kind', 'sourcemap')
  t.match(sourcemap.stdout.trim(), /^svc_sk_[a-z0-9]{12}_[A-Za-z0-9]{32}$/)

  const badKind = run('--project', stack.projectId, '--kind', 'admin')
  t.equal(badKind.status, 2)
  t.match(badKind.stderr, /--kind must be one of ingest, sourcemap, api/)
  const badProject = run('--project', '11111111-1111-4111-8111-111111111111', '--kind', 'api')
  t.equal(badProject.status, 1)
  t.match(badProject.stderr, /no project 11111111/)
  t.equal(badProject.stdout, '', 'nothing on stdout when no key was made')
})
