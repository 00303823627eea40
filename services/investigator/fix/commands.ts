/**
 * The commands a fix runs in a sandbox and what they did: the project's commands (the template's,
 * or chosen for the project by a detecting template; one that does not fit stops the fix with
 * template_mismatch), a test command's per-test results read from its runner's report (what E1
 * and E2 compare), and the line a model or a person sees for a run.
 */
import type { CommandResult, RunOptions, Sandbox } from '../../../shared/plugins/sandbox-types.js'
import { projectCommands, TemplateMismatch, type ProjectCommands } from '../../../shared/sandbox/project-commands.js'
import { readTestResults, type TestResults } from '../../../shared/sandbox/test-results.js'
import { Stop } from '../stops.js'

/** The project's commands in sandbox (after copyIn); a template that does not fit the project throws Stop(template_mismatch). */
export async function commandsFor(sandbox: Sandbox): Promise<ProjectCommands> {
  try {
    return await projectCommands(sandbox.template, (path) => sandbox.readFile(path))
  } catch (error) {
    if (error instanceof TemplateMismatch) throw new Stop('template_mismatch', error.message)
    throw error
  }
}

/** Runs a test command and reads its per-test results (from its output, or the report file it writes). */
export async function runTests(sandbox: Sandbox, commands: ProjectCommands, command: string, options: RunOptions): Promise<{ result: CommandResult; results: TestResults }> {
  const { report } = commands
  // Emptied first: a report left by an earlier run must never count for this one.
  if (report.format !== 'tap') await sandbox.writeFile(report.file, '')
  const result = await sandbox.run(command, options)
  if (report.format === 'tap' || result.infraError) return { result, results: readTestResults(report, result.output, undefined, '') }
  const text = await sandbox.readFile(report.file)
  return { result, results: readTestResults(report, result.output, text, await workspaceRoot(sandbox, options)) }
}

const roots = new WeakMap<Sandbox, string>()

/** The workspace's absolute path as commands see it: the JSON reports name files by it. */
async function workspaceRoot(sandbox: Sandbox, options: RunOptions): Promise<string> {
  let root = roots.get(sandbox)
  if (root === undefined) {
    root = (await sandbox.run('pwd', { timeoutMs: options.timeoutMs, signal: options.signal })).output.trim()
    roots.set(sandbox, root)
  }
  return root
}

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

