/**
 * Reading what sandbox commands did: the line a model or a person sees for a run, and the TAP a
 * test command prints, turned into the tests that passed and failed (what E1 and E2 compare).
 */
import type { CommandResult } from '../../../shared/plugins/sandbox-types.js'

/** "exit 1 after 812 ms" (or timed out / killed / sandbox failure), then the output's tail. */
export function describeRun(result: CommandResult, maxChars: number): string {
  const head = result.infraError
    ? `sandbox failure: ${result.infraError}`
    : result.timedOut
      ? `timed out after ${Math.round(result.durationMs / 1000)} s`
      : result.outputCapped
        ? 'killed: output over the cap'
        : `exit ${result.exitCode} after ${Math.round(result.durationMs)} ms`
  const output = result.output.length > maxChars ? `…${result.output.slice(-(maxChars - 1))}` : result.output
  return `${head}\n${output}`
}

/** A test command's outcome read from its TAP: names (nesting joined by " > ") that passed and failed. */
export interface TestResults {
  passed: Set<string>
  failed: Set<string>
}

const RESULT = /^( *)(not ok|ok) \d+(?: - (.*?))?(?: # (SKIP|TODO)\b.*)?$/i
const SUBTEST = /^( *)# Subtest: (.*)$/

/** Parses TAP 13/14 as node --test prints it (subtests indented by four spaces). Skipped and todo tests count as neither. */
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
  return { passed, failed }
}
