// The suite's waits follow their condition on a loaded machine: the figure a call site gives is what
// the condition usually takes, and a wait gives up only after the suite's patience, which still
// leaves tap's per-file timeout room to report a condition that never comes in the wait's words.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { childEnv } from '../../helpers/env.js'
import { PATIENCE_MS, patience } from '../../helpers/patience.js'
import { waitFor } from '../../helpers/stack.js'

const STACK = fileURLToPath(new URL('../../helpers/stack.ts', import.meta.url))

/** Runs waitFor on a condition that never holds in a child with the given patience; answers what it printed. */
function neverInChild(patienceMs: string): string {
  const script = `const { waitFor } = await import(${JSON.stringify(STACK)})
try { await waitFor(async () => Boolean(process.env.NEVER_SET), 10, 20); console.log('resolved') } catch (error) { console.log(error.message) }`
  try {
    return execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { env: childEnv({ SVC_TEST_PATIENCE_MS: patienceMs, NEVER_SET: undefined }), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
  } catch (error) {
    return String((error as { stderr?: string }).stderr)
  }
}

t.test('a condition slower than the figure at its call site is still waited for, and its value answered', async (t) => {
  const start = Date.now()
  // 20 ms is what the call site says the condition usually takes; it holds after about 300.
  const value = await waitFor(async () => (Date.now() - start >= 300 ? 'held' : undefined), 20, 10)
  t.equal(value, 'held')
})

t.test("patience never shortens a wait that asks for more, and leaves room under tap's per-file timeout", async (t) => {
  t.equal(patience(20), PATIENCE_MS)
  t.equal(patience(), PATIENCE_MS)
  t.equal(patience(PATIENCE_MS + 30_000), PATIENCE_MS + 30_000, 'a longer figure is kept')
  const tapTimeoutMs = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { tap: { timeout: number } }).tap.timeout * 1000
  t.ok(PATIENCE_MS * 2 <= tapTimeoutMs, `one wait that gives up (${PATIENCE_MS} ms) ends well before tap stops the file (${tapTimeoutMs} ms)`)
})

t.test('a condition that never comes fails once the patience is spent, naming the time and the condition', async (t) => {
  t.match(neverInChild('300'), /^condition not met within 300 ms: async \(\) => Boolean\(process\.env\.NEVER_SET\)\n$/)
})

t.test('a patience that is not a whole number of milliseconds is refused with what to set', async (t) => {
  t.match(neverInChild('soon'), /SVC_TEST_PATIENCE_MS must be a whole number of milliseconds above 0, not "soon"/)
})
