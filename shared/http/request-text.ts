/**
 * Text a request brings that PostgreSQL cannot hold: NUL (text refuses it, "invalid byte sequence
 * for encoding UTF8: 0x00") and lone UTF-16 surrogates, which JSON can carry as \ud800 (jsonb
 * refuses them; text would silently get U+FFFD). Invalid UTF-8 never gets this far: URL decoding
 * and the body readers read it as U+FFFD. Every HTTP surface reads its requests' text through here,
 * so every filter and every field meets such text one way (docs/errors.md, "Text PostgreSQL cannot
 * hold"):
 * - a query parameter (a list's filter, a link's parameter) reads as ingestion stores text, with
 *   U+FFFD in place of each: a filter then finds what was stored from the same text, and else
 *   nothing, as a filter does for any text nobody recorded;
 * - a form field or a field of a JSON body is refused, naming the field: what a person or an
 *   agent sends to be kept or acted on is never changed behind their back.
 */
import { isStorable, storableText } from '../domain/untrusted-text.js'

/** A query string's parameters, every name and value storable (see above); raw is what follows "?". */
export function readQuery(raw: string | undefined): URLSearchParams {
  const query = new URLSearchParams(raw ?? '')
  for (const [name, value] of query) {
    if (!isStorable(name) || !isStorable(value)) return new URLSearchParams([...query].map(([n, v]): [string, string] => [storableText(n), storableText(v)]))
  }
  return query
}

/** Characters of a field's name shown in a refusal: the name is the sender's text. */
const FIELD_SHOWN = 80

/**
 * The first field of a form or a parsed JSON body whose name or text PostgreSQL cannot hold, as a
 * dotted path ("steps.2.note"; "" for a body that is itself such a string), or undefined when every
 * text is storable. Walked without recursion: a 64 KiB body can nest thousands deep.
 */
export function unstorableField(body: URLSearchParams | unknown): string | undefined {
  if (body instanceof URLSearchParams) {
    for (const [name, value] of body) if (!isStorable(name) || !isStorable(value)) return shown(name)
    return undefined
  }
  const pending: Array<[path: string, value: unknown]> = [['', body]]
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [path, value] = next
    if (typeof value === 'string') {
      if (!isStorable(value)) return path
    } else if (value !== null && typeof value === 'object') {
      const fields = Object.entries(value)
      for (const [key] of fields) if (!isStorable(key)) return path === '' ? shown(key) : `${path}.${shown(key)}`
      // Reversed, so the first field is looked at first.
      for (const [key, inner] of fields.reverse()) pending.push([path === '' ? shown(key) : `${path}.${shown(key)}`, inner])
    }
  }
  return undefined
}

function shown(name: string): string {
  return storableText(name.slice(0, FIELD_SHOWN))
}
