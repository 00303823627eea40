/**
 * The original statement around a symbolicated position, read from the map's sourcesContent with
 * @babel/parser: what fingerprint version 4 keys a throw site by (statement-units.ts says why a
 * statement and not a line). A file is parsed when a throw site first lands in it and kept while
 * it is among the most recently used PARSED_CHARS characters of source; each answer is kept per
 * map and position, so the events of one bug cost a lookup. Never throws: a source that does not
 * parse, a position no statement holds, or a statement longer than MAX_STATEMENT_LINES gives no
 * statement, and the site is keyed by its line as version 3 does.
 *
 * MAX_STATEMENT_LINES, MAX_SOURCE_CHARS and what this file and statement-units.ts call a statement
 * are part of version 4's output: changing them moves its fingerprints, which only a new version
 * may do (docs/grouping.md).
 */
import { parse, type ParserPlugin } from '@babel/parser'
import { sourceContentFor, type TraceMap } from '@jridgewell/trace-mapping'
import type { SourceStatement } from '../grouping/types.js'
import { inlinedInitializer } from './inlined-const.js'
import { forEachUnit, segmentAt, segmentsOf, type AstNode } from './statement-units.js'

/** A longer statement (a whole JSX tree, a config object) changes with every edit near it: its line says more. */
export const MAX_STATEMENT_LINES = 12
/**
 * A bigger source is generated or bundled code, not a file someone wrote; parsing it would hold
 * the grouper's thread for a tenth of a second or more (about 0.3 ms per 1,000 characters, cold).
 */
const MAX_SOURCE_CHARS = 300_000
/** Characters of source whose parses are kept: a parse costs about 40 bytes a character, so 2 M is about 80 MB. */
const PARSED_CHARS = 2_000_000
const ANSWERS_PER_MAP = 4096
/** A const inlined into another's initializer, inlined in turn: followed this many times. */
const MAX_INLINE_HOPS = 3

type Syntax = 'ts' | 'tsx' | 'js' | 'ts-scripts' | 'js-scripts'

interface ParsedFile {
  syntax: Syntax
  text: string
  root: AstNode
  comments: Array<{ start: number; end: number }>
  lineStarts: number[]
  /** Statement text → where each statement reading so begins, filled when first asked (see earlierOf). */
  starts?: Map<string, number[]>
}

/** By source text: the same string instance comes back from a cached map, and its hash is kept. Least recently used first. */
const parsed = new Map<string, ParsedFile | null>()
let parsedChars = 0
const answers = new WeakMap<TraceMap, Map<string, SourceStatement | null>>()

/** The statement at line (1-based) and column (0-based) of source in map, or undefined (see above). */
export function statementAt(map: TraceMap, source: string, line: number, column: number): SourceStatement | undefined {
  let byPosition = answers.get(map)
  if (!byPosition) answers.set(map, (byPosition = new Map()))
  const key = `${line}:${column}:${source}`
  let answer = byPosition.get(key)
  if (answer === undefined) {
    answer = find(map, source, line, column) ?? null
    if (byPosition.size >= ANSWERS_PER_MAP) byPosition.clear()
    byPosition.set(key, answer)
  }
  return answer ?? undefined
}

function find(map: TraceMap, source: string, line: number, column: number): SourceStatement | undefined {
  const text = sourceContentFor(map, source)
  if (typeof text !== 'string' || text.length > MAX_SOURCE_CHARS) return undefined
  try {
    const file = parsedFile(text, syntaxOf(source, text))
    const start = file?.lineStarts[line - 1]
    if (!file || start === undefined || column < 0) return undefined
    let offset = start + column
    for (let hop = 0; hop < MAX_INLINE_HOPS; hop++) {
      const moved = inlinedInitializer(file.root, offset)
      if (moved === undefined) break
      offset = moved
    }
    const segment = segmentAt(file.root, offset)
    const statement = segment && statementOf(file, segment)
    return statement && { text: statement.text, line: statement.line, earlier: earlierOf(file, statement) }
  } catch {
    // A tree deeper than the stack, or any other surprise of odd input: the site keeps its line.
    return undefined
  }
}

interface Found {
  text: string
  line: number
  /** Offset of its first character: tells apart statements that read the same. */
  at: number
}

/** A segment's text without comments, whitespace folded, or undefined when it is empty or too long. */
function statementOf(file: ParsedFile, [from, to]: [number, number]): Found | undefined {
  const { text } = file
  while (from < to && /\s/.test(text[from]!)) from++
  while (to > from && /\s/.test(text[to - 1]!)) to--
  if (from === to) return undefined
  const line = lineOf(file, from)
  if (lineOf(file, to - 1) - line + 1 > MAX_STATEMENT_LINES) return undefined
  let out = ''
  let at = from
  for (let i = firstCommentEndingAfter(file, from); i < file.comments.length && file.comments[i]!.start < to; i++) {
    const comment = file.comments[i]!
    out += `${text.slice(at, comment.start)} `
    at = Math.min(to, comment.end)
  }
  out += text.slice(at, to)
  const folded = out.replace(/\s+/g, ' ').trim()
  return folded === '' ? undefined : { text: folded, line, at: from }
}

/** How many statements of the file before this one read the same: tells identical statements apart. */
function earlierOf(file: ParsedFile, statement: Found): number {
  if (!file.starts) {
    const starts = new Map<string, number[]>()
    forEachUnit(file.root, (unit) => {
      for (const segment of segmentsOf(unit)) {
        const found = statementOf(file, segment)
        if (!found) continue
        const list = starts.get(found.text)
        if (list) list.push(found.at)
        else starts.set(found.text, [found.at])
      }
    })
    file.starts = starts
  }
  return (file.starts.get(statement.text) ?? []).filter((at) => at < statement.at).length
}

function firstCommentEndingAfter(file: ParsedFile, offset: number): number {
  let low = 0
  let high = file.comments.length
  while (low < high) {
    const mid = (low + high) >> 1
    if (file.comments[mid]!.end <= offset) low = mid + 1
    else high = mid
  }
  return low
}

function lineOf(file: ParsedFile, offset: number): number {
  let low = 0
  let high = file.lineStarts.length - 1
  while (low < high) {
    const mid = (low + high + 1) >> 1
    if (file.lineStarts[mid]! <= offset) low = mid
    else high = mid - 1
  }
  return low + 1
}

function parsedFile(text: string, syntax: Syntax): ParsedFile | null {
  const known = parsed.get(text)
  if (known !== undefined && (known === null || known.syntax === syntax)) {
    parsed.delete(text)
    parsed.set(text, known)
    return known
  }
  const file = parseFile(text, syntax)
  if (known !== undefined) parsed.delete(text)
  else parsedChars += text.length
  parsed.set(text, file)
  for (const [oldest] of parsed) {
    if (parsedChars <= PARSED_CHARS || oldest === text) break
    parsed.delete(oldest)
    parsedChars -= oldest.length
  }
  return file
}

function parseFile(text: string, syntax: Syntax): ParsedFile | null {
  const code = syntax.endsWith('-scripts') ? scriptsOnly(text) : text
  const plugins: ParserPlugin[] = syntax.startsWith('ts') ? ['typescript', 'decorators-legacy'] : ['jsx']
  if (syntax === 'tsx') plugins.push('jsx')
  try {
    const ast = parse(code, {
      sourceType: 'unambiguous',
      // Source as written may not compile (a map of a work in progress): keep what parses.
      errorRecovery: true,
      attachComment: false,
      allowReturnOutsideFunction: true,
      allowAwaitOutsideFunction: true,
      allowImportExportEverywhere: true,
      allowSuperOutsideMethod: true,
      allowUndeclaredExports: true,
      allowNewTargetOutsideFunction: true,
      plugins,
    })
    return { syntax, text, root: ast as unknown as AstNode, comments: (ast.comments ?? []).map((comment) => ({ start: comment.start ?? 0, end: comment.end ?? 0 })), lineStarts: lineStartsOf(text) }
  } catch {
    return null
  }
}

/** Offsets where lines begin, split as source-context.ts splits them (\r\n, \r or \n). */
function lineStartsOf(text: string): number[] {
  const starts = [0]
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i)
    if (char === 13 && text.charCodeAt(i + 1) === 10) i++
    if (char === 10 || char === 13) starts.push(i + 1)
  }
  return starts
}

function syntaxOf(source: string, text: string): Syntax {
  const path = source.split(/[?#]/, 1)[0]!.toLowerCase()
  if (/\.(?:vue|svelte|astro|html?)$/.test(path)) return /<script\b[^>]*\blang=["']?ts/i.test(text) ? 'ts-scripts' : 'js-scripts'
  if (/\.[mc]?tsx$/.test(path)) return 'tsx'
  return /\.[mc]?ts$/.test(path) ? 'ts' : 'js'
}

/** A single-file component with everything outside its <script> blocks blanked: offsets and lines stay. */
function scriptsOnly(text: string): string {
  const blank = (part: string): string => part.replace(/[^\r\n]/g, ' ')
  let out = ''
  let at = 0
  for (const match of text.matchAll(/(<script\b[^>]*>)([\s\S]*?)<\/script>/gi)) {
    const start = match.index + match[1]!.length
    out += blank(text.slice(at, start)) + match[2]!
    at = start + match[2]!.length
  }
  return out + blank(text.slice(at))
}
