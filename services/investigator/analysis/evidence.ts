/**
 * The evidence bar, checked mechanically rather than trusted: an answer may only cite files the
 * model read in this run, and each quote must be text of that file at the cloned commit, near the
 * line cited. A model that invents one quote may have invented the rest, so a single failed
 * citation rejects the whole answer. Problems are for operators' records, not for display.
 */
import { realpath } from 'node:fs/promises'
import type { Answer } from './answer.js'
import { resolveRepoPath } from './repo-paths.js'
import { DEFAULT_MAX_FILE_BYTES, readTextFile, type TextFile } from './repo-tools.js'

/** How far (in lines, either way) a quote may start from the line cited. */
export const QUOTE_WINDOW_LINES = 5

/** Fewer non-space characters than this is too little text to prove anything ("}", "return"). */
export const MIN_QUOTE_CHARS = 8

/** A citation that matched the clone: lineStart and lineEnd are where the quote actually is. */
export interface VerifiedCitation {
  path: string
  lineStart: number
  lineEnd: number
  quote: string
}

/** What the check needs from the run: the clone and what read_file returned. */
export interface EvidenceContext {
  dir: string
  readFiles: ReadonlyMap<string, ReadonlySet<number>>
  maxFileBytes?: number
}

/** Verifies every citation of an answer against the clone and what was read in this run. */
export async function checkEvidence(answer: Answer, context: EvidenceContext): Promise<{ ok: true; citations: VerifiedCitation[] } | { ok: false; problems: string[] }> {
  const problems: string[] = []
  const verified: VerifiedCitation[] = []
  let root: string
  try {
    root = await realpath(context.dir)
  } catch {
    return { ok: false, problems: ['clone: not readable'] }
  }
  const files = new Map<string, Promise<TextFile>>()
  for (const citation of answer.citations) {
    const where = `${citation.path}:${citation.line}`
    const resolved = await resolveRepoPath(root, citation.path)
    if (!resolved.ok) {
      problems.push(`${citation.path}: ${resolved.error}`)
      continue
    }
    const read = context.readFiles.get(resolved.path)
    if (!read || resolved.path === '') {
      problems.push(`${citation.path}: not read in this run`)
      continue
    }
    let file = files.get(resolved.real)
    if (!file) files.set(resolved.real, (file = readTextFile(resolved.real, resolved.path, context.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES)))
    const text = await file
    if (!text.ok) {
      problems.push(`${citation.path}: ${text.error}`)
      continue
    }
    const quote = quoteLines(citation.quote)
    const found = locate(text.lines, quote, citation.line, read)
    if (found === 'missing') problems.push(`${where}: quote not found within ±${QUOTE_WINDOW_LINES} lines`)
    else if (found === 'unread') problems.push(`${where}: quoted lines were not read in this run`)
    // Found but too short: true, yet proves nothing, so it is dropped rather than counted.
    else if (quote.join('').replace(/\s/g, '').length >= MIN_QUOTE_CHARS) {
      verified.push({ path: resolved.path, lineStart: found, lineEnd: found + quote.length - 1, quote: quote.join('\n') })
    }
  }
  if (problems.length === 0 && answer.outcome === 'in_code' && verified.length === 0) {
    problems.push(`citations: none long enough to count as evidence (at least ${MIN_QUOTE_CHARS} non-space characters)`)
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, citations: verified }
}

/** The quote's lines, folded, with blank ends and copied "N| " prefixes of read_file dropped. */
function quoteLines(quote: string): string[] {
  let lines = quote.split(/\r?\n/)
  // Models often paste read_file's output as is; the numbers are ours, not the file's.
  const numbered = /^\s*\d+\| ?/
  if (lines.every((line) => line.trim() === '' || numbered.test(line))) lines = lines.map((line) => line.replace(numbered, ''))
  const folded = lines.map(fold)
  while (folded.length > 0 && folded[0] === '') folded.shift()
  while (folded.length > 0 && folded.at(-1) === '') folded.pop()
  return folded
}

function fold(line: string): string {
  return line.trim().replace(/\s+/g, ' ')
}

/**
 * The line where the quote starts, nearest the cited one first; 'unread' when it is there but
 * not on lines read_file returned (the model cannot have seen it), 'missing' when it is not there.
 */
function locate(file: readonly string[], quote: readonly string[], cited: number, read: ReadonlySet<number>): number | 'missing' | 'unread' {
  if (quote.length === 0) return 'missing'
  let unread = false
  for (let distance = 0; distance <= QUOTE_WINDOW_LINES; distance++) {
    for (const start of distance === 0 ? [cited] : [cited - distance, cited + distance]) {
      if (start < 1 || start + quote.length - 1 > file.length || !matchesAt(file, quote, start)) continue
      let seen = true
      for (let n = start; n < start + quote.length; n++) seen &&= read.has(n)
      if (seen) return start
      unread = true
    }
  }
  return unread ? 'unread' : 'missing'
}

/**
 * The quote as a contiguous span of the file's text: one line may be any part of a line; several
 * must run from the end of the first line through whole lines to the start of the last.
 */
function matchesAt(file: readonly string[], quote: readonly string[], start: number): boolean {
  const last = quote.length - 1
  return quote.every((part, k) => {
    const line = fold(file[start - 1 + k]!)
    if (last === 0) return line.includes(part)
    if (k === 0) return line.endsWith(part)
    if (k === last) return line.startsWith(part)
    return line === part
  })
}
