/**
 * The fix conversation's tools. Reading (list_files, read_file, search) works on the host's work
 * tree of the clone, as in the investigation; writing (write_file, edit_file) changes that tree and
 * the sandbox's copy alike, so the diff pushed later is exactly what the sandbox ran; run_command
 * runs in the sandbox only, without network. The paths come from a model steered by untrusted text:
 * every one is checked against the work tree, and .git and node_modules are off limits.
 */
import { lstat, mkdir, readFile, realpath, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import type { ModelTool } from '../../../shared/plugins/model-types.js'
import type { Sandbox } from '../../../shared/plugins/sandbox-types.js'
import { indexRepository } from '../analysis/repo-paths.js'
import { createRepoTools, REPO_TOOL_SPECS, type ToolResult } from '../analysis/repo-tools.js'
import { describeRun } from './commands.js'

/** Limits of the fix's own tools. */
export const FIX_TOOL_LIMITS = Object.freeze({ writeBytes: 200_000, commandOutputBytes: 256 * 1024, resultChars: 8000 })

const str = (description: string) => ({ type: 'string', description })

export const FIX_TOOL_SPECS: readonly ModelTool[] = Object.freeze([
  ...REPO_TOOL_SPECS,
  { name: 'write_file', description: 'Create or replace a file of the repository (tests included) with the given content.', inputSchema: { type: 'object', properties: { path: str('Path relative to the repository root.'), content: str('The whole new content.') }, required: ['path', 'content'], additionalProperties: false } },
  { name: 'edit_file', description: 'Replace exactly one occurrence of old_text in a file with new_text.', inputSchema: { type: 'object', properties: { path: str('Path relative to the repository root.'), old_text: str('Text that occurs exactly once in the file.'), new_text: str('Its replacement.') }, required: ['path', 'old_text', 'new_text'], additionalProperties: false } },
  { name: 'run_command', description: "Run a shell command in the sandbox at the repository root (no network, limited time). Answers the exit code and the output's tail.", inputSchema: { type: 'object', properties: { command: str('The command, run by sh -c.') }, required: ['command'], additionalProperties: false } },
  { name: 'declare_test', description: 'Name the test file that reproduces the problem: it must fail without your change to the code and pass with it.', inputSchema: { type: 'object', properties: { path: str('The test file, relative to the repository root.') }, required: ['path'], additionalProperties: false } },
])

/** The tool that ends the fix conversation. */
export const SUBMIT_FIX_TOOL: ModelTool = Object.freeze({
  name: 'submit_fix',
  description: 'Finish: call it once, after the declared test passes with your change.',
  inputSchema: { type: 'object', properties: { summary: str('What the change does and why it fixes the cause.'), regression_test: str("The declared test file, or '' when no failing test could be written.") }, required: ['summary', 'regression_test'], additionalProperties: false },
})

export interface FixTools {
  readonly specs: readonly ModelTool[]
  run(name: string, input: unknown): Promise<ToolResult>
  /** The test file the model declared, if any. */
  readonly declared: string | undefined
}

/** Binds the tools to the host work tree at dir and the sandbox holding its copy. */
export function createFixTools(dir: string, sandbox: Sandbox, commandMs: number, signal: AbortSignal): FixTools {
  let reader: Promise<ReturnType<typeof createRepoTools>> | undefined
  let declared: string | undefined
  // The index lists files: it is built again after a write adds one.
  const readTools = () => (reader ??= indexRepository(dir).then((index) => createRepoTools(dir, index)))
  const own: Record<string, (input: Record<string, unknown>) => Promise<ToolResult>> = {
    write_file: async (input) => {
      const content = text(input.content)
      if (Buffer.byteLength(content) > FIX_TOOL_LIMITS.writeBytes) return failure(`content over ${FIX_TOOL_LIMITS.writeBytes} bytes`)
      const target = await writablePath(dir, text(input.path))
      if (!target.ok) return failure(target.error)
      await put(target, content)
      reader = undefined
      return { content: `wrote ${target.path}`, isError: false }
    },
    edit_file: async (input) => {
      const target = await writablePath(dir, text(input.path))
      if (!target.ok) return failure(target.error)
      const before = await readFile(target.real, 'utf8').catch(() => undefined)
      if (before === undefined) return failure(`no such file: ${target.path}`)
      const oldText = text(input.old_text)
      const count = oldText === '' ? 0 : before.split(oldText).length - 1
      if (count !== 1) return failure(`old_text occurs ${count} times in ${target.path}; it must occur exactly once`)
      await put(target, before.replace(oldText, () => text(input.new_text)))
      return { content: `edited ${target.path}`, isError: false }
    },
    run_command: async (input) => {
      const command = text(input.command)
      if (command.trim() === '') return failure('command is empty')
      const result = await sandbox.run(command, { timeoutMs: commandMs, outputCapBytes: FIX_TOOL_LIMITS.commandOutputBytes, signal })
      return { content: describeRun(result, FIX_TOOL_LIMITS.resultChars), isError: false }
    },
    declare_test: async (input) => {
      const target = await writablePath(dir, text(input.path))
      if (!target.ok) return failure(target.error)
      if ((await lstat(target.real).catch(() => undefined))?.isFile() !== true) return failure(`no such file: ${target.path}; write it first`)
      declared = target.path
      return { content: `declared ${target.path}`, isError: false }
    },
  }
  async function put(target: { path: string; real: string }, content: string): Promise<void> {
    await mkdir(dirname(target.real), { recursive: true })
    await writeFile(target.real, content)
    await sandbox.writeFile(target.path, content)
  }
  return {
    specs: [...FIX_TOOL_SPECS, SUBMIT_FIX_TOOL],
    get declared() {
      return declared
    },
    async run(name, input) {
      if (typeof input !== 'object' || input === null || Array.isArray(input)) return failure('input must be an object')
      const tool = Object.hasOwn(own, name) ? own[name] : undefined
      if (!tool) return (await readTools()).run(name, input)
      try {
        return await tool(input as Record<string, unknown>)
      } catch (error) {
        if (signal.aborted) throw error
        // A short error for the model, never a stack with host paths.
        return failure(`${name} failed`)
      }
    },
  }
}

type Writable = { ok: true; path: string; real: string } | { ok: false; error: string }

/** A path the model may write: relative, inside the work tree after symlinks, not .git or node_modules, not a symlink itself. */
async function writablePath(dir: string, input: string): Promise<Writable> {
  const segments = input.trim().split('/').filter((s) => s !== '' && s !== '.')
  if (input.includes('\0') || input.trim().startsWith('/') || segments.length === 0) return { ok: false, error: 'give a path relative to the repository root' }
  if (segments.includes('..')) return { ok: false, error: "'..' is not allowed in paths" }
  if (segments.some((s) => ['.git', 'node_modules'].includes(s.toLowerCase()))) return { ok: false, error: '.git and node_modules are off limits' }
  const root = await realpath(dir)
  // The deepest folder that exists must resolve inside the root; what is below it will be created.
  let existing = segments.length - 1
  while (existing > 0 && !(await lstat(`${root}/${segments.slice(0, existing).join('/')}`).catch(() => undefined))) existing--
  const parent = await realpath(`${root}/${segments.slice(0, existing).join('/')}`)
  if (parent !== root && !parent.startsWith(`${root}/`)) return { ok: false, error: `${input} points outside the repository` }
  const path = segments.join('/')
  const stat = await lstat(`${root}/${path}`).catch(() => undefined)
  if (stat && !stat.isFile()) return { ok: false, error: `${path} is not a regular file` }
  return { ok: true, path, real: `${parent}/${segments.slice(existing).join('/')}` }
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : ''
}

function failure(content: string): ToolResult {
  return { content, isError: true }
}
