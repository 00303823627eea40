/**
 * HTML built with a tagged template that escapes every interpolated value, unless the value is
 * itself HTML built this way. Session and event text is untrusted (an agent can name itself
 * "<script>"), so there is no other way to put text into a page.
 */

/** A fragment of HTML that is safe to emit as it is. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value
  }
}

type Part = SafeHtml | string | number | boolean | null | undefined | readonly Part[]

const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' }

/** Escapes text for an element body or a double-quoted attribute. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (char) => ENTITIES[char]!)
}

function render(part: Part): string {
  if (part instanceof SafeHtml) return part.value
  if (Array.isArray(part)) return part.map(render).join('')
  if (part === null || part === undefined || part === false) return ''
  return escapeHtml(String(part))
}

/** Builds HTML; interpolations are escaped, nested html`` fragments and arrays of them are kept. */
export function html(strings: TemplateStringsArray, ...parts: Part[]): SafeHtml {
  let out = strings[0]!
  for (let i = 0; i < parts.length; i++) out += render(parts[i]!) + strings[i + 1]!
  return new SafeHtml(out)
}

/** An http(s) URL for an href, or undefined: javascript: and data: links never reach a page. */
export function safeHref(url: string): string | undefined {
  try {
    const parsed = new URL(url)
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.toString() : undefined
  } catch {
    return undefined
  }
}
