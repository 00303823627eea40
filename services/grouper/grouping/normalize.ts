/**
 * Normalises what goes into a fingerprint, so one bug keeps one issue across deploys, hosts,
 * engines and values: origins, build hashes, engine naming quirks and the variable parts of
 * messages are removed or replaced by placeholders.
 */

export const MAX_NORMALIZED_MESSAGE = 500
const MAX_TYPE = 100
const HASH = '<hash>'

/** An error type as hashed: trimmed, without V8's "Uncaught " prefix; empty counts as "Error". */
export function normalizeType(type: unknown): string {
  const text = typeof type === 'string' ? type.trim().replace(/^Uncaught\s+/, '') : ''
  return text.slice(0, MAX_TYPE) || 'Error'
}

/** A file reference without origin, query, fragment or build hash. */
export function normalizeFile(file: string): string {
  const path = file
    .trim()
    .replace(/^blob:/i, '')
    .replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '') // scheme://user@host:port
    .replace(/[?#].*$/s, '')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<uuid>')
  const segments = path.split('/')
  const last = segments.length - 1
  return segments.map((segment, i) => (i === last ? normalizeBasename(segment) : normalizeDirectory(segment))).join('/')
}

/**
 * A function name as the engines agree on it: V8 writes "Cart.render", "Foo.bar [as baz]" and
 * "Object.<anonymous>", SpiderMonkey "Cart/render" and "render/<" (a closure inside render), and
 * JavaScriptCore "render". '' means anonymous.
 */
export function normalizeFunction(name: string): string {
  const text = name.trim().replace(/\s*\[as [^\]]*\]$/, '').replace(/^(?:async|new)\s+/, '')
  // A trailing "<" is SpiderMonkey's mark for an anonymous function inside (or feeding) the named one.
  if (text.endsWith('<')) return ''
  const last = (text.split(/[./]/).filter((part) => part !== '').pop() ?? '').replace(/^(?:get|set)\s+/, '')
  return last === '<anonymous>' || last === 'anonymous' ? '' : last
}

/** A message with variable parts replaced: URLs, UUIDs, hex, quoted values, numbers. */
export function normalizeMessage(message: string): string {
  // Bounds the work on hostile input; messages this long differ in their first part anyway.
  return message
    .slice(0, MAX_NORMALIZED_MESSAGE * 16)
    .replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s'"`]+/gi, '<url>')
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<uuid>')
    .replace(/\b0x[0-9a-f]+\b/gi, '<hex>')
    // Long hex with letters and digits (ids, digests); digit-only runs are numbers, handled below.
    .replace(/\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{8,}\b/gi, '<hex>')
    // Quotes must not start or end inside a word, or the apostrophe in "can't" opens a quote.
    .replace(/(?<!\w)(?:'[^'\n]*'|"[^"\n]*"|`[^`]*`)(?!\w)/g, '<value>')
    .replace(/\d+(?:\.\d+)?/g, '<n>')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, MAX_NORMALIZED_MESSAGE)
}

function normalizeDirectory(segment: string): string {
  // Build ids as folders: Next.js "/_next/static/<build id>/", "/static/<hex>/".
  if (/^[0-9a-f]{8,}$/i.test(segment) && /\d/.test(segment) && /[a-f]/i.test(segment)) return HASH
  if (segment.length >= 16 && isHashLike(segment)) return HASH
  return segment
}

// index-4f3a9c2b.js, main.8a7f6e5d.chunk.js, chunk-ABCD1234.js (esbuild), index-BkJ2n_3x.js (Vite).
function normalizeBasename(basename: string): string {
  const parts = basename.split('.')
  if (parts.length < 2) return basename
  // Middle parts are webpack's "[name].[contenthash].js" (and "[id].[contenthash].chunk.js").
  for (let i = 1; i < parts.length - 1; i++) if (isHashLike(parts[i]!)) parts[i] = HASH
  parts[0] = normalizeStem(parts[0]!)
  return parts.join('.')
}

function normalizeStem(stem: string): string {
  const dash = stem.lastIndexOf('-')
  if (dash > 0 && isHashLike(stem.slice(dash + 1))) return `${stem.slice(0, dash + 1)}${HASH}`
  // Vite's 8-character base64url hash may itself contain "-": "index-B-aX3_9q".
  const vite = stem.length - 8
  if (vite > 0 && stem[vite - 1] === '-' && isHashLike(stem.slice(vite))) return `${stem.slice(0, vite)}${HASH}`
  return dash < 0 && isHashLike(stem) ? HASH : stem
}

function isHashLike(text: string): boolean {
  if (text.length < 8 || text.length > 64 || !/^[\w-]+$/.test(text)) return false
  // Names made of words are not hashes: "datetime", "is-great", "ItemList", "src_pages_Home_tsx".
  // A random hash of letters only reads as words rarely (well under 1% of deploys).
  return !text.split(/[_-]/).every(isWord)
}

function isWord(token: string): boolean {
  return token === '' || /^[a-z]+$/.test(token) || /^[A-Za-z][a-z]{2,}(?:[A-Z][a-z]{2,})*$/.test(token)
}
