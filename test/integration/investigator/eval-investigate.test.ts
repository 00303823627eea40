/**
 * The investigation eval as CI runs it: `npm run eval:investigate` with no MODEL_API_KEY (so the
 * scripted model server and investigatorBrain()) on the test databases. It must list the three
 * fixture bugs with their expected and actual outcomes, match all three, and print no secret.
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { SEED_INGEST_KEY } from '../../../shared/db/seed.js'
import { childEnv, TEST_DATABASE_URL, TEST_REDIS_URL } from '../../helpers/env.js'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))

/** What each fixture bug should end in, and a word its lines must carry (file, third party, reason). */
const BUGS = [
  { key: 'app', outcome: 'investigated', mark: 'apps/shop/src/cart.ts' },
  { key: 'third_party', outcome: 'insight', mark: 'cdn.shop-analytics.example' },
  { key: 'not_in_repo', outcome: 'new', mark: 'no_app_frames' },
]

/** Shapes of every key or token the eval's stack makes or could be handed. */
const SECRET_SHAPES = [/\bsk-[A-Za-z0-9_-]{8,}/, /github_pat_/, /\bgh[pousr]_[A-Za-z0-9]{16,}/, /svc_[psa]k_[a-z0-9]{12}_[A-Za-z0-9]+/, /Bearer\s+\S+/i]

function run(env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', '--silent', 'eval:investigate'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk))
    child.once('error', reject)
    child.once('exit', (code) => resolve({ code, stdout, stderr }))
  })
}

t.test('npm run eval:investigate on the scripted model: three bugs listed, 3 of 3 matched, no secret printed', async (t) => {
  t.setTimeout(180_000)
  const env = childEnv({
    TEST_DATABASE_URL,
    TEST_REDIS_URL,
    MODEL_API_KEY: undefined,
    SVC_MODEL_PLUGIN: undefined,
    SVC_MODEL_NAME: undefined,
    SVC_MODEL_BASE_URL: undefined,
    SVC_MODEL_TIMEOUT_MS: undefined,
    EVAL_PRICE_IN_PER_MTOK: undefined,
    EVAL_PRICE_OUT_PER_MTOK: undefined,
  })
  const { code, stdout, stderr } = await run(env)
  t.equal(code, 0, `the eval ran (stderr: ${stderr.trim().slice(-2000)})`)
  const lines = stdout.trimEnd().split('\n')
  t.match(lines[0], /^model: scripted model server/, 'the first line says the scripted model was used')
  t.match(lines[0], /MODEL_API_KEY is unset/)

  for (const bug of BUGS) {
    const start = lines.indexOf(`bug ${bug.key}`)
    t.ok(start >= 0, `bug ${bug.key} is listed`)
    const block = lines.slice(start + 1, start + 5)
    const line = (label: string): string => block.find((l) => l.trimStart().startsWith(`${label}:`)) ?? ''
    t.match(line('expected'), new RegExp(`^\\s+expected: ${bug.outcome};`), `${bug.key}: the expected outcome`)
    t.match(line('expected'), bug.mark, `${bug.key}: with what it expects`)
    t.match(line('actual'), new RegExp(`^\\s+actual: +${bug.outcome};`), `${bug.key}: the actual outcome`)
    t.match(line('actual'), bug.mark, `${bug.key}: the actual outcome shows it`)
    t.match(line('match'), /match: +yes$/, `${bug.key}: matched`)
    t.match(line('usage'), /\d+ turns, [\d,]+ input \+ [\d,]+ output tokens, [\d.]+ s wall; cost n\/a/, `${bug.key}: turns, tokens, time`)
  }
  t.match(stdout, /^investigation invariants: hold$/m, 'the investigation invariants hold')
  t.equal(lines.at(-1), '3 of 3 bugs matched', 'the summary is the last line')

  const secrets = [SEED_INGEST_KEY, ...[TEST_DATABASE_URL, TEST_REDIS_URL].map((url) => new URL(url).password).filter(Boolean)]
  for (const [i, text] of `${stdout}\n${stderr}`.split('\n').entries()) {
    if (secrets.some((secret) => text.includes(secret)) || SECRET_SHAPES.some((shape) => shape.test(text))) t.fail(`output line ${i + 1} carries a secret`)
  }
  t.pass('no output line carries a secret')
})
