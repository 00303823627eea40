/**
 * Uploads a build's source maps to svc and then removes the maps from the build, so none is
 * deployed. One implementation behind both the `svc-sourcemaps` command and the Vite plugin:
 *   - every JavaScript map is uploaded as the map of the file beside it (its URL path under the
 *     prefix), for the release, with the map's `debugId` when it has one;
 *   - the first failed upload stops everything and throws UploadFailed, leaving every map in place;
 *   - after all uploads succeeded, every JavaScript and CSS map is removed unless keepMaps.
 * The key travels only in the X-API-Key header: no message ever contains it.
 */
import { readdir, readFile, rm } from 'node:fs/promises'
import { join, relative, resolve, sep } from 'node:path'

/** The line both tools print when SVC_SOURCEMAP_KEY is unset (after their own prefix). */
export const SKIP_LINE = 'SVC_SOURCEMAP_KEY is not set; skipping the source-map upload'

const DEFAULT_ENDPOINT = 'http://localhost:8082'
const MAP_SUFFIXES = ['.js.map', '.mjs.map', '.cjs.map', '.css.map']

/** An upload the service did not take; the message says which file and why, never the key. */
export class UploadFailed extends Error {}

export interface UploadSettings {
  /** The source-map key (svc_sk_…), or undefined when SVC_SOURCEMAP_KEY is unset. */
  key: string | undefined
  endpoint: string
  release: string
}

/**
 * The key, service address and release from the environment, where options do not say otherwise;
 * fallbackRelease (a Next.js build id) stands in when neither gives a release.
 */
export function uploadSettings(options: { endpoint?: string; release?: string; fallbackRelease?: string } = {}): UploadSettings {
  // These are the build's variables (SVC_SOURCEMAP_KEY per the spec), not the service's configuration.
  // eslint-disable-next-line no-restricted-syntax
  const env = process.env
  return {
    key: env.SVC_SOURCEMAP_KEY?.trim() || undefined,
    endpoint: (options.endpoint ?? env.SVC_ENDPOINT ?? DEFAULT_ENDPOINT).replace(/\/+$/, ''),
    release: options.release ?? env.SVC_RELEASE ?? options.fallbackRelease ?? '',
  }
}

/** True for the JavaScript and CSS source maps a bundler writes. */
export function isMapFile(name: string): boolean {
  return MAP_SUFFIXES.some((suffix) => name.endsWith(suffix))
}

/** Every JavaScript and CSS map under dir, sorted. */
export function findMaps(dir: string): Promise<string[]> {
  return filesUnder(dir, isMapFile)
}

/** Every file under dir whose name wanted accepts, sorted. */
export async function filesUnder(dir: string, wanted: (name: string) => boolean): Promise<string[]> {
  const found: string[] = []
  const walk = async (folder: string): Promise<void> => {
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name)
      if (entry.isDirectory()) await walk(path)
      else if (wanted(entry.name)) found.push(path)
    }
  }
  await walk(dir)
  return found.sort()
}

/** Removes the given files; one already gone is not an error. */
export async function removeFiles(paths: readonly string[]): Promise<void> {
  for (const path of paths) await rm(path, { force: true })
}

/** URL path prefix as /a/b/ from "a/b", "/a/b/", "/" or "". */
export function normalizePrefix(prefix: string): string {
  const inner = prefix.replace(/^\/+|\/+$/g, '')
  return inner ? `/${inner}/` : '/'
}

export interface UploadRequest extends UploadSettings {
  key: string
  /** The build output folder. */
  dir: string
  /** URL path the folder is served under, e.g. / or /static/. */
  urlPrefix: string
  keepMaps: boolean
  /** Map file → the file it maps (absolute paths), where that is not the map's name less `.map` (Turbopack's maps). */
  servedFiles?: ReadonlyMap<string, string>
  /** Receives one line per upload and a summary. */
  log: (line: string) => void
}

/** Uploads every script map under dir, then removes all maps unless keepMaps; throws UploadFailed at the first failure. */
export async function uploadBuildMaps(request: UploadRequest): Promise<{ uploaded: number; removed: number }> {
  const { dir, key, endpoint, release, log } = request
  const prefix = normalizePrefix(request.urlPrefix)
  const maps = await findMaps(dir)
  let uploaded = 0
  for (const mapPath of maps.filter((path) => !path.endsWith('.css.map'))) {
    const served = request.servedFiles?.get(resolve(mapPath)) ?? mapPath.slice(0, -'.map'.length)
    const urlPath = prefix + relative(dir, served).split(sep).join('/')
    const body = await readFile(mapPath, 'utf8')
    const debugId = debugIdOfMap(body, relative(dir, mapPath))
    const headers: Record<string, string> = { 'Content-Type': 'application/json', 'X-API-Key': key }
    if (debugId) headers['X-Svc-Debug-Id'] = debugId
    let response: Response
    try {
      response = await fetch(`${endpoint}/api/v1/sourcemaps?${new URLSearchParams({ path: urlPath, release })}`, { method: 'POST', headers, body })
    } catch (error) {
      const reason = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message
      throw new UploadFailed(`could not reach ${endpoint} (${reason}) uploading ${urlPath}; point SVC_ENDPOINT at your svc service`)
    }
    if (response.status !== 201) {
      const answer = (await response.json().catch(() => ({}))) as { code?: string; message?: string }
      throw new UploadFailed(`upload of ${urlPath} failed with ${response.status}${answer.code ? ` ${answer.code}: ${answer.message}` : ''}`)
    }
    uploaded++
    log(`uploaded ${urlPath}${release ? ` (release ${release})` : ''}${debugId ? ` (debug id ${debugId})` : ''}`)
  }
  if (request.keepMaps) {
    log(`${uploaded} map(s) uploaded; the maps stay in ${dir} as asked (do not deploy them)`)
    return { uploaded, removed: 0 }
  }
  await removeFiles(maps)
  log(`${uploaded} map(s) uploaded; ${maps.length} map file(s) removed from ${dir}`)
  return { uploaded, removed: maps.length }
}

function debugIdOfMap(body: string, name: string): string | undefined {
  let map: { debugId?: unknown; debug_id?: unknown }
  try {
    map = JSON.parse(body) as typeof map
  } catch {
    throw new UploadFailed(`${name} is not valid JSON; nothing more was uploaded`)
  }
  const id = map.debugId ?? map.debug_id
  return typeof id === 'string' ? id : undefined
}
