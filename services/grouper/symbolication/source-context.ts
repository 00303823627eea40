/**
 * Source lines around a symbolicated frame, read from the map's sourcesContent: what the issue
 * page shows, and the throwing line's text that fingerprint version 3 keys a throw site by. A
 * file's lines are split once per parsed map and kept as long as the map stays cached.
 */
import { sourceContentFor, type TraceMap } from '@jridgewell/trace-mapping'
import { normalizeSourceLine } from '../grouping/source-line.js'
import type { SourceContext } from '../grouping/types.js'

/** Lines shown before and after the frame's line. */
export const CONTEXT_LINES = 3
/** A longer line is cut: minified or generated code in sourcesContent says nothing more past it. */
export const MAX_CONTEXT_LINE = 240

interface SourceFile {
  lines: string[]
  /** Normalised line text → how often it occurred so far, filled as far as asked (see earlier()). */
  seen?: Map<string, number[]>
}

const files = new WeakMap<TraceMap, Map<string, SourceFile | null>>()

/** The lines around line (1-based) of source, or undefined when the map carries no source text. */
export function contextFor(map: TraceMap, source: string, line: number): SourceContext | undefined {
  const file = sourceFile(map, source)
  if (!file || line < 1 || line > file.lines.length) return undefined
  const at = line - 1
  const cut = (text: string): string => (text.length > MAX_CONTEXT_LINE ? text.slice(0, MAX_CONTEXT_LINE) : text)
  return {
    pre: file.lines.slice(Math.max(0, at - CONTEXT_LINES), at).map(cut),
    line: cut(file.lines[at]!),
    post: file.lines.slice(at + 1, at + 1 + CONTEXT_LINES).map(cut),
    earlier: earlier(file, at),
  }
}

/** The lines of source as the map carries them, split once per cached map; undefined without sourcesContent. */
export function sourceLines(map: TraceMap, source: string): readonly string[] | undefined {
  return sourceFile(map, source)?.lines
}

function sourceFile(map: TraceMap, source: string): SourceFile | null {
  let byMap = files.get(map)
  if (!byMap) files.set(map, (byMap = new Map()))
  let file = byMap.get(source)
  if (file === undefined) {
    const text = sourceContentFor(map, source)
    file = typeof text === 'string' ? { lines: text.split(/\r\n|\r|\n/) } : null
    byMap.set(source, file)
  }
  return file
}

/** How many lines before index at read the same (normalised): tells identical throw lines in one file apart. */
function earlier(file: SourceFile, at: number): number {
  if (!file.seen) {
    file.seen = new Map()
    file.lines.forEach((text, i) => {
      const key = normalizeSourceLine(text)
      const list = file.seen!.get(key)
      if (list) list.push(i)
      else file.seen!.set(key, [i])
    })
  }
  const same = file.seen.get(normalizeSourceLine(file.lines[at]!))!
  return same.indexOf(at)
}
