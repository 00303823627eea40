/**
 * Fingerprint version 4: version 3's rules, with a throw site keyed by its whole statement instead
 * of its line (docs/grouping.md tells the whole rule).
 * - The engines point at different tokens of one minified statement, and the map sends those
 *   tokens to different lines of the original: `new Intl.NumberFormat(locale, {…})` with its
 *   options below, its const inlined into the `return` that used it, is the `return` line in V8
 *   and SpiderMonkey and the `const` line in JavaScriptCore (test/fixtures/grouping-corpus, bug
 *   multi-line). Version 3 made that two issues. The statement around the position, with an
 *   inlined const followed back to its declaration, is one (symbolication/source-statement.ts).
 * - A site whose statement is not known (the source does not parse, or the statement is longer
 *   than a screen) keeps version 3's key: the text of its line.
 * - Everything else is version 3's: the throw site, the ambiguous site, the failed request, the
 *   message template, noise.
 * This module repeats version 3's steps rather than sharing them, so v3.ts stays as it was frozen.
 * Fingerprints are prefixed with the version, so they never meet an older version's. Once issues
 * exist under this version, its output must never change (test/fixtures/grouping-corpus/golden/v4.json).
 */
import { canonicalMessage, canonicalType } from './engine-messages.js'
import { classifyNoise } from './noise.js'
import { normalizeMessage, normalizeType } from './normalize.js'
import { MIN_SITE_TEXT, siteKey, throwSite, type SiteKey } from './site.js'
import { stackNote } from './stack-note.js'
import { culpritOf, maskedTitleOf, titleOf } from './title.js'
import type { GroupingInput, GroupingResult, SourceStatement, StackFrame } from './types.js'
import { framesBeforeScheduler, hash } from './v1.js'
import { parseFrames } from './v2.js'
import { QUALITY } from './v3.js'
import { normalizeSourcePath } from '../../../shared/domain/source-path.js'

/** Groups one error by the version 4 rules; never throws, whatever the input. */
export function groupV4(input: GroupingInput): GroupingResult {
  const shown = input?.frames ?? parseFrames(input)
  // An original file under node_modules is a library's, whatever the bundle's URL says.
  const frames = shown.map((frame) => (frame.inApp && frame.original?.file.includes('node_modules/') ? { ...frame, inApp: false } : frame))
  const rawType = text(input?.type).trim()
  const message = text(input?.message)
  const type = normalizeType(canonicalType(rawType, message))
  const inApp = framesBeforeScheduler(frames).filter((frame) => frame.inApp)
  const site = throwSite(inApp, type)
  const statement = site ? statementOf(input, site) : undefined
  const base = {
    version: 4 as const,
    title: titleOf(rawType, message, site),
    maskedTitle: maskedTitleOf(rawType, message, site),
    // The statement's first line: the line every engine's event of this site names.
    culprit: culpritOf(statement && site?.original ? { ...site, original: { ...site.original, line: statement.line } } : site),
    frames: shown,
    stackNote: stackNote(input, frames, inApp),
    quality: qualityOf(site),
    site,
  }
  const verdict = classifyNoise(rawType, message, frames)
  if (verdict.kind === 'drop') return { ...base, fingerprint: hash(['v4', 'noise', verdict.reason]), drop: verdict.reason }
  if (verdict.kind === 'fold') return { ...base, fingerprint: hash(['v4', 'fold', verdict.key]) }
  const template = normalizeMessage(canonicalMessage(message))
  if (typeof input?.failedRequest === 'string' && input.failedRequest !== '') return { ...base, fingerprint: hash(['v4', 'request', type, template, input.failedRequest]) }
  if (!site) return { ...base, fingerprint: hash(['v4', 'message', type, template]) }
  const key = statementKey(site, statement) ?? siteKey(site)
  return { ...base, fingerprint: hash(['v4', 'site', type, ...key.parts, ...(key.strong ? [] : [template])]) }
}

/** The statement of a site with source text, asked of the symbolicator; never throws. */
function statementOf(input: GroupingInput, site: StackFrame): SourceStatement | undefined {
  if (!site.original?.context || typeof input?.statementOf !== 'function') return undefined
  try {
    return input.statementOf(site)
  } catch {
    return undefined
  }
}

/** A site keyed by its statement: original file, the statement's text, how many statements above read the same. */
function statementKey(site: StackFrame, statement: SourceStatement | undefined): SiteKey | undefined {
  if (!site.original || !statement || statement.text.length < MIN_SITE_TEXT) return undefined
  return { parts: ['statement', normalizeSourcePath(site.original.file), statement.text, String(statement.earlier)], strong: true }
}

function qualityOf(site: StackFrame | undefined): number {
  if (!site) return QUALITY.none
  if (!site.original) return QUALITY.located
  return site.original.context ? QUALITY.withSource : QUALITY.mapped
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : ''
}
