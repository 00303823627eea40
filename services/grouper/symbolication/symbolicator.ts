/**
 * Maps minified stack frames back to original files, lines and functions. A frame's map is found
 * by the debug id its file was stamped with, else by the file's URL path within the project and
 * release; maps come only from what the project uploaded, never from a URL named in an event.
 * Every frame comes back either with its original position or with the reason it has none.
 * Frames are innermost first, as stacks list them.
 */
import { originalPositionFor } from '@jridgewell/trace-mapping'
import type { TraceMap } from '@jridgewell/trace-mapping'
import type { SourceStatement, StackFrame, UnresolvedReason } from '../grouping/types.js'
import { MapCache, type CachedMap } from './map-cache.js'
import { contextFor } from './source-context.js'
import { statementAt } from './source-statement.js'
import { recoverTailCall } from './tail-call.js'

export type { UnresolvedReason } from '../grouping/types.js'

/** Where uploaded maps are read from (the object store behind the upload endpoint). */
export interface MapSource {
  /** False when the project never uploaded a map: then no frame of it needs a lookup. */
  hasMaps(projectId: string): Promise<boolean>
  /** The map text stamped with debugId, or undefined. */
  byDebugId(projectId: string, debugId: string): Promise<string | undefined>
  /** The map uploaded for the file at urlPath (e.g. /assets/index-4f3a.js) in release, or undefined. */
  byUrlPath(projectId: string, release: string, urlPath: string): Promise<string | undefined>
}

export interface SymbolicateInput {
  projectId: string
  release: string | undefined
  /** Frames as parsed (parseFrames); they are symbolicated in place. */
  frames: StackFrame[]
  /** Debug ids by file URL, as the SDK reports them for stamped chunks. */
  debugIds?: Readonly<Record<string, string>>
}

type Loaded = { map?: CachedMap; reason?: UnresolvedReason }

function hasPosition(frame: StackFrame): frame is StackFrame & { line: number; column: number } {
  return !frame.native && frame.line !== undefined && frame.column !== undefined && frame.file !== ''
}

/** Frames that carry source lines: the throw site and its callers, not a 250-frame recursion. */
const MAX_CONTEXTS = 20

/** A map uploaded after events asked for it is used within this long. */
const MISSING_TTL_MS = 30_000
const MISSING_MAX = 50_000

/** 256 MiB of map JSON: a few large apps' current releases. */
const DEFAULT_CACHE_BYTES = 256 * 1024 * 1024

export class Symbolicator {
  readonly #source: MapSource
  readonly #cache: MapCache
  /** Keys with no map: an event stream without maps must not query for each event. */
  readonly #missing = new ExpiringKeys(MISSING_TTL_MS, MISSING_MAX)
  /** Projects without any map, for the same period. */
  readonly #mapless = new ExpiringKeys(MISSING_TTL_MS, MISSING_MAX)
  readonly #loading = new Map<string, Promise<Loaded>>()
  /** The map that placed each frame given source lines: where its statement is read, if asked. */
  readonly #placedBy = new WeakMap<StackFrame, TraceMap>()

  constructor(source: MapSource, cacheBytes = DEFAULT_CACHE_BYTES) {
    this.#source = source
    this.#cache = new MapCache(cacheBytes)
  }

  get cache(): MapCache {
    return this.#cache
  }

  /**
   * Symbolicates every frame in place (the frames gain original or unresolved) and returns them;
   * looks each distinct map up once per call. Frames are the caller's, freshly parsed: copying
   * each one cost the grouper more garbage collection than the lookups themselves.
   */
  async symbolicate(input: SymbolicateInput): Promise<StackFrame[]> {
    if (await this.#isMapless(input.projectId)) {
      const reason = missingReason(input.release || input.debugIds)
      for (const frame of input.frames) frame.unresolved = hasPosition(frame) ? reason : 'no_position'
      return input.frames
    }
    // First the distinct maps the frames need, fetched together; then one synchronous pass.
    const keyOfFile = new Map<string, string>()
    const lookups = new Map<string, Promise<Loaded>>()
    for (const frame of input.frames) {
      if (!hasPosition(frame) || keyOfFile.has(frame.file)) continue
      const debugId = input.debugIds?.[frame.file]
      const key = debugId ? `id:${input.projectId}:${debugId}` : `url:${input.projectId}:${input.release ?? ''}:${urlPath(frame.file)}`
      keyOfFile.set(frame.file, key)
      if (!lookups.has(key)) lookups.set(key, this.#load(key, input, frame.file, debugId))
    }
    const loaded = new Map<string, Loaded>()
    for (const [key, lookup] of lookups) loaded.set(key, await lookup)

    const out = input.frames
    const tokens: Array<string | undefined> = []
    let contexts = 0
    for (const frame of out) {
      tokens.push(undefined)
      if (!hasPosition(frame)) {
        frame.unresolved = 'no_position'
        continue
      }
      const { map, reason } = loaded.get(keyOfFile.get(frame.file)!)!
      if (!map || !map.ok) {
        frame.unresolved = map ? 'map_unparseable' : reason
        continue
      }
      // Stack columns count from 1; source maps from 0.
      const position = originalPositionFor(map.map, { line: frame.line, column: frame.column - 1 })
      if (position.source === null || position.line === null) {
        frame.unresolved = 'no_mapping'
        continue
      }
      frame.original = { file: position.source, line: position.line, column: position.column + 1 }
      if (contexts++ < MAX_CONTEXTS) {
        const context = contextFor(map.map, position.source, position.line)
        if (context) {
          frame.original.context = context
          this.#placedBy.set(frame, map.map)
        }
      }
      tokens[tokens.length - 1] = position.name ?? undefined
    }
    // A frame's original function name is the name at its caller's call site (the next frame
    // out), where the minified call names the function; the throwing position itself rarely has one.
    out.forEach((frame, i) => {
      const name = tokens[i + 1]
      if (frame.original && name) frame.original.function = name
    })
    const placed = out.findIndex((frame) => frame.original)
    if (placed > 0 && out[0]!.native) {
      const map = loaded.get(keyOfFile.get(out[placed]!.file)!)?.map
      if (map?.ok) {
        const recovered = recoverTailCall(out, placed, map.map)
        if (recovered) {
          out.splice(placed, 0, recovered)
          this.#placedBy.set(recovered, map.map)
        }
      }
    }
    return out
  }

  /**
   * The original statement a frame this symbolicator placed lies in, parsed from its map's source
   * (fingerprint version 4 keys a throw site by it); undefined for a frame without source lines.
   * Asked only for the throw site, so a stack's other frames cost no parse.
   */
  readonly statementOf = (frame: StackFrame): SourceStatement | undefined => {
    const map = this.#placedBy.get(frame)
    const original = frame.original
    return map && original ? statementAt(map, original.file, original.line, original.column - 1) : undefined
  }

  async #isMapless(projectId: string): Promise<boolean> {
    if (this.#mapless.has(projectId)) return true
    if (await this.#source.hasMaps(projectId)) return false
    this.#mapless.add(projectId)
    return true
  }

  /** One load per key at a time: concurrent consumers asking for one map share its fetch and parse. */
  #load(key: string, input: SymbolicateInput, file: string, debugId: string | undefined): Promise<Loaded> {
    let pending = this.#loading.get(key)
    if (!pending) {
      pending = this.#fetch(key, input, file, debugId).finally(() => this.#loading.delete(key))
      this.#loading.set(key, pending)
    }
    return pending
  }

  async #fetch(key: string, input: SymbolicateInput, file: string, debugId: string | undefined): Promise<Loaded> {
    const cached = this.#cache.get(key)
    if (cached) return { map: cached }
    const reason = missingReason(debugId || input.release)
    if (this.#missing.has(key)) return { reason }
    let json: string | undefined
    try {
      json = debugId ? await this.#source.byDebugId(input.projectId, debugId) : input.release ? await this.#source.byUrlPath(input.projectId, input.release, urlPath(file)) : undefined
    } catch {
      // The object store (or its row) cannot be read now: the frame stays minified with the reason
      // map_missing, and nothing is remembered, so the next event tries again. Failing the batch
      // instead would dead-letter events over an outage of an optional part.
      return { reason }
    }
    if (json === undefined) {
      this.#missing.add(key)
      return { reason }
    }
    return { map: this.#cache.parse(key, json) }
  }
}

/** Without anything to look a map up by, there is no debug id; with something, the map is missing. */
function missingReason(lookedUp: unknown): UnresolvedReason {
  return lookedUp ? 'map_missing' : 'no_debug_id'
}

/** Keys remembered for a while, the oldest dropped past a count. */
class ExpiringKeys {
  readonly #until = new Map<string, number>()

  constructor(
    readonly ttlMs: number,
    readonly max: number,
  ) {}

  has(key: string): boolean {
    const until = this.#until.get(key)
    if (until === undefined) return false
    if (until > Date.now()) return true
    this.#until.delete(key)
    return false
  }

  add(key: string): void {
    if (this.#until.size >= this.max) this.#until.delete(this.#until.keys().next().value!)
    this.#until.set(key, Date.now() + this.ttlMs)
  }
}

/** The path of a frame's file URL: maps are uploaded per path, whatever host serves the build. */
export function urlPath(file: string): string {
  try {
    return new URL(file).pathname
  } catch {
    return file.split(/[?#]/, 1)[0]!
  }
}
