/**
 * The evidence of a fix, executed and never claimed. Two fresh sandboxes: the untouched baseline
 * (the commit the investigation read) and the fix (the same commit with the model's changes).
 * E0: the fix builds. E1: no test that passed on the baseline fails with the fix. E2: the declared
 * regression test fails on the baseline (with only that file added) and passes with the fix. Each
 * command is recorded with its exit code and output's tail; an infrastructure failure is never
 * evidence of anything, it stops the whole check.
 */
import { readFile } from 'node:fs/promises'
import type { Sandbox, SandboxPlugin } from '../../../shared/plugins/sandbox-types.js'
import type { FixRecord } from '../store/fix-record.js'
import { parseTap, type TestResults } from './commands.js'

/** Wall time of the sandbox's commands (config.investigations.sandbox): install, each check, each command the model runs. */
export interface EvidenceLimits {
  installMs: number
  commandMs: number
  toolMs: number
}

export interface Evidence {
  /** Set when the sandbox failed (or the install did): nothing below counts. */
  infra?: string
  e0: boolean
  e1: { met: boolean; newFailures: string[]; note?: string }
  /** verified: red on the baseline, green with the fix; not_reproduced: green on the baseline; still_failing: red with the fix. */
  e2: 'verified' | 'not_reproduced' | 'still_failing' | 'no_test'
}

interface Context {
  sandboxes: SandboxPlugin
  template: string | undefined
  record: FixRecord
  limits: EvidenceLimits
  signal: AbortSignal
}

/** Runs every check; the sandboxes are destroyed whatever happens. */
export async function collectEvidence(context: Context, dirs: { base: string; fix: string }, testFile: string | undefined): Promise<Evidence> {
  const none: Evidence = { e0: false, e1: { met: false, newFailures: [] }, e2: 'no_test' }
  const opened: Sandbox[] = []
  try {
    const base = await prepare(context, opened, dirs.base, 'baseline')
    if (typeof base === 'string') return { ...none, infra: base }
    const baseSuite = await suite(context, base, 'baseline')
    if (typeof baseSuite === 'string') return { ...none, infra: baseSuite }
    let baseRed: boolean | undefined
    if (testFile) {
      await base.writeFile(testFile, await readFile(`${dirs.fix}/${testFile}`, 'utf8'))
      const command = testCommand(base, testFile)
      const result = await base.run(command, { timeoutMs: context.limits.commandMs, signal: context.signal })
      if (result.infraError) return { ...none, infra: result.infraError }
      baseRed = result.exitCode !== 0 && !result.timedOut && !result.outputCapped
      await context.record.evidence({ tier: 'E2', phase: 'baseline', command, result, met: baseRed })
    }

    const fix = await prepare(context, opened, dirs.fix, 'fix')
    if (typeof fix === 'string') return { ...none, infra: fix }
    const build = await fix.run(fix.template.build, { timeoutMs: context.limits.commandMs, signal: context.signal })
    if (build.infraError) return { ...none, infra: build.infraError }
    const e0 = build.exitCode === 0
    await context.record.evidence({ tier: 'E0', phase: 'fix', command: fix.template.build, result: build, met: e0 })
    const fixSuite = await suite(context, fix, 'fix', baseSuite.results)
    if (typeof fixSuite === 'string') return { ...none, e0, infra: fixSuite }
    let e2: Evidence['e2'] = 'no_test'
    if (testFile) {
      const command = testCommand(fix, testFile)
      const result = await fix.run(command, { timeoutMs: context.limits.commandMs, signal: context.signal })
      if (result.infraError) return { ...none, e0, infra: result.infraError }
      const tap = parseTap(result.output)
      const green = result.exitCode === 0 && tap.passed.size > 0 && tap.failed.size === 0
      await context.record.evidence({ tier: 'E2', phase: 'fix', command, result, met: green && baseRed === true })
      e2 = !baseRed ? 'not_reproduced' : green ? 'verified' : 'still_failing'
    }
    return { e0, e1: fixSuite.e1, e2 }
  } finally {
    await Promise.all(opened.map((sandbox) => sandbox.destroy().catch(() => undefined)))
  }
}

/** A sandbox with the folder's files and the dependencies installed, or why it could not be had. */
async function prepare(context: Context, opened: Sandbox[], dir: string, phase: 'baseline' | 'fix'): Promise<Sandbox | string> {
  const sandbox = await context.sandboxes.create({ template: context.template, signal: context.signal })
  opened.push(sandbox)
  await sandbox.copyIn(dir)
  const command = sandbox.template.install
  const result = await sandbox.run(command, { timeoutMs: context.limits.installMs, network: true, signal: context.signal })
  const met = result.exitCode === 0 && !result.infraError
  await context.record.evidence({ tier: 'setup', phase, command, result, met })
  if (result.infraError) return `the sandbox failed during the install: ${result.infraError}`
  return met ? sandbox : `installing the dependencies failed on the ${phase} (${result.timedOut ? 'timed out' : `exit ${result.exitCode}`})`
}

/** The whole suite: on the baseline it only has to run; with the fix, no baseline pass may fail (E1). */
async function suite(context: Context, sandbox: Sandbox, phase: 'baseline' | 'fix', baseline?: TestResults): Promise<{ results: TestResults; e1: Evidence['e1'] } | string> {
  const command = sandbox.template.test
  const result = await sandbox.run(command, { timeoutMs: context.limits.commandMs, signal: context.signal })
  if (result.infraError) return `the sandbox failed running the suite: ${result.infraError}`
  const results = parseTap(result.output)
  const ran = !result.timedOut && !result.outputCapped && results.passed.size + results.failed.size > 0
  if (!baseline) {
    await context.record.evidence({ tier: 'E1', phase, command, result, met: ran })
    if (!ran) return `the suite did not run on the untouched baseline (${result.timedOut ? 'timed out' : result.outputCapped ? 'output over the cap' : 'no test results in its output'}), so nothing can be compared`
    return { results, e1: { met: true, newFailures: [] } }
  }
  const newFailures = [...results.failed].filter((name) => baseline.passed.has(name))
  const met = ran && newFailures.length === 0
  await context.record.evidence({ tier: 'E1', phase, command, result, met })
  const note = ran ? undefined : result.timedOut ? 'the suite timed out with the fix' : result.outputCapped ? "the suite's output went over the cap" : 'the suite printed no test results with the fix'
  return { results, e1: { met, newFailures, note } }
}

function testCommand(sandbox: Sandbox, file: string): string {
  return sandbox.template.testFile.replaceAll('{file}', shellQuote(file))
}

function shellQuote(value: string): string {
  return `'${value.replaceAll("'", "'\\''")}'`
}
