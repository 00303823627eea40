/**
 * Stamps a chunk and its source map with a debug id, so the service finds the map by the id the
 * running code carries, not by URL and release. The id is derived from the chunk's content, so
 * one build's output always gets the same ids. Three marks:
 *   - `"debugId": "<id>"` in the map (the upload sends it along);
 *   - a `//# debugId=<id>` comment in the chunk (the convention other tools read);
 *   - a snippet that stores `new Error().stack` → id in globalThis.__svcDebugIds when the chunk
 *     runs; the stack names the chunk's own URL, which the SDK reads out when it reports an error.
 */
import { createHash } from 'node:crypto'

/** The global the snippet writes and the SDK (sdk/src/debug-ids.ts) reads. */
export const REGISTRY_GLOBAL = '__svcDebugIds'

/** A UUID (version 4 layout) derived from the content: the same chunk always gets the same id. */
export function debugIdFor(content: string): string {
  const hex = createHash('sha256').update(content).digest('hex').slice(0, 32).split('')
  hex[12] = '4'
  hex[16] = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16)
  const h = hex.join('')
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
}

/** ES5 on one line, so it runs in any output format; a failure in it is swallowed. */
export function registrationSnippet(id: string): string {
  const registry = `g.${REGISTRY_GLOBAL}`
  return `;!function(){try{var g="undefined"!=typeof globalThis?globalThis:"undefined"!=typeof self?self:{},s=(new Error).stack;s&&((${registry}=${registry}||{})[s]="${id}")}catch(e){}}();`
}

/** True when the chunk already carries the registration snippet (a second run must not add another). */
export function isStamped(code: string): boolean {
  return code.includes(`(g.${REGISTRY_GLOBAL}=g.${REGISTRY_GLOBAL}||{})`)
}

/**
 * The chunk and its map (JSON text, when the map is a file of its own) stamped with one id.
 * With a map, the snippet becomes a new first line and the map gains an empty first line: every
 * mapping then points where it did. Without one (an inline map, or none) the snippet is appended,
 * which moves nothing, at the cost of registering only once the chunk's own code has run.
 */
export function stampChunk(code: string, map: string | undefined): { id: string; code: string; map: string | undefined } {
  const parsed = map === undefined ? undefined : (JSON.parse(map) as { mappings?: unknown; debugId?: unknown })
  // A bundler that stamps ids itself (Rollup's sourcemapDebugIds) keeps its id.
  const id = typeof parsed?.debugId === 'string' ? parsed.debugId : debugIdFor(code)
  const snippet = registrationSnippet(id)
  let stamped: string
  if (parsed && typeof parsed.mappings === 'string') {
    const { offset, line } = afterPrologue(code)
    stamped = `${code.slice(0, offset)}${snippet}\n${code.slice(offset)}`
    const lines = parsed.mappings.split(';')
    lines.splice(line, 0, '')
    parsed.mappings = lines.join(';')
  } else {
    stamped = `${code}\n${snippet}`
  }
  if (parsed) parsed.debugId = id
  return { id, code: withDebugIdComment(stamped, id), map: parsed ? JSON.stringify(parsed) : undefined }
}

/** Where code may be inserted without demoting a hashbang or a "use strict" directive. */
function afterPrologue(code: string): { offset: number; line: number } {
  let offset = 0
  let line = 0
  for (;;) {
    const end = code.indexOf('\n', offset)
    if (end < 0) return { offset, line }
    const text = code.slice(offset, end).trim()
    const prologue = (line === 0 && text.startsWith('#!')) || /^(['"])use strict\1;?$/.test(text)
    if (!prologue) return { offset, line }
    offset = end + 1
    line++
  }
}

/** Adds `//# debugId=` before a trailing sourceMappingURL comment (or at the end), once. */
function withDebugIdComment(code: string, id: string): string {
  if (code.includes(`//# debugId=${id}`)) return code
  const comment = `//# debugId=${id}`
  const mapComment = /\n\/\/# sourceMappingURL=[^\n]*\n?$/.exec(code)
  if (!mapComment) return `${code.replace(/\n?$/, '\n')}${comment}\n`
  return `${code.slice(0, mapComment.index)}\n${comment}${code.slice(mapComment.index)}`
}
