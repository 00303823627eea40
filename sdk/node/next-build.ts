/**
 * What `svc-sourcemaps .next/static` needs to know about a Next.js build, found in the build itself
 * so that `next build && svc-sourcemaps .next/static` works with the key alone:
 *   - the folder is a Next.js build when it is `<distDir>/static` beside a BUILD_ID file;
 *   - its files are served under `<assetPrefix path or basePath>/_next/static/`;
 *   - the build id names the release the maps are filed under when SVC_RELEASE is unset;
 *   - each chunk is paired with its map through the chunk's `sourceMappingURL` comment (Turbopack
 *     names a map unlike its chunk), and stamped with a debug id the way the Vite plugin stamps
 *     chunks (stamp-chunk.ts), so the SDK's events find their maps whatever the release or URL.
 * Stamping runs after `next build`, so it holds for Turbopack and webpack builds alike, and needs
 * no bundler hook. It rewrites chunks in place, which a build with subresource integrity
 * (experimental.sri) cannot take: such a build is left unstamped, and the log says so.
 */
import { readFile, stat, writeFile } from 'node:fs/promises'
import { basename, dirname, join, relative, resolve, sep } from 'node:path'
import { isStamped, stampChunk } from './stamp-chunk.js'
import { filesUnder, UploadFailed } from './upload-maps.js'

export interface NextBuild {
  /** The contents of `<distDir>/BUILD_ID`. */
  buildId: string
  /** URL path the static folder is served under, e.g. /_next/static/ or /shop/_next/static/. */
  urlPrefix: string
}

/** A trailing `//# sourceMappingURL=<file>` comment, as Next's bundlers write it. */
const MAP_COMMENT = /\n\/\/# sourceMappingURL=([^\s]+)\s*$/

/** The Next.js build whose static folder dir is, or undefined when dir is not one. */
export async function nextBuildOf(dir: string): Promise<NextBuild | undefined> {
  if (basename(resolve(dir)) !== 'static') return undefined
  const distDir = dirname(resolve(dir))
  const buildId = await readFile(join(distDir, 'BUILD_ID'), 'utf8').then((text) => text.trim(), () => '')
  if (!buildId) return undefined
  return { buildId, urlPrefix: `${await servedUnder(distDir)}/_next/static/` }
}

/** The URL path of assetPrefix (which replaces basePath for static files when set), else basePath. */
async function servedUnder(distDir: string): Promise<string> {
  let config: { assetPrefix?: unknown; basePath?: unknown } = {}
  try {
    config = (JSON.parse(await readFile(join(distDir, 'required-server-files.json'), 'utf8')) as { config?: typeof config }).config ?? {}
  } catch {
    // An older or trimmed build: Next's own default, no prefix.
  }
  const raw = typeof config.assetPrefix === 'string' && config.assetPrefix ? config.assetPrefix : typeof config.basePath === 'string' ? config.basePath : ''
  let path = raw
  try {
    path = new URL(raw).pathname
  } catch {
    // not absolute: already a path
  }
  return path.replace(/\/+$/, '')
}

export interface StampedChunks {
  /** Map file (absolute path) → the chunk whose comment names it. */
  servedFiles: Map<string, string>
  /** The stamped chunks, whose sourceMappingURL comments go once the maps are gone. */
  chunks: string[]
  stamped: number
}

/**
 * Pairs every chunk under dir with the map its comment names and, unless the build uses
 * subresource integrity, stamps both with a debug id; a chunk stamped by an earlier run is left
 * as it is. Throws UploadFailed for a map that is not JSON, or a chunk stamped without its map.
 */
export async function stampNextChunks(dir: string, log: (line: string) => void): Promise<StampedChunks> {
  const sri = await stat(join(dirname(resolve(dir)), 'server', 'subresource-integrity-manifest.json')).then(() => true, () => false)
  const result: StampedChunks = { servedFiles: new Map(), chunks: [], stamped: 0 }
  for (const chunk of await filesUnder(dir, (name) => /\.[mc]?js$/.test(name))) {
    const code = await readFile(chunk, 'utf8')
    const comment = MAP_COMMENT.exec(code)
    if (!comment || comment[1]!.startsWith('data:')) continue
    const mapPath = resolve(dirname(chunk), comment[1]!.split(/[?#]/, 1)[0]!)
    if (!mapPath.startsWith(resolve(dir) + sep)) continue
    const map = await readFile(mapPath, 'utf8').catch(() => undefined)
    if (map === undefined) continue
    result.servedFiles.set(mapPath, chunk)
    if (sri) continue
    result.chunks.push(chunk)
    const name = relative(dir, chunk)
    if (isStamped(code)) {
      checkStampedBefore(code, map, name)
      continue
    }
    let stamped: ReturnType<typeof stampChunk>
    try {
      stamped = stampChunk(code, map)
    } catch {
      throw new UploadFailed(`${relative(dir, mapPath)} is not valid JSON; nothing was uploaded`)
    }
    await writeFile(mapPath, stamped.map!)
    await writeFile(chunk, stamped.code)
    result.stamped++
  }
  if (sri) log('subresource integrity is on (experimental.sri), so chunks are not stamped with debug ids: pass init the release you build with (SVC_RELEASE)')
  else log(`stamped ${result.stamped} Next.js chunk(s) with debug ids`)
  return result
}

/** After the maps are gone, their comments would only send browser devtools to a 404. */
export async function dropMapComments(chunks: readonly string[]): Promise<void> {
  for (const chunk of chunks) {
    const code = await readFile(chunk, 'utf8')
    const comment = MAP_COMMENT.exec(code)
    if (comment) await writeFile(chunk, `${code.slice(0, comment.index)}\n`)
  }
}

/** A chunk stamped by an earlier run that failed: its map must carry the same id, or the mappings are off. */
function checkStampedBefore(code: string, map: string, name: string): void {
  const id = /\/\/# debugId=([0-9a-f-]{36})/.exec(code)?.[1]
  let mapId: unknown
  try {
    mapId = (JSON.parse(map) as { debugId?: unknown }).debugId
  } catch {
    mapId = undefined
  }
  if (!id || mapId !== id) throw new UploadFailed(`${name} was stamped with a debug id but its map was not; run the build again`)
}
