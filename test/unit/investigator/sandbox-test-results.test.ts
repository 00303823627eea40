import t from 'tap'
import { newFailures, parseTap, readTestResults, resultCount, type TestResults } from '../../../shared/sandbox/test-results.js'

const JEST = { format: 'jest-json', file: 'node_modules/.svc-test-report.json' } as const
const MOCHA = { format: 'mocha-json', file: 'node_modules/.svc-test-report.json' } as const
const sorted = (results: TestResults) => ({ passed: [...results.passed].sort(), failed: [...results.failed].sort(), failedFiles: [...results.failedFiles].sort() })

t.test('TAP from node --test: nested names, only leaves, skipped and todo tests neither', async (t) => {
  const tap = [
    'TAP version 13',
    '# Subtest: cart',
    '    # Subtest: totals',
    '    ok 1 - totals',
    '    not ok 2 - counts',
    '    ok 3 - later # SKIP not yet',
    '    1..3',
    'not ok 1 - cart',
    'ok 2 - top level',
    'ok 3 - todo # TODO someday',
    '# console.log("ok 9 - fake") is a comment, not a result',
  ].join('\n')
  t.same(sorted(parseTap(tap)), { passed: ['cart > totals', 'top level'], failed: ['cart > counts'], failedFiles: [] })
})

t.test('jest --json and vitest name tests by workspace-relative file and describe blocks', async (t) => {
  const report = {
    testResults: [
      {
        name: '/workspace/src/cart.test.ts',
        status: 'failed',
        assertionResults: [
          { ancestorTitles: ['cart', 'total'], title: 'adds prices', status: 'passed' },
          { ancestorTitles: ['cart'], title: 'counts items', status: 'failed' },
          { ancestorTitles: ['cart'], title: 'someday', status: 'todo' },
          { ancestorTitles: [], title: 'skipped', status: 'pending' },
        ],
      },
      { name: '/workspace/src/broken.test.ts', status: 'failed', message: 'SyntaxError: Unexpected token', assertionResults: [] },
      { name: '/elsewhere/outside.test.ts', status: 'passed', assertionResults: [{ ancestorTitles: [], title: 'kept whole', status: 'passed' }] },
    ],
  }
  const results = readTestResults(JEST, 'console output ignored', JSON.stringify(report), '/workspace')
  t.same(sorted(results), {
    passed: ['/elsewhere/outside.test.ts > kept whole', 'src/cart.test.ts > cart > total > adds prices'],
    failed: ['src/cart.test.ts > cart > counts items'],
    failedFiles: ['src/broken.test.ts'],
  })
  t.equal(resultCount(results), 4)
})

t.test("mocha's json reporter: passes and failures by file and full title; a hook that threw fails its file", async (t) => {
  const report = {
    passes: [{ title: 'adds prices', fullTitle: 'cart adds prices', file: '/tmp/svc-sandbox-x/workspace/test/cart.test.js' }],
    failures: [
      { title: 'counts items', fullTitle: 'cart counts items', file: '/tmp/svc-sandbox-x/workspace/test/cart.test.js' },
      { title: '"before all" hook for "opens"', fullTitle: 'db "before all" hook for "opens"', file: '/tmp/svc-sandbox-x/workspace/test/db.test.js' },
    ],
    pending: [{ title: 'later', fullTitle: 'cart later', file: '/tmp/svc-sandbox-x/workspace/test/cart.test.js' }],
  }
  t.same(sorted(readTestResults(MOCHA, '', JSON.stringify(report), '/tmp/svc-sandbox-x/workspace/')), {
    passed: ['test/cart.test.js > cart adds prices'],
    failed: ['test/cart.test.js > cart counts items'],
    failedFiles: ['test/db.test.js'],
  })
})

t.test('no report, an empty one, or one cut short is no results, never a guess', async (t) => {
  for (const text of [undefined, '', '{"testResults": [', 'null', '42']) {
    t.equal(resultCount(readTestResults(JEST, 'ok 1 - looks like TAP', text, '/workspace')), 0, JSON.stringify(text))
    t.equal(resultCount(readTestResults(MOCHA, '', text, '/workspace')), 0, JSON.stringify(text))
  }
})

t.test('E1 names the tests that passed on the baseline and fail with the fix, or vanished with their file', async (t) => {
  const results = (passed: string[], failed: string[] = [], failedFiles: string[] = []): TestResults => ({ passed: new Set(passed), failed: new Set(failed), failedFiles: new Set(failedFiles) })
  const baseline = results(['a.test.ts > adds', 'a.test.ts > counts', 'b.test.ts > formats', 'c.test.ts > new'], ['c.test.ts > already red'])
  t.same(newFailures(baseline, results(['a.test.ts > adds', 'b.test.ts > formats', 'c.test.ts > new'], ['a.test.ts > counts', 'c.test.ts > already red'])), ['a.test.ts > counts'], 'a broken test, not one that was already red')
  t.same(newFailures(baseline, results(['a.test.ts > adds', 'a.test.ts > counts', 'c.test.ts > new'], [], ['b.test.ts'])), ['b.test.ts > formats'], 'a file that no longer loads hides nothing')
  t.same(newFailures(baseline, results([...baseline.passed])), [], 'all green: nothing new')
})
