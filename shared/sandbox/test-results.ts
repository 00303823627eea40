/**
 * A test command's per-test results, read from the runner's own machine-readable report: TAP in
 * its output (node --test), or the JSON file jest and vitest (the same shape) or mocha write. The
 * JSON reports name each test "<file> > <describe> > <test>", the file relative to the workspace,
 * so a baseline and a fix, run in two sandboxes, compare test by test (E1) whatever the runner.
 */
import type { TestReport } from '../plugins/sandbox-types.js'

/** The tests that passed and failed (skipped and todo tests count as neither). */
export interface TestResults {
  passed: Set<string>
  failed: Set<string>
  /** Files that failed as a whole (did not load, a hook threw): their tests have no result of their own. */
  failedFiles: Set<string>
}

/** How many results there are: 0 means the runner reported no test at all. */
export function resultCount(results: TestResults): number {
  return results.passed.size + results.failed.size + results.failedFiles.size
}

/**
 * The results of one run: report says where they are; output is the command's output; reportText
 * the report file's content (undefined when it wrote none); root the workspace's absolute path as
 * the command saw it (the JSON reports name files absolutely).
 */
export function readTestResults(report: TestReport, output: string, reportText: string | undefined, root: string): TestResults {
  if (report.format === 'tap') return parseTap(output)
  let parsed: unknown
  try {
    parsed = JSON.parse(reportText ?? '')
  } catch {
    // No report, or one cut short (the runner died writing it): no results, never a guess.
    return empty()
  }
  if (typeof parsed !== 'object' || parsed === null) return empty()
  return report.format === 'jest-json' ? parseJestJson(parsed as JestReport, root) : parseMochaJson(parsed as MochaReport, root)
}

/**
 * The tests that passed on the baseline and fail with the fix, and those that vanished with the
 * fix because their file failed as a whole (a file that no longer loads hides its tests).
 */
export function newFailures(baseline: TestResults, fix: TestResults): string[] {
  const found = [...fix.failed].filter((name) => baseline.passed.has(name))
  for (const file of fix.failedFiles) {
    for (const name of baseline.passed) {
      if (name.startsWith(`${file} > `) && !fix.passed.has(name) && !fix.failed.has(name)) found.push(name)
    }
  }
  return found
}

const RESULT = /^( *)(not ok|ok) \d+(?: - (.*?))?(?: # (SKIP|TODO)\b.*)?$/i
const SUBTEST = /^( *)# Subtest: (.*)$/

/** Parses TAP 13/14 as node --test prints it (subtests indented by four spaces); names nest with " > ". */
export function parseTap(output: string): TestResults {
  const passed = new Set<string>()
  const failed = new Set<string>()
  const parents: string[] = []
  for (const line of output.split(/\r?\n/)) {
    const subtest = SUBTEST.exec(line)
    if (subtest) {
      const depth = Math.floor(subtest[1]!.length / 4)
      parents.length = depth
      parents[depth] = subtest[2]!.trim()
      continue
    }
    const result = RESULT.exec(line)
    if (!result || result[4]) continue
    const depth = Math.floor(result[1]!.length / 4)
    const name = [...parents.slice(0, depth), (result[3] ?? '').trim()].join(' > ')
    if (result[2]!.toLowerCase() === 'ok') passed.add(name)
    else failed.add(name)
  }
  // A parent is "not ok" because a child failed; the child carries the news, so only leaves count.
  for (const name of [...passed, ...failed]) {
    const prefix = `${name} > `
    if ([...passed, ...failed].some((other) => other.startsWith(prefix))) {
      passed.delete(name)
      failed.delete(name)
    }
  }
  return { passed, failed, failedFiles: new Set() }
}

interface JestReport {
  testResults?: Array<{ name?: string; status?: string; assertionResults?: Array<{ ancestorTitles?: string[]; title?: string; status?: string }> }>
}

/** jest --json, and vitest's json reporter, which writes the same shape. */
function parseJestJson(report: JestReport, root: string): TestResults {
  const results = empty()
  for (const file of Array.isArray(report.testResults) ? report.testResults : []) {
    const path = relativeTo(root, file.name)
    const tests = Array.isArray(file.assertionResults) ? file.assertionResults : []
    for (const test of tests) {
      const name = [path, ...(test.ancestorTitles ?? []), test.title ?? ''].join(' > ')
      if (test.status === 'passed') results.passed.add(name)
      else if (test.status === 'failed') results.failed.add(name)
    }
    // Failed with no failing test of its own: the file did not run (a syntax error, an import that throws).
    if (file.status === 'failed' && !tests.some((test) => test.status === 'failed')) results.failedFiles.add(path)
  }
  return results
}

interface MochaTest {
  title?: string
  fullTitle?: string
  file?: string
}
interface MochaReport {
  passes?: MochaTest[]
  failures?: MochaTest[]
}

// Mocha reports a hook that threw as a failure of its own, titled after the hook; the tests it guarded never ran.
const HOOK = /^"(before|after) (all|each)" hook/

/** mocha --reporter json (its fullTitle joins the describe titles and the test's with spaces). */
function parseMochaJson(report: MochaReport, root: string): TestResults {
  const results = empty()
  const name = (test: MochaTest): string => `${relativeTo(root, test.file)} > ${test.fullTitle ?? test.title ?? ''}`
  for (const test of Array.isArray(report.passes) ? report.passes : []) results.passed.add(name(test))
  for (const test of Array.isArray(report.failures) ? report.failures : []) {
    if (HOOK.test(test.title ?? '')) results.failedFiles.add(relativeTo(root, test.file))
    else results.failed.add(name(test))
  }
  return results
}

function relativeTo(root: string, file: string | undefined): string {
  if (typeof file !== 'string') return '(unknown file)'
  const prefix = root.endsWith('/') ? root : `${root}/`
  return file.startsWith(prefix) ? file.slice(prefix.length) : file
}

function empty(): TestResults {
  return { passed: new Set(), failed: new Set(), failedFiles: new Set() }
}
