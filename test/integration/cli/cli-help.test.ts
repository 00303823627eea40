import { spawnSync } from 'node:child_process'
import t from 'tap'
import { childEnv } from '../../helpers/env.js'
import { SVC } from '../../helpers/processes.js'

const COMMANDS = ['up', 'migrate', 'objectstore-setup', 'seed', 'mint-key', 'grouping-upgrade', 'ingress', 'worker', 'all-in-one', 'dead-letters', 'check-investigations', 'backfill-tickets', 'reset-friction-tickets', 'environments']

/** Runs `svc args…` to its end, without colours. */
function svc(...args: string[]): { status: number | null; out: string } {
  const run = spawnSync(process.execPath, [SVC, ...args], { env: childEnv({ FORCE_COLOR: '0', NO_COLOR: '1' }), encoding: 'utf8' })
  return { status: run.status, out: run.stdout + run.stderr }
}

t.test('svc --help lists every command, though a command line loads only the command it names', async (t) => {
  const { status, out } = svc('--help')
  t.equal(status, 0)
  for (const command of COMMANDS) t.match(out, new RegExp(`svc ${command}\\b`), `lists ${command}`)
})

t.test('svc <command> --help describes that command', async (t) => {
  const { status, out } = svc('up', '--help')
  t.equal(status, 0)
  t.match(out, /Run the whole service on this machine/)
  t.notMatch(out, /svc worker/, 'and no other')
})

t.test('a mistyped command fails with the commands it may have meant', async (t) => {
  const { status, out } = svc('mint-kee')
  t.equal(status, 1)
  t.match(out, /Command not found; did you mean one of/)
  t.match(out, /svc mint-key/)
})
