/**
 * The commands a sandbox runs for one project. A template that names them (test/fixtures/
 * sandbox-template) is taken as written; a detecting one (sandbox-templates/javascript) chooses
 * them from the workspace: the package manager from the lock file (npm, pnpm, yarn; package.json's
 * packageManager decides between several), the test runner from package.json (vitest, jest, mocha,
 * or node:test without one), each run with its own machine-readable reporter. A project the
 * template cannot serve is a TemplateMismatch whose message says what to set.
 */
import type { SandboxTemplate, TestReport } from '../plugins/sandbox-types.js'

/** What a sandbox runs for one project, and where its tests' results are. */
export interface ProjectCommands {
  readonly install: string
  readonly build: string
  readonly test: string
  /** `{file}` is replaced by the file's workspace path, shell-quoted. */
  readonly testFile: string
  readonly report: TestReport
  /** What was chosen, for messages: "npm, vitest" (or "the template's commands"). */
  readonly summary: string
}

/** The template does not fit the project: no package.json or lock file, an unknown runner, Yarn Plug'n'Play. */
export class TemplateMismatch extends Error {
  override name = 'TemplateMismatch'
}

export type PackageManager = 'npm' | 'pnpm' | 'yarn'
export type Runner = 'vitest' | 'jest' | 'mocha' | 'node:test'

/** Reads a workspace file (undefined when missing), as Sandbox.readFile does. */
export type ReadFile = (path: string) => Promise<string | undefined>

// Inside node_modules: never part of the project, there whichever package manager installed, and
// writable in every sandbox (prepared dependencies get a writable top level).
const REPORT_FILE = 'node_modules/.svc-test-report.json'
const LOCKS: ReadonlyArray<[string, PackageManager]> = [
  ['package-lock.json', 'npm'],
  ['npm-shrinkwrap.json', 'npm'],
  ['pnpm-lock.yaml', 'pnpm'],
  ['yarn.lock', 'yarn'],
]
const OWN_TEMPLATE = 'or set SVC_SANDBOX_JAVASCRIPT_TEMPLATE to a template that names its commands (install, build, test, testFile; docs/sandbox.md)'

/** The commands for the project in the workspace that read reads. */
export async function projectCommands(template: SandboxTemplate, read: ReadFile): Promise<ProjectCommands> {
  if (template.detect === undefined) {
    const { install, build, test, testFile, report } = template
    return { install, build, test, testFile, report: report ?? { format: 'tap' }, summary: "the template's commands" }
  }
  const text = await read('package.json')
  if (text === undefined) throw new TemplateMismatch(`The repository has no package.json at its root, so the JavaScript template cannot tell how to install and test it: add one, ${OWN_TEMPLATE}.`)
  const pkg = parsePackage(text)
  const manager = await packageManager(pkg, read, template.install !== undefined)
  const runner = testRunner(pkg)
  const run = manager.name === 'npm' ? 'npm run' : `corepack ${manager.name} run`
  const hasBuild = typeof pkg.scripts?.build === 'string' && pkg.scripts.build.trim() !== ''
  return {
    install: template.install ?? manager.install,
    build: template.build ?? (hasBuild ? `${run} build` : "echo 'package.json has no build script: nothing to build'"),
    ...runnerCommands(runner),
    summary: `${manager.name}, ${runner}`,
  }
}

interface PackageJson {
  packageManager?: unknown
  scripts?: Record<string, unknown>
  dependencies?: Record<string, unknown>
  devDependencies?: Record<string, unknown>
}

function parsePackage(text: string): PackageJson {
  try {
    const parsed: unknown = JSON.parse(text)
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as PackageJson
  } catch {
    // Reported below with what to do.
  }
  throw new TemplateMismatch(`The repository's package.json is not a JSON object, so the JavaScript template cannot read its scripts and dependencies: fix it, ${OWN_TEMPLATE}.`)
}

/** The package manager and its frozen install; prepared says the template replaces the install (no lock file needed). */
async function packageManager(pkg: PackageJson, read: ReadFile, prepared: boolean): Promise<{ name: PackageManager; install: string }> {
  const present: Array<[string, PackageManager]> = []
  for (const [file, name] of LOCKS) if ((await read(file)) !== undefined) present.push([file, name])
  const declared = typeof pkg.packageManager === 'string' ? /^(npm|pnpm|yarn)@/.exec(pkg.packageManager)?.[1] : undefined
  if (typeof pkg.packageManager === 'string' && declared === undefined) {
    throw new TemplateMismatch(`package.json's packageManager is "${pkg.packageManager}"; the JavaScript template installs with npm, pnpm or yarn: ${OWN_TEMPLATE}.`)
  }
  const kinds = [...new Set(present.map(([, name]) => name))]
  const name = (declared as PackageManager | undefined) ?? (kinds.length === 1 ? kinds[0] : undefined) ?? (kinds.length === 0 && prepared ? 'npm' : undefined)
  if (name === undefined) {
    const why = kinds.length === 0 ? 'has no lock file (package-lock.json, pnpm-lock.yaml or yarn.lock), and the sandbox installs exactly what one pins: commit it' : `has lock files of several package managers (${present.map(([file]) => file).join(', ')}): delete the stale ones, or name the one in package.json's packageManager`
    throw new TemplateMismatch(`The repository ${why}, ${OWN_TEMPLATE}.`)
  }
  if (name === 'npm') return { name, install: 'npm ci --ignore-scripts --no-audit --no-fund' }
  if (name === 'pnpm') return { name, install: 'corepack pnpm install --frozen-lockfile --ignore-scripts' }
  const lock = (await read('yarn.lock')) ?? ''
  if (!lock.includes('__metadata:')) return { name, install: 'corepack yarn install --frozen-lockfile --ignore-scripts --non-interactive' }
  // Yarn 2 and later: Plug'n'Play leaves no node_modules, where the runners and the reports live.
  if (!/^nodeLinker:\s*["']?node-modules["']?\s*$/m.test((await read('.yarnrc.yml')) ?? '')) {
    throw new TemplateMismatch(`The repository uses Yarn Plug'n'Play, which leaves no node_modules for the test runner: set "nodeLinker: node-modules" in .yarnrc.yml, ${OWN_TEMPLATE}.`)
  }
  return { name, install: 'corepack yarn install --immutable --mode=skip-build' }
}

const RUNNERS = ['vitest', 'jest', 'mocha'] as const

/** The runner package.json depends on; with several, the one its test script names; none, node:test. */
export function testRunner(pkg: PackageJson): Runner {
  const dependencies = { ...pkg.dependencies, ...pkg.devDependencies }
  const script = typeof pkg.scripts?.test === 'string' && !/no test specified/.test(pkg.scripts.test) ? pkg.scripts.test : ''
  const installed = RUNNERS.filter((runner) => runner in dependencies)
  const named = installed.find((runner) => new RegExp(`(^|[\\s/;&|])${runner}\\b`).test(script))
  if (named ?? installed[0]) return (named ?? installed[0])!
  if (script !== '' && !/\bnode\b.*--test\b/.test(script)) {
    throw new TemplateMismatch(`The repository's test script is "${script.slice(0, 200)}", and none of the runners the JavaScript template reads results from (vitest, jest, mocha, node:test) is in package.json: ${OWN_TEMPLATE}.`)
  }
  return 'node:test'
}

/** Each runner with its own machine-readable reporter; the human one too where it can have both. */
function runnerCommands(runner: Runner): Pick<ProjectCommands, 'test' | 'testFile' | 'report'> {
  const file = REPORT_FILE
  switch (runner) {
    case 'vitest': {
      const test = `node_modules/.bin/vitest run --reporter=default --reporter=json --outputFile.json=${file}`
      return { test, testFile: `${test} {file}`, report: { format: 'jest-json', file } }
    }
    case 'jest': {
      const test = `node_modules/.bin/jest --ci --json --outputFile=${file}`
      return { test, testFile: `${test} --runTestsByPath {file}`, report: { format: 'jest-json', file } }
    }
    case 'mocha': {
      // Mocha has one reporter at a time: the json one, to the file; failures still reach the exit code.
      const test = `node_modules/.bin/mocha --reporter=json --reporter-option output=${file}`
      return { test, testFile: `${test} {file}`, report: { format: 'mocha-json', file } }
    }
    case 'node:test':
      return { test: 'node --test --test-reporter=tap', testFile: 'node --test --test-reporter=tap {file}', report: { format: 'tap' } }
  }
}
