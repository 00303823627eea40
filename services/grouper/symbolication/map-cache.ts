/**
 * Parsed source maps, kept by key and bounded by the size of their JSON (a parsed map costs a
 * small multiple of it). Least recently used goes first. A map that failed to parse is remembered
 * as such, so a broken upload is not parsed again for every event.
 */
import { TraceMap } from '@jridgewell/trace-mapping'

export type CachedMap = { ok: true; map: TraceMap } | { ok: false; error: string }

export class MapCache {
  readonly #maxBytes: number
  readonly #entries = new Map<string, { value: CachedMap; bytes: number }>()
  #bytes = 0

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes
  }

  /** Bytes of map JSON currently held. */
  get bytes(): number {
    return this.#bytes
  }

  get size(): number {
    return this.#entries.size
  }

  /** The cached parse, or undefined; a hit becomes the most recently used. */
  get(key: string): CachedMap | undefined {
    const entry = this.#entries.get(key)
    if (!entry) return undefined
    this.#entries.delete(key)
    this.#entries.set(key, entry)
    return entry.value
  }

  /** Parses json (a source map's text) and keeps the result under key. */
  parse(key: string, json: string): CachedMap {
    let value: CachedMap
    try {
      value = { ok: true, map: new TraceMap(json) }
    } catch (error) {
      value = { ok: false, error: (error as Error).message.slice(0, 200) }
    }
    // A failure costs little to keep; a map bigger than the whole cache is used once and dropped.
    const bytes = value.ok ? json.length : 64
    if (bytes <= this.#maxBytes) {
      const replaced = this.#entries.get(key)
      if (replaced) {
        this.#entries.delete(key)
        this.#bytes -= replaced.bytes
      }
      this.#entries.set(key, { value, bytes })
      this.#bytes += bytes
      for (const [oldest, entry] of this.#entries) {
        if (this.#bytes <= this.#maxBytes) break
        this.#entries.delete(oldest)
        this.#bytes -= entry.bytes
      }
    }
    return value
  }
}
