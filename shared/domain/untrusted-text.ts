/**
 * Text a browser sent (a recording's element text, ids, classes, error messages and addresses; an
 * issue's title) is untrusted: where it is quoted (the matcher's targets and narratives, the
 * digest's items) it is kept only as short, flat, printable text, and where it is stored it holds
 * only what PostgreSQL can (storableText). Nothing here reads meaning into it; it is quoted, never
 * followed.
 */

/**
 * Control and format characters (NUL, which PostgreSQL's text refuses; bidirectional overrides and
 * zero-width characters, which make text read other than it is) and line or paragraph separators.
 */
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu

/**
 * value as one line of at most max characters (code points): unprintable characters become spaces,
 * runs of white space one space, and a longer text ends in "…". Anything but a string is ''.
 */
export function cleanText(value: unknown, max: number): string {
  if (typeof value !== 'string') return ''
  // Only a bounded prefix is looked at: a recorded text may be megabytes long.
  const flat = value.slice(0, max * 4).toWellFormed().replace(UNPRINTABLE, ' ').replace(/\s+/g, ' ').trim()
  const points = Array.from(flat)
  return points.length > max ? `${points.slice(0, max - 1).join('').trimEnd()}…` : flat
}

/** A name from a recorded attribute (an id, a class): cleaned, with no spaces, at most max characters. */
export function cleanName(value: unknown, max: number): string {
  return cleanText(value, max).replace(/ /g, '')
}

/** True when PostgreSQL can hold text as it is: no NUL (text refuses it), no lone surrogate (jsonb refuses it). */
export function isStorable(text: string): boolean {
  return !text.includes('\0') && text.isWellFormed()
}

/**
 * text with U+FFFD in place of each NUL and lone surrogate: how recorded text is stored, and how a
 * request's filter is read, so the filter finds what was stored from the same text.
 */
export function storableText(text: string): string {
  return isStorable(text) ? text : text.replaceAll('\0', '\uFFFD').toWellFormed()
}
