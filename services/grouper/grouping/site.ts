/**
 * The throw site: the frame that says which line of the application is wrong. Frames that only
 * build the error are skipped: the constructor of an Error subclass (SpiderMonkey lists it on
 * top, V8 does not) and throw helpers such as assert() and invariant(), whose callers are the
 * defects. A site is keyed by its original file and the text of its line, never by a line number
 * (lines move when code above changes) and never by a minified name (the next build renames it).
 */
import { normalizeSourceLine } from './source-line.js'
import { normalizeFile, normalizeFunction, normalizeType } from './normalize.js'
import { normalizeSourcePath } from '../../../shared/domain/source-path.js'
import { looksMinified } from './title.js'
import type { StackFrame } from './types.js'

/** Function names of throw helpers: the defect is where they are called. */
const THROW_HELPER = /^(?:assert\w*|invariant|fail|panic|raise|throw\w*|(?:create|make)\w*Error)$/i
/** A line this short ("}", "})") does not say which statement threw. */
export const MIN_SITE_TEXT = 4

export interface SiteKey {
  parts: string[]
  /**
   * True when the site is keyed by the text of its source line. Otherwise it is ambiguous (no map
   * placed it, or the map has no source text) and the fingerprint adds the message template.
   */
  strong: boolean
}

/** The throw site among the in-app frames (innermost first), or undefined when there are none. */
export function throwSite(inApp: readonly StackFrame[], type: string): StackFrame | undefined {
  let i = 0
  while (i < inApp.length - 1 && buildsTheError(inApp[i]!, type)) i++
  return inApp[i]
}

/** What identifies a site across builds, browsers and callers. */
export function siteKey(site: StackFrame): SiteKey {
  const original = site.original
  const text = original?.context ? normalizeSourceLine(original.context.line) : ''
  if (original && text.length >= MIN_SITE_TEXT) {
    return { parts: ['site', normalizeSourcePath(original.file), text, String(original.context!.earlier)], strong: true }
  }
  if (original) return { parts: ['mapped', normalizeSourcePath(original.file), sourceName(original.function ?? '')], strong: false }
  return { parts: ['located', normalizeFile(site.file), sourceName(site.function)], strong: false }
}

/** True for a frame that constructs or throws the error on behalf of its caller. */
export function buildsTheError(frame: StackFrame, type: string): boolean {
  const line = frame.original?.context?.line ?? ''
  // A subclass constructor stops at super(...); one without a constructor, at its class line.
  if (/\bsuper\s*\(/.test(line) || /\bclass\s+[\w$]+\s+extends\b/.test(line) || /^\s*Error\.captureStackTrace\b/.test(line)) return true
  const name = normalizeFunction(frame.original?.function ?? frame.function)
  if (name === '') return false
  return name === normalizeType(type) || THROW_HELPER.test(name)
}

function sourceName(name: string): string {
  const normalized = normalizeFunction(name)
  return looksMinified(normalized) ? '' : normalized
}
