/**
 * Fingerprint version 3: one defect, one issue (docs/grouping.md tells the whole rule).
 * - The throw site decides: the top in-app frame after the frames that only build the error
 *   (an Error subclass's constructor, which SpiderMonkey lists and V8 does not; assert-like
 *   helpers). Callers never count, so one bug reached from two screens stays one issue.
 * - A site a source map placed is keyed by its original file and the text of its throwing line
 *   (plus how many identical lines precede it in the file), not by its line number or a function
 *   name: a rebuild that renames every identifier or shifts lines keeps the issue, and two throws
 *   in one function are two issues.
 * - A site without source text (no map, or a map without sourcesContent) is ambiguous: its file,
 *   its function name unless minified, and the message template, worded engine-neutrally.
 * - Without in-app frames: the type and the message template.
 * - A fetch() that got no answer: the request that failed (request.ts), stack or none.
 * - Noise (ResizeObserver loops, "Script error.", extension-only stacks) gets an issue per reason,
 *   marked as noise; stale-deploy chunk-load errors fold into one.
 * Fingerprints are prefixed with the version, so they never meet an older version's. Once issues
 * exist under this version, its output must never change.
 */
import { canonicalMessage, canonicalType } from './engine-messages.js'
import { classifyNoise } from './noise.js'
import { normalizeMessage, normalizeType } from './normalize.js'
import { siteKey, throwSite } from './site.js'
import { stackNote } from './stack-note.js'
import { culpritOf, maskedTitleOf, titleOf } from './title.js'
import type { GroupingInput, GroupingResult, StackFrame } from './types.js'
import { framesBeforeScheduler, hash } from './v1.js'
import { parseFrames } from './v2.js'

/** How well an event's site reads in source terms: an issue shows the title and culprit of its best. */
export const QUALITY = { none: 0, located: 1, mapped: 2, withSource: 3 } as const

/** Groups one error by the version 3 rules; never throws, whatever the input. */
export function groupV3(input: GroupingInput): GroupingResult {
  const shown = input?.frames ?? parseFrames(input)
  // An original file under node_modules is a library's, whatever the bundle's URL says.
  const frames = shown.map((frame) => (frame.inApp && frame.original?.file.includes('node_modules/') ? { ...frame, inApp: false } : frame))
  const rawType = text(input?.type).trim()
  const message = text(input?.message)
  const type = normalizeType(canonicalType(rawType, message))
  const inApp = framesBeforeScheduler(frames).filter((frame) => frame.inApp)
  const site = throwSite(inApp, type)
  const base = {
    version: 3 as const,
    title: titleOf(rawType, message, site),
    maskedTitle: maskedTitleOf(rawType, message, site),
    culprit: culpritOf(site),
    frames: shown,
    stackNote: stackNote(input, frames, inApp),
    quality: qualityOf(site),
    site,
  }
  const verdict = classifyNoise(rawType, message, frames)
  if (verdict.kind === 'drop') return { ...base, fingerprint: hash(['v3', 'noise', verdict.reason]), drop: verdict.reason }
  if (verdict.kind === 'fold') return { ...base, fingerprint: hash(['v3', 'fold', verdict.key]) }
  const template = normalizeMessage(canonicalMessage(message))
  if (typeof input?.failedRequest === 'string' && input.failedRequest !== '') return { ...base, fingerprint: hash(['v3', 'request', type, template, input.failedRequest]) }
  if (!site) return { ...base, fingerprint: hash(['v3', 'message', type, template]) }
  const key = siteKey(site)
  return { ...base, fingerprint: hash(['v3', 'site', type, ...key.parts, ...(key.strong ? [] : [template])]) }
}

function qualityOf(site: StackFrame | undefined): number {
  if (!site) return QUALITY.none
  if (!site.original) return QUALITY.located
  return site.original.context ? QUALITY.withSource : QUALITY.mapped
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : ''
}
