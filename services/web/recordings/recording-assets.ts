/**
 * The replay page's scripts and styles, served by the service itself (no third-party CDN, so the
 * page's CSP can say script-src 'self'): rrweb-player's browser build and stylesheet, read from the
 * installed package, and our boot script (recording-replay.js). Each is read once, on its first
 * request, and kept: pages that never show a replay cost nothing. The package is found by Node's
 * resolution from this module, which works from the sources and from the compiled tree alike
 * (node_modules/.cache/svc/<key>/ resolves packages from the node_modules above it).
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** Paths the replay page links to. */
export const PLAYER_SCRIPT_PATH = '/assets/rrweb-player.js'
export const PLAYER_STYLESHEET_PATH = '/assets/rrweb-player.css'
export const REPLAY_SCRIPT_PATH = '/assets/replay.js'

export interface Asset {
  contentType: string
  body: string
}

const JS = 'text/javascript; charset=utf-8'
const CSS = 'text/css; charset=utf-8'

const loaded = new Map<string, Asset>()

/** The asset served at path (one of the paths above), read on first use. */
export function replayAsset(path: string): Asset {
  let asset = loaded.get(path)
  if (!asset) {
    asset = readAsset(path)
    loaded.set(path, asset)
  }
  return asset
}

function readAsset(path: string): Asset {
  switch (path) {
    case PLAYER_SCRIPT_PATH:
      // The UMD build defines window.rrwebPlayer for a classic script. Its source map is not served, so its link is dropped.
      return { contentType: JS, body: readFileSync(join(playerDist(), 'rrweb-player.umd.min.cjs'), 'utf8').replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n') }
    case PLAYER_STYLESHEET_PATH:
      return { contentType: CSS, body: readFileSync(join(playerDist(), 'style.css'), 'utf8') }
    case REPLAY_SCRIPT_PATH:
      return { contentType: JS, body: readFileSync(fileURLToPath(new URL('./recording-replay.js', import.meta.url)), 'utf8') }
    default:
      throw new Error(`no replay asset at ${path}`)
  }
}

/** rrweb-player's dist folder (its package exports name only its entry and style.css). */
function playerDist(): string {
  return dirname(createRequire(import.meta.url).resolve('rrweb-player'))
}
