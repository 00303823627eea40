/**
 * The read-only tools the model uses on the clone: list_files, read_file and search, plus the
 * spec of submit_answer (the loop ends on it). The repository is the user's and the model's
 * requests are steered by untrusted event text, so every path is checked against the clone after
 * symlinks are resolved, .git is off limits, and every result is capped. Failures come back as
 * error results the model can read, never as exceptions.
 */
import { constants } from 'node:fs'
import { open, realpath } from 'node:fs/promises'
import type { ModelTool } from '../../../shared/plugins/model-types.js'
import { ANSWER_SCHEMA } from './answer.js'
import { resolveRepoPath, type RepoIndex } from './repo-paths.js'

/** Caps on what one tool call returns. */
export const TOOL_LIMITS = Object.freeze({
  listedFiles: 200,
  readLines: 400,
  readBytes: 50_000,
  // A minified line would fill the whole window on its own.
  readLineChars: 2000,
  searchResults: 50,
  searchLineChars: 200,
  searchTextChars: 200,
})

/** Files larger than this are neither read nor searched (bundles, data dumps). */
export const DEFAULT_MAX_FILE_BYTES = 2 * 1024 * 1024

/** Bytes one search call reads at most, so a huge repository cannot stall a run. */
export const DEFAULT_MAX_SEARCH_BYTES = 64 * 1024 * 1024

/** The tool that ends the run; its input is an Answer (answer.ts). */
export const SUBMIT_ANSWER_TOOL: ModelTool = Object.freeze({
  name: 'submit_answer',
  description: 'Submit your final answer. Call it exactly once, at the end. Cite only lines you read with read_file, quoting them exactly.',
  inputSchema: ANSWER_SCHEMA,
})

/** The read-only repository tools, in the order the model sees them. */
export const REPO_TOOL_SPECS: readonly ModelTool[] = Object.freeze([
  {
    name: 'list_files',
    description: `List the files under a folder of the repository (repository-relative paths, at most ${TOOL_LIMITS.listedFiles}). node_modules, dist, build, coverage and .next are not listed.`,
    inputSchema: { type: 'object', properties: { path: { type: 'string', description: 'Folder relative to the repository root; omit for the root.' } }, additionalProperties: false },
  },
  {
    name: 'read_file',
    description: `Read lines of a file, numbered "N| text", at most ${TOOL_LIMITS.readLines} lines (about 50 KB) per call. Says how many lines the file has.`,
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'File path relative to the repository root.' },
        start_line: { type: 'integer', minimum: 1, description: 'First line to read (default 1).' },
        end_line: { type: 'integer', minimum: 1, description: 'Last line to read (default start_line + 399).' },
      },
      required: ['path'],
      additionalProperties: false,
    },
  },
  {
    name: 'search',
    description: `Find a literal, case-sensitive text in the repository's files (not a regular expression). Returns "path:N: line", at most ${TOOL_LIMITS.searchResults} results.`,
    inputSchema: {
      type: 'object',
      properties: {
        text: { type: 'string', description: 'Text to find, on one line.' },
        path: { type: 'string', description: 'Folder or file to search in; omit for the whole repository.' },
      },
      required: ['text'],
      additionalProperties: false,
    },
  },
])

/** Options of createRepoTools. */
export interface RepoToolOptions {
  maxFileBytes?: number
  maxSearchBytes?: number
}

/** A tool's answer as the loop hands it back to the model. */
export interface ToolResult {
  content: string
  isError: boolean
}

/** The tools bound to one clone, and what read_file returned during this run. */
export interface RepoTools {
  /** The repository tools and submit_answer: everything the model is offered. */
  readonly specs: readonly ModelTool[]
  run(name: string, input: unknown): Promise<ToolResult>
  /** Repository path (symlinks resolved) → line numbers read_file returned. */
  readonly readFiles: ReadonlyMap<string, Set<number>>
}

/** A text file's lines (a final newline ends the last line, it does not start another). */
export type TextFile = { ok: true; lines: string[] } | { ok: false; error: string; folder?: boolean }

/** Reads a regular text file at a resolved path; folders, devices, pipes, binaries and big files are refused. */
export async function readTextFile(real: string, path: string, maxBytes: number): Promise<TextFile> {
  let handle
  try {
    // NOFOLLOW and NONBLOCK: a path swapped for a symlink or a FIFO fails instead of escaping or hanging.
    handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    return { ok: false, error: code === 'ENOENT' ? `no such file: ${path}` : `cannot open: ${path}` }
  }
  try {
    const stat = await handle.stat()
    if (stat.isDirectory()) return { ok: false, error: `${path} is a folder`, folder: true }
    if (!stat.isFile()) return { ok: false, error: `${path} is not a regular file` }
    if (stat.size > maxBytes) return { ok: false, error: `${path} is too large to read (${stat.size} bytes; limit ${maxBytes})` }
    const buffer = await handle.readFile()
    // Git's own test: a NUL in the first 8,000 bytes means binary.
    if (buffer.subarray(0, 8000).includes(0)) return { ok: false, error: `${path} is a binary file` }
    const lines = buffer.toString('utf8').split(/\r?\n/)
    if (lines.at(-1) === '') lines.pop()
    return { ok: true, lines }
  } catch {
    return { ok: false, error: `cannot read: ${path}` }
  } finally {
    await handle.close().catch(() => undefined)
  }
}

/** Binds the read-only tools to a clone and its index. */
export function createRepoTools(dir: string, index: RepoIndex, options: RepoToolOptions = {}): RepoTools {
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES
  const maxSearchBytes = options.maxSearchBytes ?? DEFAULT_MAX_SEARCH_BYTES
  const readFiles = new Map<string, Set<number>>()
  let root: Promise<string> | undefined

  const tools: Record<string, (root: string, input: Record<string, unknown>) => Promise<ToolResult>> = {
    list_files: (root, input) => listFiles(root, index, input),
    read_file: (root, input) => readFile(root, input, maxFileBytes, readFiles),
    search: (root, input) => search(root, index, input, maxFileBytes, maxSearchBytes),
  }
  return {
    // submit_answer is offered with the others so the model can end the run; run() refuses it.
    specs: [...REPO_TOOL_SPECS, SUBMIT_ANSWER_TOOL],
    readFiles,
    async run(name, input) {
      const tool = Object.hasOwn(tools, name) ? tools[name] : undefined
      if (!tool) return failure(name === SUBMIT_ANSWER_TOOL.name ? 'submit_answer is handled by the loop, not here' : `unknown tool: ${name}`)
      if (typeof input !== 'object' || input === null || Array.isArray(input)) return failure('input must be an object')
      try {
        root ??= realpath(dir)
        return await tool(await root, input as Record<string, unknown>)
      } catch {
        // Nothing here should throw; if it does, the model gets a short error, not a stack with host paths.
        return failure(`${name} failed`)
      }
    },
  }
}

function failure(content: string): ToolResult {
  return { content, isError: true }
}

function success(content: string): ToolResult {
  return { content, isError: false }
}

/** A string field, undefined when absent, or an error message. */
function stringField(input: Record<string, unknown>, field: string, required: boolean): string | undefined | { error: string } {
  const value = input[field]
  if (value === undefined || value === null) return required ? { error: `${field} is required` } : undefined
  return typeof value === 'string' ? value : { error: `${field} must be a string` }
}

function lineField(input: Record<string, unknown>, field: string): number | undefined | { error: string } {
  const value = input[field]
  if (value === undefined || value === null) return undefined
  return Number.isSafeInteger(value) && (value as number) >= 1 ? (value as number) : { error: `${field} must be an integer of at least 1` }
}

async function listFiles(root: string, index: RepoIndex, input: Record<string, unknown>): Promise<ToolResult> {
  const asked = stringField(input, 'path', false)
  if (typeof asked === 'object') return failure(asked.error)
  const resolved = await resolveRepoPath(root, asked ?? '')
  if (!resolved.ok) return failure(resolved.error)
  const prefix = resolved.path === '' ? '' : resolved.path + '/'
  if (prefix !== '' && index.fileSet.has(resolved.path)) return failure(`${resolved.path} is a file; use read_file`)
  const files = index.files.filter((file) => file.startsWith(prefix))
  if (files.length === 0) return success(`no listed files under ${resolved.path || 'the repository root'} (node_modules, dist, build, coverage, .next and symlinks are not listed)`)
  const shown = files.slice(0, TOOL_LIMITS.listedFiles)
  const lines = [...shown]
  if (files.length > shown.length) lines.push(`… ${files.length - shown.length} more files not shown; list a subfolder to see them`)
  if (index.truncated) lines.push(`(the repository has more files than were indexed; some may be missing)`)
  return success(lines.join('\n'))
}

async function readFile(root: string, input: Record<string, unknown>, maxFileBytes: number, readFiles: Map<string, Set<number>>): Promise<ToolResult> {
  const asked = stringField(input, 'path', true)
  if (typeof asked !== 'string') return failure(asked?.error ?? 'path is required')
  const start = lineField(input, 'start_line')
  const end = lineField(input, 'end_line')
  if (typeof start === 'object') return failure(start.error)
  if (typeof end === 'object') return failure(end.error)
  const resolved = await resolveRepoPath(root, asked)
  if (!resolved.ok) return failure(resolved.error)
  if (resolved.path === '') return failure('the repository root is a folder; use list_files')
  const file = await readTextFile(resolved.real, resolved.path, maxFileBytes)
  if (!file.ok) return failure(file.folder ? `${resolved.path} is a folder; use list_files` : file.error)
  const total = file.lines.length
  const first = start ?? 1
  if (total === 0) return success(`${resolved.path}: empty file (0 lines)`)
  if (first > total) return failure(`start_line ${first} is past the end: ${resolved.path} has ${total} lines`)
  if (end !== undefined && end < first) return failure('end_line is before start_line')
  const last = Math.min(total, end ?? first + TOOL_LIMITS.readLines - 1, first + TOOL_LIMITS.readLines - 1)
  const body: string[] = []
  const seen = readFiles.get(resolved.path) ?? new Set<number>()
  let bytes = 0
  let shownTo = first - 1
  for (let n = first; n <= last; n++) {
    let text = file.lines[n - 1]!
    if (text.length > TOOL_LIMITS.readLineChars) text = `${text.slice(0, TOOL_LIMITS.readLineChars)}… [line cut: ${text.length - TOOL_LIMITS.readLineChars} more characters]`
    const line = `${n}| ${text}`
    bytes += Buffer.byteLength(line) + 1
    if (bytes > TOOL_LIMITS.readBytes && body.length > 0) break
    body.push(line)
    seen.add(n)
    shownTo = n
  }
  readFiles.set(resolved.path, seen)
  const header = `${resolved.path}: lines ${first}-${shownTo} of ${total}`
  const footer = shownTo < total ? [`(lines ${shownTo + 1}-${total} not shown; call read_file with start_line ${shownTo + 1})`] : []
  return success([header, ...body, ...footer].join('\n'))
}

async function search(root: string, index: RepoIndex, input: Record<string, unknown>, maxFileBytes: number, maxSearchBytes: number): Promise<ToolResult> {
  const text = stringField(input, 'text', true)
  if (typeof text !== 'string') return failure(text?.error ?? 'text is required')
  if (text.trim() === '') return failure('text must not be empty')
  if (/[\r\n]/.test(text)) return failure('text must be on one line')
  if (text.length > TOOL_LIMITS.searchTextChars) return failure(`text is longer than ${TOOL_LIMITS.searchTextChars} characters`)
  const asked = stringField(input, 'path', false)
  if (typeof asked === 'object') return failure(asked.error)
  const resolved = await resolveRepoPath(root, asked ?? '')
  if (!resolved.ok) return failure(resolved.error)
  const scope = resolved.path
  const files = index.files.filter((file) => scope === '' || file === scope || file.startsWith(scope + '/'))
  const results: string[] = []
  let scanned = 0
  let cut: string | undefined
  scan: for (const path of files) {
    if (scanned > maxSearchBytes) {
      cut = `(search stopped: too much to read; narrow it with path)`
      break
    }
    // Indexed paths are real files found without following symlinks; O_NOFOLLOW keeps it so.
    const file = await readTextFile(`${root}/${path}`, path, maxFileBytes)
    if (!file.ok) continue
    for (let i = 0; i < file.lines.length; i++) {
      const line = file.lines[i]!
      scanned += line.length + 1
      const at = line.indexOf(text)
      if (at < 0) continue
      if (results.length === TOOL_LIMITS.searchResults) {
        cut = `(results cut at ${TOOL_LIMITS.searchResults}; narrow the search with path or a longer text)`
        break scan
      }
      results.push(`${path}:${i + 1}: ${excerpt(line, at, text.length)}`)
    }
  }
  if (results.length === 0) return success(`no matches for ${JSON.stringify(text)}${scope ? ` under ${scope}` : ''}${cut ? ` ${cut}` : ''}`)
  return success([...results, ...(cut ? [cut] : [])].join('\n'))
}

/** The line trimmed to the cap, keeping the match in view on long (minified) lines. */
function excerpt(line: string, at: number, length: number): string {
  const max = TOOL_LIMITS.searchLineChars
  const trimmed = line.trim()
  if (trimmed.length <= max) return trimmed
  // Two characters go to the ellipses that mark the cut ends.
  const room = max - 2
  const from = Math.max(0, Math.min(at - Math.floor((room - length) / 2), line.length - room))
  return `${from > 0 ? '…' : ''}${line.slice(from, from + room).trim()}${from + room < line.length ? '…' : ''}`
}
