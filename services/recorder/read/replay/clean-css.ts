/**
 * A recorded page's CSS, made to fetch nothing when the replay draws it: every url() that a
 * browser would fetch (anything but a data: image or a #fragment of the page itself) becomes
 * url(), which browsers resolve to nothing and never fetch, so a background image is simply not
 * drawn and a web font falls back to the next family; bare strings in image-set() likewise, and
 * @import rules go. The replay's policy would refuse those fetches anyway, but each refusal is an
 * error on the console and a broken picture. A small tokenizer, not a regular expression: the text
 * is the recorded site's, and comments, strings and escapes (u\72l(…) is url(…)) must not hide a URL.
 */

/** A token read from the text: its value with escapes decoded, and where it ends. */
interface Read {
  value: string
  end: number
}

const EMPTY_URL = 'url()'
/** Text in which none of these occurs holds no URL: most style attributes. */
const MAY_FETCH = /url|image-set|@import|\\/i

/** The CSS with every fetched URL emptied and every @import removed. */
export function cleanCss(css: string): string {
  if (!MAY_FETCH.test(css)) return css
  let out = ''
  let copied = 0
  let depth = 0
  /** Depths of the open image-set() calls, whose strings are URLs. */
  const imageSets: number[] = []
  let i = 0
  const replace = (from: number, to: number, text: string): void => {
    out += css.slice(copied, from) + text
    copied = to
  }
  while (i < css.length) {
    const c = css[i]!
    if (c === '/' && css[i + 1] === '*') {
      const end = css.indexOf('*/', i + 2)
      i = end < 0 ? css.length : end + 2
    } else if (c === '"' || c === "'") {
      const string = readString(css, i)
      if (imageSets.length > 0 && !isInline(string.value)) replace(i, string.end, EMPTY_URL)
      i = string.end
    } else if (c === '(') {
      depth++
      i++
    } else if (c === ')') {
      if (imageSets[imageSets.length - 1] === depth) imageSets.pop()
      depth = Math.max(0, depth - 1)
      i++
    } else if (c === '@') {
      const rule = readIdent(css, i + 1)
      const name = rule.value.toLowerCase()
      if (name === 'import') {
        const end = statementEnd(css, rule.end)
        replace(i, end, '')
        i = end
      } else if (name === 'namespace') {
        // Its url() names a namespace and is never fetched.
        i = statementEnd(css, rule.end)
      } else i = Math.max(rule.end, i + 1)
    } else if (startsIdent(css, i)) {
      const ident = readIdent(css, i)
      const name = ident.value.toLowerCase()
      i = ident.end
      if (css[i] !== '(') continue
      if (name === 'url') {
        const url = readUrl(css, i + 1)
        if (!isInline(url.value)) replace(ident.start, url.end, EMPTY_URL)
        i = url.end
      } else if (name === 'image-set' || name === '-webkit-image-set') imageSets.push(depth + 1)
    } else i++
  }
  return copied === 0 ? css : out + css.slice(copied)
}

/** URLs the replay draws without fetching: data: images, and references into the page itself. */
function isInline(url: string): boolean {
  const trimmed = url.trim()
  return trimmed === '' || trimmed.startsWith('#') || /^data:image\//i.test(trimmed)
}

function isIdentChar(c: string | undefined): boolean {
  return c !== undefined && (/[\w-]/.test(c) || c.charCodeAt(0) >= 0x80)
}

function startsIdent(css: string, i: number): boolean {
  const c = css[i]
  return (c !== undefined && (/[a-zA-Z_-]/.test(c) || c.charCodeAt(0) >= 0x80)) || (c === '\\' && css[i + 1] !== undefined && css[i + 1] !== '\n')
}

/** An escape (the backslash at i): a code point in up to 6 hex digits and one optional space, or the next character. */
function readEscape(css: string, i: number): Read {
  const hex = /^[0-9a-fA-F]{1,6}/.exec(css.slice(i + 1, i + 7))?.[0]
  if (!hex) return { value: css[i + 1] ?? '', end: Math.min(i + 2, css.length) }
  let end = i + 1 + hex.length
  if (/\s/.test(css[end] ?? '')) end++
  const code = parseInt(hex, 16)
  return { value: code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : '\ufffd', end }
}

function readIdent(css: string, start: number): Read & { start: number } {
  let value = ''
  let i = start
  while (i < css.length) {
    if (css[i] === '\\' && css[i + 1] !== '\n') {
      const escape = readEscape(css, i)
      value += escape.value
      i = escape.end
    } else if (isIdentChar(css[i])) value += css[i++]
    else break
  }
  return { value, end: i, start }
}

/** A quoted string starting at its quote; an unclosed one ends at the line's end, as in CSS. */
function readString(css: string, start: number): Read {
  const quote = css[start]
  let value = ''
  let i = start + 1
  while (i < css.length && css[i] !== quote && css[i] !== '\n') {
    if (css[i] === '\\') {
      const escape = readEscape(css, i)
      if (css[i + 1] !== '\n') value += escape.value
      i = escape.end
    } else value += css[i++]
  }
  return { value, end: Math.min(i + 1, css.length) }
}

/** What url( holds (quoted or not) from just after its parenthesis, to after the closing one. */
function readUrl(css: string, start: number): Read {
  let i = start
  while (/\s/.test(css[i] ?? '')) i++
  let value = ''
  if (css[i] === '"' || css[i] === "'") {
    const string = readString(css, i)
    value = string.value
    i = string.end
  } else {
    while (i < css.length && css[i] !== ')') {
      if (css[i] === '\\') {
        const escape = readEscape(css, i)
        value += escape.value
        i = escape.end
      } else value += css[i++]
    }
  }
  const close = css.indexOf(')', i)
  return { value, end: close < 0 ? css.length : close + 1 }
}

/** Where an at-rule's statement ends: after its semicolon outside strings, or at a block's brace. */
function statementEnd(css: string, start: number): number {
  let i = start
  while (i < css.length) {
    const c = css[i]!
    if (c === ';') return i + 1
    if (c === '{' || c === '}') return i
    if (c === '"' || c === "'") i = readString(css, i).end
    else if (c === '\\') i = readEscape(css, i).end
    else i++
  }
  return i
}
