/**
 * Where a fix is built and its evidence collected: a throwaway workspace holding a copy of the
 * repository, in which commands run with a time limit, an output cap, no network after the
 * dependency install, none of the service's secrets in their environment, and limits on CPU and
 * memory. The built-in plugin is sandbox-local; a remote sandbox service is a plugin of the same
 * kind that passes plugins/conformance/sandbox.ts.
 */

/**
 * Where a test command's per-test results are read: TAP in its output (node --test), or a JSON
 * report it writes to a workspace file (jest's --json, which vitest's json reporter also writes,
 * or mocha's json reporter).
 */
export type TestReport = { readonly format: 'tap' } | { readonly format: 'jest-json' | 'mocha-json'; readonly file: string }

/** A template that names every command (SVC_SANDBOX_JAVASCRIPT_TEMPLATE's template.json). */
export interface CommandTemplate {
  readonly detect?: undefined
  /** Installs dependencies; the only command that may reach the network (the npm registry). */
  readonly install: string
  /** Builds the project (E0); exit 0 means it built. */
  readonly build: string
  /** Runs the whole suite; exit 0 means every test passed. */
  readonly test: string
  /** Runs one test file; `{file}` is replaced by the file's workspace path, shell-quoted. */
  readonly testFile: string
  /** Where test and testFile leave their per-test results; TAP in their output when absent. */
  readonly report?: TestReport
}

/**
 * A template whose commands are chosen per project from the workspace (its lock file and
 * package.json: shared/sandbox/project-commands.ts); install and build, when given, replace the
 * chosen ones (install "true" over prepared dependencies).
 */
export interface DetectingTemplate {
  readonly detect: 'javascript'
  readonly install?: string
  readonly build?: string
}

/** How a JavaScript project is installed, built and tested: the template (SVC_SANDBOX_JAVASCRIPT_TEMPLATE) says. */
export type SandboxTemplate = CommandTemplate | DetectingTemplate

/** What one command did. An infrastructure failure (infraError set) is never evidence of anything. */
export interface CommandResult {
  /** The exit code, or null when the command was killed (timeout, output cap, signal). */
  readonly exitCode: number | null
  readonly timedOut: boolean
  /** The output went over the cap: the command was killed and output holds its head and tail. */
  readonly outputCapped: boolean
  /** stdout and stderr interleaved as they came, capped (head and tail kept, a marker between). */
  readonly output: string
  readonly durationMs: number
  /** Set when the sandbox itself failed (could not start the command, died): the result says nothing about the code. */
  readonly infraError?: string
}

export interface RunOptions {
  /** Wall time after which the command's whole process group is killed. */
  readonly timeoutMs: number
  /** Bytes of output kept and allowed; past it the command is killed (default 1 MiB). */
  readonly outputCapBytes?: number
  /** Only the dependency install may ask for the network; every other command has none. */
  readonly network?: boolean
  readonly signal?: AbortSignal
}

/** One sandbox: a workspace and the commands run in it. Paths are relative to the workspace root. */
export interface Sandbox {
  readonly id: string
  /** The template it was created from. */
  readonly template: SandboxTemplate
  /** Copies a host folder's files (a clone's work tree; .git excluded) into the workspace root. */
  copyIn(hostDir: string): Promise<void>
  /** Runs a shell command (sh -c) in the workspace root. */
  run(command: string, options: RunOptions): Promise<CommandResult>
  /** The file's text, or undefined when it does not exist; throws SandboxPathRefused for a path outside the workspace. */
  readFile(path: string): Promise<string | undefined>
  /** Writes a file (parents created); throws SandboxPathRefused for a path outside the workspace. */
  writeFile(path: string, content: string): Promise<void>
  /** Removes the workspace and everything in it; safe to call twice. */
  destroy(): Promise<void>
}

export interface SandboxPlugin {
  /** What runs the commands, for logs and health (e.g. "local (bubblewrap)"); never a secret. */
  readonly label: string
  /**
   * A new sandbox from the template named by SVC_SANDBOX_JAVASCRIPT_TEMPLATE (template is that
   * value). Throws SandboxTemplateMissing when template is undefined or names nothing usable,
   * SandboxUnavailable when the sandbox provider cannot start one now.
   */
  create(options: { readonly template: string | undefined; readonly signal?: AbortSignal }): Promise<Sandbox>
}

/** No usable template: every sandbox job fails at startup (the spec's failure table). */
export class SandboxTemplateMissing extends Error {
  override name = 'SandboxTemplateMissing'
}

/** The sandbox provider cannot start or keep a sandbox now (down, out of capacity, the workspace lost). */
export class SandboxUnavailable extends Error {
  override name = 'SandboxUnavailable'
}

/** A file path that would leave the workspace (absolute, .., or through a symlink). */
export class SandboxPathRefused extends Error {
  override name = 'SandboxPathRefused'
}
