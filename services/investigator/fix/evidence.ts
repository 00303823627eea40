/**
 * The evidence of a fix, executed and never claimed. Two fresh sandboxes: the untouched baseline
 * (the commit the investigation read) and the fix (the same commit with the model's changes).
 * E0: the fix builds. E1: no test that passed on the baseline fails with the fix. E2: the declared
 * regression test fails on the baseline (with only that file added) and passes with the fix. Each
 * command is recorded with its exit code and output's tail; an infrastructure failure is never
 * evidence of anything, it stops the whole check. A template that does not fit the project (its
 * runner finds no test on the baseline, its install command does not exist) stops the fix with
 * template_mismatch, not as a sandbox failure.
 */
import { readFile } from 'node:fs/promises'
import type { Sandbox, SandboxPlugin } from '../../../shared/plugins/sandbox-types.js'
import type { ProjectCommands } from '../../../shared/sandbox/project-commands.js'
import { newFailures, resultCount, type TestResults } from '../../../shared/sandbox/test-results.js'
import { Stop } from '../stops.js'
import type { FixRecord } from '../store/fix-record.js'
import { commandsFor, runTests } from './commands.js'

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

/** A prepared sandbox and the project's commands in it. */
interface Prepared {
  sandbox: Sandbox
  commands: ProjectCommands
}

/** Runs every check; the sandboxes are destroyed whatever happens. Throws Stop(template_mismatch). */
export async function collectEvidence(context: Context, dirs: { base: string; fix: string }, testFile: string | undefined): Promise<Evidence> {
  const none: Evidence = { e0: false, e1: { met: false, newFailures: [] }, e2: 'no_test' }
  const opened: Sandbox[] = []
  const limits = { timeoutMs: context.limits.commandMs, signal: context.signal }
  try {
    const base = await prepare(context, opened, dirs.base, 'baseline')
    if (typeof base === 'string') return { ...none, infra: base }
    const baseSuite = await suite(context, base, 'baseline')
    if (typeof baseSuite === 'string') return { ...none, infra: baseSuite }
    let baseRed: boolean | undefined
    if (testFile) {
      await base.sandbox.writeFile(testFile, await readFile(`${dirs.fix}/${testFile}`, 'utf8'))
      const command = testCommand(base.commands, testFile)
      const { result } = await runTests(base.sandbox, base.commands, command, limits)
      if (result.infraError) return { ...none, infra: result.infraError }
      baseRed = result.exitCode !== 0 && !result.timedOut && !result.outputCapped
      await context.record.evidence({ tier: 'E2', phase: 'baseline', command, result, met: baseRed })
    }

    const fix = await prepare(context, opened, dirs.fix, 'fix')
    if (typeof fix === 'string') return { ...none, infra: fix }
    const build = await fix.sandbox.run(fix.commands.build, limits)
    if (build.infraError) return { ...none, infra: build.infraError }
    const e0 = build.exitCode === 0
    await context.record.evidence({ tier: 'E0', phase: 'fix', command: fix.commands.build, result: build, met: e0 })
    const fixSuite = await suite(context, fix, 'fix', baseSuite.results)
    if (typeof fixSuite === 'string') return { ...none, e0, infra: fixSuite }
    let e2: Evidence['e2'] = 'no_test'
    if (testFile) {
      const command = testCommand(fix.commands, testFile)
      const { result, results } = await runTests(fix.sandbox, fix.commands, command, limits)
      if (result.infraError) return { ...none, e0, infra: result.infraError }
      const green = result.exitCode === 0 && results.passed.size > 0 && results.failed.size === 0 && results.failedFiles.size === 0
      await context.record.evidence({ tier: 'E2', phase: 'fix', command, result, met: green && baseRed === true })
      e2 = !baseRed ? 'not_reproduced' : green ? 'verified' : 'still_failing'
    }
    return { e0, e1: fixSuite.e1, e2 }
  } finally {
    await Promise.all(opened.map((sandbox) => sandbox.destroy().catch(() => undefined)))
  }
}

/** A sandbox with the folder's files and the dependencies installed, or why it could not be had. */
async function prepare(context: Context, opened: Sandbox[], dir: string, phase: 'baseline' | 'fix'): Promise<Prepared | string> {
  const sandbox = await context.sandboxes.create({ template: context.template, signal: context.signal })
  opened.push(sandbox)
  await sandbox.copyIn(dir)
  const commands = await commandsFor(sandbox)
  const command = commands.install
  const result = await sandbox.run(command, { timeoutMs: context.limits.installMs, network: true, signal: context.signal })
  const met = result.exitCode === 0 && !result.infraError
  await context.record.evidence({ tier: 'setup', phase, command, result, met })
  if (result.infraError) return `the sandbox failed during the install: ${result.infraError}`
  // The shell's "command not found": the package manager the template chose is not in the sandbox.
  if (result.exitCode === 127) throw new Stop('template_mismatch', `The install command (${command}) was not found in the sandbox (exit 127; ${commands.summary}): ${tail(result.output)}`)
  return met ? { sandbox, commands } : `installing the dependencies failed on the ${phase} (${result.timedOut ? 'timed out' : `exit ${result.exitCode}`})`
}

/** The whole suite: on the baseline it only has to run; with the fix, no baseline pass may fail (E1). */
async function suite(context: Context, { sandbox, commands }: Prepared, phase: 'baseline' | 'fix', baseline?: TestResults): Promise<{ results: TestResults; e1: Evidence['e1'] } | string> {
  const command = commands.test
  const { result, results } = await runTests(sandbox, commands, command, { timeoutMs: context.limits.commandMs, signal: context.signal })
  if (result.infraError) return `the sandbox failed running the suite: ${result.infraError}`
  const ran = !result.timedOut && !result.outputCapped && resultCount(results) > 0
  if (!baseline) {
    await context.record.evidence({ tier: 'E1', phase, command, result, met: ran })
    if (result.timedOut || result.outputCapped) return `the suite did not run on the untouched baseline (${result.timedOut ? 'timed out' : 'output over the cap'}), so nothing can be compared`
    // It ran to its end and reported no test: the template's runner does not fit the project.
    if (!ran) throw new Stop('template_mismatch', `The suite (${commands.summary}) reported no test results on the untouched baseline (exit ${result.exitCode}), so nothing can be compared: ${tail(result.output)}`)
    return { results, e1: { met: true, newFailures: [] } }
  }
  const failures = newFailures(baseline, results)
  const met = ran && failures.length === 0
  await context.record.evidence({ tier: 'E1', phase, command, result, met })
  const note = ran ? undefined : result.timedOut ? 'the suite timed out with the fix' : result.outputCapped ? "the suite's output went over the cap" : 'the suite printed no test results with the fix'
  return { results, e1: { met, newFailures: failures, note } }
}

function testCommand(commands: ProjectCommands, file: string): string {
  return commands.testFile.replaceAll('{file}', shellQuote(file))
}

function shellQuote(value: string): string {
  return `'${value.replaceAll("'", "'\\''")}'`
}

/** The output's last lines, for a stop's message. */
function tail(output: string): string {
  const text = output.trim()
  return text === '' ? '(no output)' : text.length > 400 ? `…${text.slice(-400)}` : text
}
