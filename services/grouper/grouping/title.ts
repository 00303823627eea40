/**
 * Titles and culprits in source terms. A title is the error's type and its message with one user's
 * data replaced (numbers, URLs, e-mail addresses, and ids and quoted values the code did not write)
 * and minified identifiers replaced by the names in the source line that threw. A culprit is the
 * throw site as "function (src/file.ts:line)".
 */
import { normalizeFile } from './normalize.js'
import { normalizeSourcePath } from '../../../shared/domain/source-path.js'
import type { StackFrame } from './types.js'

const TITLE_MAX = 200
// Bounds the work on hostile input: a title shows the first 200 characters anyway.
const MESSAGE_SCAN = 2000

/** "Type: message" with data replaced; the type alone, or "Error", when the message is empty. */
export function titleOf(type: string, message: string, site?: StackFrame): string {
  return titleLine(type, readableMessage(message, site?.original?.context?.line))
}

/**
 * The title as it read before titles kept the code's ids (issue 28): every id masked, whatever
 * wrote it. An issue stored with this title takes the title of its next event that reads it so
 * (store-events.ts), so a name the code wrote comes back without rewriting stored issues.
 */
export function maskedTitleOf(type: string, message: string, site?: StackFrame): string {
  return titleLine(type, readableMessage(message, site?.original?.context?.line, false))
}

/** "Type: message" as given, capped; the type alone, or "Error", when the message is empty. */
export function titleLine(type: string, message: string): string {
  const title = type && message ? `${type}: ${message}` : type || message || 'Error'
  if (title.length <= TITLE_MAX) return title
  // Do not leave half of a surrogate pair (an emoji) at the cut.
  const cut = title.slice(0, TITLE_MAX)
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut
}

/**
 * The message as a title shows it; sourceLine is the throwing line's source text, when known.
 * keepCodeIds false masks every id, as titles did before they kept the ones the code wrote.
 */
export function readableMessage(message: string, sourceLine?: string, keepCodeIds = true): string {
  const text = restoreNames(message.slice(0, MESSAGE_SCAN), sourceLine)
  const keptIds = new Set<string>()
  return text
    .replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s'"`]+/gi, '<url>')
    .replace(/\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b/g, '<email>')
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<uuid>')
    .replace(/\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b/g, '<date>')
    .replace(/\b0x[0-9a-f]+\b/gi, '<hex>')
    .replace(/\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{12,}\b/gi, '<hex>')
    // Ids mixing letters and digits (ORD-2024-0042, a1b2c3d4); "base64" and "utf8" are words. A name
    // the code wrote (h264Decoder, sha256Digest) is no user's data, as a quoted value is not.
    .replace(/(?<![\w-])(?=[\w-]*[A-Za-z])(?=(?:[\w-]*\d){3})[A-Za-z0-9][\w-]{5,}(?![\w-])/g, (id, offset: number, whole: string) => (keepCodeIds && isCodeId(id, whole.slice(0, offset), whole.slice(offset + id.length), sourceLine) ? (keptIds.add(id), id) : '<id>'))
    .replace(/(?<!\w)(?:'[^'\n]*'|"[^"\n]*"|`[^`]*`)(?!\w)/g, (quoted, offset: number, whole: string) => (isCode(quoted.slice(1, -1), whole.slice(0, offset), sourceLine) || whole[offset + quoted.length] === ':' ? quoted : '<value>'))
    // The digits of a kept id ("eu-west-123") are part of its name.
    .replace(/(?<![\w.<])\d+(?:\.\d+)?(?![\w>])/g, (n, offset: number, whole: string) => (keptIds.size > 0 && keptIds.has(tokenAt(whole, offset)) ? n : '<n>'))
    .replace(/\s+/g, ' ')
    .trim()
}

/** The throw site as "function (src/file.ts:line)"; a frame no map placed shows its bundle file only. */
export function culpritOf(site: StackFrame | undefined): string {
  if (!site) return ''
  const original = site.original
  if (original) return `${original.function || '<anonymous>'} (${normalizeSourcePath(original.file)}:${original.line})`
  const name = looksMinified(site.function) ? '' : site.function
  return `${name || '<anonymous>'} (${normalizeFile(site.file)})`
}

/** Names minifiers make: one or two characters, or three with a digit, "$" or "_". */
export function looksMinified(name: string): boolean {
  const last = name.split(/[./]/).pop() ?? ''
  return last.length <= 2 || (last.length === 3 && /[\d$_]/.test(last))
}

// Words after which an engine quotes code: "reading 'x'", "evaluating 'a.b'", JavaScriptCore's "(In 'a.b()', 'a.b' is undefined)".
const ENGINE_QUOTES_CODE = String.raw`(?:(?:reading|setting|property|evaluating|In)\s*|\(In '[^']*',\s*)`
const BEFORE_CODE_QUOTE = new RegExp(`${ENGINE_QUOTES_CODE}$`)
// Inside such a quote, up to here: an id in it is part of the code the engine quotes. Looked for in the last
// CODE_QUOTE_SCAN characters only, so a message of many ids costs a bounded scan per id.
const CODE_QUOTE_SCAN = 300
const INSIDE_CODE_QUOTE = new RegExp(`${ENGINE_QUOTES_CODE}(?:'[^'\\n]*|"[^"\\n]*|\`[^\`]*)$`)

// A quoted value is code, not one user's data, when it is a JSON key (followed by ":"), when the engine quotes code ("reading 'x'",
// "evaluating 'a.b'") or when the throwing line itself contains it.
function isCode(inner: string, before: string, sourceLine: string | undefined): boolean {
  if (BEFORE_CODE_QUOTE.test(before)) return true
  return inner !== '' && sourceLine !== undefined && sourceLine.includes(inner)
}

// An id is code, not one user's data, when the throwing line has it as a whole token, when it is inside code the engine quotes,
// or when it is the variable a ReferenceError names ("x is not defined", JavaScriptCore's "Can't find variable: x").
// Unlike a quoted value, an id as a JSON key is not code: objects keyed by ids ({"ORD-2024-0042": …}) hold data.
function isCodeId(id: string, before: string, after: string, sourceLine: string | undefined): boolean {
  if (INSIDE_CODE_QUOTE.test(before.slice(-CODE_QUOTE_SCAN))) return true
  if ((before === '' && after === ' is not defined') || (before === "Can't find variable: " && after === '')) return true
  if (sourceLine === undefined) return false
  const at = sourceLine.indexOf(id)
  for (let i = at; i >= 0; i = sourceLine.indexOf(id, i + 1)) {
    if (!/[\w-]/.test(sourceLine[i - 1] ?? '') && !/[\w-]/.test(sourceLine[i + id.length] ?? '')) return true
  }
  return false
}

/** The run of word characters and "-" around offset: the id a digit run belongs to. */
function tokenAt(text: string, offset: number): string {
  let start = offset
  let end = offset
  while (start > 0 && /[\w-]/.test(text[start - 1]!)) start--
  while (end < text.length && /[\w-]/.test(text[end]!)) end++
  return text.slice(start, end)
}

/**
 * "n(...).track is not a function" quotes the minified callee; the source line that threw reads
 * "getAnalytics().track(...)". Each minified head of a property chain in the message is replaced
 * by the one name the source line puts before the same chain.
 */
function restoreNames(message: string, sourceLine: string | undefined): string {
  if (!sourceLine) return message
  return message.replace(/(?<![\w$.])([A-Za-z_$][\w$]*)(\(\.\.\.\)|\(\))?((?:\.[A-Za-z_$][\w$]*)+)/g, (whole, head: string, call: string | undefined, chain: string) => {
    if (!looksMinified(head)) return whole
    const properties = chain.split('.').slice(1).map((p) => `\\s*\\.\\s*${p.replace(/\$/g, '\\$')}`).join('')
    const pattern = new RegExp(`(?<![\\w$.])([A-Za-z_$][\\w$]*)${call ? '\\s*\\([^()]*\\)' : ''}${properties}(?![\\w$])`, 'g')
    const names = new Set([...sourceLine.matchAll(pattern)].map((m) => m[1]!))
    return names.size === 1 ? `${[...names][0]}${call ?? ''}${chain}` : whole
  })
}
