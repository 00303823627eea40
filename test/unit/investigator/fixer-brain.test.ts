import t, { type Test } from 'tap'
import { cp, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { fixerBrain, reviewerBrain, serviceBrain, type FixerOptions } from '../../helpers/investigation/fixer-brain.js'
import { driveFix, FIX_TOOLS, fixMessage, runShell, type Driven, type LoopOptions } from '../../helpers/investigation/fixer-brain-loop.js'
import type { ModelTurn } from '../../helpers/loopback/model-server.js'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const FIXTURE = join(ROOT, 'test/fixtures/investigate-app')
const CART = 'apps/shop/src/cart.ts'
const TEST_FILE = 'apps/shop/test/cart-gift.test.ts'
const TEMPLATE = 'node --import tsx --test --test-reporter=tap {file}'
const SUITE = 'node --import tsx --test --test-reporter=tap apps/shop/test/*.test.ts'
const FAILING_LINE = 'total += item.price.amount * item.quantity'

/** What the investigation hands the fixer for the fixture's app bug. */
const FIX_DATA = {
  error: { type: 'TypeError', message: "Cannot read properties of null (reading 'amount')" },
  summary: `TypeError: Cannot read properties of null (reading 'amount') is thrown by cartTotal (${CART}:29): the line reads a value the code assumes is always there.`,
  chain: ['<anonymous> (apps/shop/src/main.ts:19) runs', `cartTotal (${CART}:29) evaluates \`${FAILING_LINE}\``, "which throws TypeError: Cannot read properties of null (reading 'amount')"],
  fix: `In ${CART}, handle the case the error shows on line 29 (Cannot read properties of null (reading 'amount')) before reading from it, and add a test with that input.`,
  citations: [{ path: CART, line_start: 29, line_end: 29, quote: FAILING_LINE }],
  test_command: TEMPLATE,
}

/** A copy of the fixture in a temp folder, with the repository's node_modules (tsx, typescript) linked in. */
async function copyFixture(t: Test): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-fixer-brain-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  await cp(FIXTURE, dir, { recursive: true })
  await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'))
  return dir
}

/** The copy's files (node_modules aside) that differ from the fixture's, or that it added. */
async function changedFiles(dir: string, sub = ''): Promise<string[]> {
  const changed: string[] = []
  for (const entry of await readdir(join(dir, sub), { withFileTypes: true })) {
    const path = sub === '' ? entry.name : `${sub}/${entry.name}`
    if (path === 'node_modules') continue
    if (entry.isDirectory()) changed.push(...(await changedFiles(dir, path)))
    else if ((await readFile(join(FIXTURE, path), 'utf8').catch(() => undefined)) !== (await readFile(join(dir, path), 'utf8'))) changed.push(path)
  }
  return changed.sort()
}

async function fix(t: Test, options: FixerOptions, loop: LoopOptions = {}): Promise<{ dir: string; driven: Driven }> {
  const dir = await copyFixture(t)
  const driven = await driveFix(fixerBrain(options), dir, FIX_DATA, loop)
  return { dir, driven }
}

/** The declared test's file, run alone in an untouched copy of the fixture. */
async function runOnUntouched(t: Test, fixed: string, path: string): Promise<{ code: number | null; output: string }> {
  const untouched = await copyFixture(t)
  await writeFile(join(untouched, path), await readFile(join(fixed, path), 'utf8'))
  return runShell(untouched, TEMPLATE.replace('{file}', path))
}

const names = (driven: Driven): string[] => driven.calls.map((called) => called.name)
const runs = (driven: Driven): Driven['calls'] => driven.calls.filter((called) => called.name === 'run_command')

t.test('the fixture still has the bug on the cited line', async (t) => {
  const lines = (await readFile(join(FIXTURE, CART), 'utf8')).split('\n')
  t.equal(lines[28]!.trim(), FAILING_LINE)
})

t.test('honest: a test that fails on the untouched code, a fix that makes it and the suite pass', async (t) => {
  const { dir, driven } = await fix(t, {})
  t.same(names(driven), ['read_file', 'write_file', 'declare_test', 'edit_file', 'edit_file', 'run_command', 'submit_fix'])
  t.ok(driven.ended, 'the brain ends after submitting')
  t.ok(driven.calls.every((called) => !called.result.isError), 'every call succeeded')
  t.same(driven.declared, [TEST_FILE])
  t.equal(driven.submitted?.regression_test, TEST_FILE)
  t.match(driven.submitted?.summary, /cart-gift\.test\.ts reproduces it .* passes with the fix/)
  t.same(await changedFiles(dir), [CART, TEST_FILE], 'only the code file and the new test changed')
  t.match(await readFile(join(dir, CART), 'utf8'), /price: Price \| null\n[\s\S]*total \+= \(item\.price\?\.amount \?\? 0\) \* item\.quantity\n/)
  t.equal(runs(driven)[0]!.input.command, `node --import tsx --test --test-reporter=tap ${TEST_FILE}`)
  t.match(runs(driven)[0]!.result.content, /^exit 0 after \d+ ms\n/)

  const [before, after, suite, tsc] = await Promise.all([
    runOnUntouched(t, dir, TEST_FILE),
    runShell(dir, TEMPLATE.replace('{file}', TEST_FILE)),
    runShell(dir, SUITE),
    runShell(dir, 'node node_modules/typescript/bin/tsc -p apps/shop/tsconfig.json'),
  ])
  t.not(before.code, 0, 'the declared test fails on the untouched code')
  t.match(before.output, /Cannot read properties of null \(reading 'amount'\)/)
  t.equal(after.code, 0, 'the declared test passes after the fix', { output: after.output })
  t.match(after.output, /# pass 2\n# fail 0/)
  t.equal(suite.code, 0, 'the whole suite passes after the fix', { output: suite.output })
  t.equal(tsc.code, 0, 'the app, its new test included, typechecks', { output: tsc.output })

  // No state: replayed at any point, the conversation gets the same step, whatever the turn's index.
  const brain = fixerBrain()
  for (let cut = 1; cut < driven.messages.length; cut += 2) {
    const turn = turnOf(driven.messages.slice(0, cut), [...FIX_TOOLS])
    const next = driven.messages[cut]
    t.same(brain(turn, 0), brain(turn, 99))
    t.same((brain(turn, 0).toolCalls ?? []).map((toolCall) => toolCall.name), next?.role === 'assistant' ? next.toolCalls.map((toolCall) => toolCall.name) : undefined)
  }
})

t.test('alreadyPasses: the declared test passes on the untouched code, and the code is still fixed', async (t) => {
  const { dir, driven } = await fix(t, { alreadyPasses: true })
  t.same(driven.declared, [TEST_FILE])
  t.equal(driven.submitted?.regression_test, TEST_FILE)
  t.match(await readFile(join(dir, TEST_FILE), 'utf8'), /itemCount\(cart\), 3/)
  t.same(await changedFiles(dir), [CART, TEST_FILE])
  const [before, suite] = await Promise.all([runOnUntouched(t, dir, TEST_FILE), runShell(dir, SUITE)])
  t.equal(before.code, 0, 'the declared test passes without the fix', { output: before.output })
  t.equal(suite.code, 0, 'the fixed code passes the suite', { output: suite.output })
})

t.test('breaksOther: the declared test goes green while an existing test goes red', async (t) => {
  const { dir, driven } = await fix(t, { breaksOther: true })
  t.same(driven.declared, [TEST_FILE])
  t.same(await changedFiles(dir), ['apps/shop/src/cart.ts', 'apps/shop/src/format.ts', TEST_FILE])
  t.match(await readFile(join(dir, 'apps/shop/src/format.ts'), 'utf8'), /if \(cents === 0\) return 'Free'\n\s+return new Intl\.NumberFormat/)
  const untouched = await copyFixture(t)
  const [suiteBefore, after, suite] = await Promise.all([runShell(untouched, SUITE), runShell(dir, TEMPLATE.replace('{file}', TEST_FILE)), runShell(dir, SUITE)])
  t.equal(suiteBefore.code, 0, 'the suite passes on the untouched code', { output: suiteBefore.output })
  t.equal(after.code, 0, 'the declared test passes after the fix', { output: after.output })
  t.not(suite.code, 0, 'the suite fails after the fix')
  t.match(suite.output, /not ok \d+ - formats cents as the currency/)
})

t.test('noTest: no test written or declared, the code fixed, regression_test empty', async (t) => {
  const { dir, driven } = await fix(t, { noTest: true })
  t.notOk(names(driven).includes('write_file'), 'writes nothing')
  t.notOk(names(driven).includes('declare_test'), 'declares nothing')
  t.same(driven.declared, [])
  t.equal(driven.submitted?.regression_test, '')
  t.same(await changedFiles(dir), [CART])
  t.equal(runs(driven)[0]!.input.command, 'node --import tsx --test --test-reporter=tap apps/shop/test/cart.test.ts')
  const suite = await runShell(dir, SUITE)
  t.equal(suite.code, 0, 'the suite passes after the fix', { output: suite.output })
})

t.test('brokenBuild: the edit leaves a syntax error and the test command fails', async (t) => {
  const { dir, driven } = await fix(t, { brokenBuild: true })
  t.same(driven.declared, [TEST_FILE])
  t.match(await readFile(join(dir, CART), 'utf8'), /total \+= \(item\.price\?\.amount \?\? 0 \* item\.quantity\n/)
  t.match(runs(driven)[0]!.result.content, /^exit [1-9]\d* after/)
  const after = await runShell(dir, TEMPLATE.replace('{file}', TEST_FILE))
  t.not(after.code, 0, 'the test command fails after the edit')
  t.match(after.output, /Expected "\)"|Transform failed|SyntaxError/)
  t.equal(driven.submitted?.regression_test, TEST_FILE, 'it submits all the same')
})

t.test('hang: sleep 600 first, killed at the limit, then the honest fix', async (t) => {
  const { dir, driven } = await fix(t, { hang: true }, { timeoutMs: (command) => (command.startsWith('sleep') ? 1500 : 60_000) })
  t.equal(runs(driven)[0]!.input.command, 'sleep 600')
  t.match(runs(driven)[0]!.result.content, /^timed out after \d+ s/)
  t.match(runs(driven)[1]!.result.content, /^exit 0 /)
  t.equal(driven.submitted?.regression_test, TEST_FILE)
  t.same(await changedFiles(dir), [CART, TEST_FILE])
})

t.test('flood: yes svc first, killed at the output cap, then the honest fix', async (t) => {
  const { dir, driven } = await fix(t, { flood: true }, { capBytes: 64 * 1024 })
  t.equal(runs(driven)[0]!.input.command, 'yes svc')
  t.match(runs(driven)[0]!.result.content, /^killed: output over 65536 bytes\nsvc\nsvc\n/)
  t.match(runs(driven)[1]!.result.content, /^exit 0 /)
  t.equal(driven.submitted?.regression_test, TEST_FILE)
  t.same(await changedFiles(dir), [CART, TEST_FILE])
})

t.test('never: lists, then reads file after file, and never submits', async (t) => {
  const { dir, driven } = await fix(t, { never: true }, { maxTurns: 25 })
  t.equal(driven.calls.length, 25, 'a call every turn')
  t.notOk(driven.ended)
  t.equal(driven.submitted, undefined)
  t.same([...new Set(names(driven))], ['list_files', 'read_file'])
  t.ok(new Set(driven.calls.map((called) => called.input.path)).size > 5, 'reads many files')
  t.same(await changedFiles(dir), [])
})

const DIFF = [`--- a/${CART}`, `+++ b/${CART}`, '@@ -29 +29 @@', `-    ${FAILING_LINE}`, '+    total += (item.price?.amount ?? 0) * item.quantity'].join('\n')
const REVIEW = `Review the fix.\n<diff>\n${DIFF}\n</diff>\n<evidence>\n${TEST_FILE}: failed before the fix, passed after; the suite passed.\n</evidence>`

/** A turn of any stage, as the model server decodes it. */
function turnOf(messages: ModelTurn['messages'], tools: string[]): ModelTurn {
  return { provider: 'openai', system: 'scripted', messages, tools, model: 'scripted', rawBody: '', headers: {} }
}

t.test('the reviewer approves with a reason, and vetoes when told to', async (t) => {
  const turn = turnOf([{ role: 'user', text: REVIEW }], ['read_file', 'review_verdict'])
  const approve = reviewerBrain()(turn, 0)
  t.equal(approve.toolCalls?.[0]?.name, 'review_verdict')
  t.equal(approve.toolCalls?.[0]?.input.approve, true)
  t.match(approve.toolCalls?.[0]?.input.reason, new RegExp(CART))
  const veto = reviewerBrain({ veto: true })(turn, 0)
  t.equal(veto.toolCalls?.[0]?.input.approve, false)
  t.match(veto.toolCalls?.[0]?.input.reason, /does not convince me/)
  const done = turnOf([...turn.messages, { role: 'assistant', text: '', toolCalls: [{ id: 'v1', name: 'review_verdict', input: { approve: false, reason: 'x' } }] }, { role: 'tool', results: [{ callId: 'v1', content: 'ok', isError: false }] }], turn.tools)
  t.same(reviewerBrain({ veto: true })(done, 1), { text: 'The verdict is given.', stop: 'end' })
})

t.test('serviceBrain routes each turn by the tools offered', async (t) => {
  const brain = serviceBrain({ review: { veto: true } })
  const investigation = turnOf([{ role: 'user', text: '<event_data>{}</event_data>' }], ['list_files', 'read_file', 'search', 'submit_answer'])
  t.equal(brain(investigation, 0).toolCalls?.[0]?.name, 'list_files')
  const fixing = turnOf([{ role: 'user', text: fixMessage(FIX_DATA) }], [...FIX_TOOLS])
  t.same(brain(fixing, 1).toolCalls?.[0], { name: 'read_file', input: { path: CART } })
  const review = turnOf([{ role: 'user', text: REVIEW }], ['review_verdict'])
  t.equal(brain(review, 2).toolCalls?.[0]?.input.approve, false)
  t.throws(() => brain(turnOf([], ['read_file']), 3), /no stage offers these tools: read_file/)
})

t.test('fix data that cannot be read ends in a submission without a test', async (t) => {
  const turn = turnOf([{ role: 'user', text: '<fix_data>\n{not json\n</fix_data>' }], [...FIX_TOOLS])
  const step = fixerBrain()(turn, 0)
  t.equal(step.toolCalls?.[0]?.name, 'submit_fix')
  t.equal(step.toolCalls?.[0]?.input.regression_test, '')
})
