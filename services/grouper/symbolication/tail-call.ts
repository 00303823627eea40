/**
 * JavaScriptCore eliminates tail calls (ES2015 proper tail calls, in strict code): after
 * `return document.querySelector(selector)` throws, no frame is left for the function that made
 * the call, and the error seems thrown by its caller's line. V8 and SpiderMonkey keep the frame, so
 * the same bug would key on another line in Safari. When the top frame is a native function whose
 * name the first placed frame's line does not call, the missing frame is looked for in the source:
 * a function called on that line whose body returns a call of the native function. Exactly one
 * such line is put back as a frame marked recovered; anything less certain is left alone.
 */
import type { TraceMap } from '@jridgewell/trace-mapping'
import type { StackFrame } from '../grouping/types.js'
import { contextFor, sourceLines } from './source-context.js'

/** How far into a function's body its tail call is looked for. */
const BODY_LINES = 40
const NOT_CALLEES = new Set(['if', 'for', 'while', 'switch', 'catch', 'return', 'function', 'typeof', 'await', 'new', 'super'])

/** The frame JavaScriptCore dropped before frames[at], or undefined; frames[0] is the native one. */
export function recoverTailCall(frames: readonly StackFrame[], at: number, map: TraceMap): StackFrame | undefined {
  const native = frames[0]!.function.split('.').pop() ?? ''
  const caller = frames[at]!
  const line = caller.original?.context?.line
  if (!/^[\w$]+$/.test(native) || !line || calls(line, native)) return undefined
  const found: Array<{ source: string; line: number; callee: string }> = []
  for (const name of calleesOf(line)) {
    const callee = escaped(name)
    const definition = new RegExp(`(?:function\\s+${callee}\\s*\\(|\\b${callee}\\s*=\\s*(?:async\\s*)?(?:function\\b|\\(|[\\w$]+\\s*=>)|^\\s*(?:async\\s+)?${callee}\\s*\\([^)]*\\)\\s*[:{])`)
    for (const source of map.sources) {
      const lines = source === null ? undefined : sourceLines(map, source)
      if (!lines) continue
      lines.forEach((text, i) => {
        if (!text.includes(name) || !definition.test(text)) return
        for (let j = i; j < Math.min(lines.length, i + BODY_LINES); j++) {
          if (/\breturn\b/.test(lines[j]!) && calls(lines[j]!, native)) found.push({ source: source!, line: j + 1, callee: name })
        }
      })
    }
  }
  if (found.length !== 1) return undefined
  const { source, line: at1, callee } = found[0]!
  const context = contextFor(map, source, at1)
  const column = Math.max(0, context?.line.search(new RegExp(`${escaped(native)}\\s*\\(`)) ?? 0) + 1
  return { function: '', file: caller.file, inApp: caller.inApp, recovered: 'tail_call', original: { file: source, line: at1, column, function: callee, ...(context ? { context } : {}) } }
}

function calls(line: string, name: string): boolean {
  return new RegExp(`(?<![\\w$])${escaped(name)}\\s*\\(`).test(line)
}

function escaped(name: string): string {
  return name.replace(/\$/g, '\\$')
}

function calleesOf(line: string): string[] {
  const names = [...line.matchAll(/(?<![\w$.])([A-Za-z_$][\w$]*)\s*\(/g)].map((m) => m[1]!)
  return [...new Set(names)].filter((name) => !NOT_CALLEES.has(name))
}
