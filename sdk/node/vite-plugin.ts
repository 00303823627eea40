/**
 * @svc/sdk/vite-plugin: `svc()` makes a production build symbolicatable by svc, then leaves
 * nothing of its maps behind.
 *   1. Turns on build source maps ('hidden': no chunk points browsers at a map that is removed
 *      before deploy), remembering whether you had asked for maps yourself.
 *   2. Stamps every JavaScript chunk and its map with a debug id derived from the chunk's content
 *      (see stamp-chunk.ts); the SDK sends the ids of the chunks in an error's stack.
 *   3. After the bundle is written, uploads the maps with SVC_SOURCEMAP_KEY exactly as
 *      `svc-sourcemaps` does, then removes them. A failed upload fails the build.
 *      Without the key it prints one skip line and removes only the maps it turned on.
 */
import { dirname, join } from 'node:path'
import type { Plugin, ResolvedConfig } from 'vite'
import { stampChunk } from './stamp-chunk.js'
import { isMapFile, removeFiles, SKIP_LINE, uploadBuildMaps, UploadFailed, uploadSettings } from './upload-maps.js'

export interface SvcPluginOptions {
  /** Your svc service. Default: SVC_ENDPOINT, else http://localhost:8082. */
  endpoint?: string
  /** The release the maps belong to (the one you pass to init). Default: SVC_RELEASE, else none. */
  release?: string
  /** URL path the build folder is served under. Default: the path of Vite's `base`, else /. */
  urlPrefix?: string
  /** Keep the maps in the build folder after uploading them (never deploy those). Default false. */
  keepMaps?: boolean
}

const PREFIX = 'svc: '

/** The Vite plugin: debug ids in every chunk, maps uploaded to svc and removed from the build. */
export function svc(options: SvcPluginOptions = {}): Plugin {
  let userAskedForMaps = false
  let config: ResolvedConfig | undefined
  const log = (line: string): void => (config ? config.logger.info(`${PREFIX}${line}`) : console.log(`${PREFIX}${line}`))

  return {
    name: 'svc',
    // Server-side builds never reach a browser, so they have nothing to report: `vite build --ssr`,
    // and in Vite 6+ every environment but the client's.
    apply: (user, env) => env.command === 'build' && !env.isSsrBuild && !user.build?.ssr,
    applyToEnvironment: (environment) => environment.config.consumer === 'client',
    config(user) {
      userAskedForMaps = Boolean(user.build?.sourcemap)
      if (!userAskedForMaps) return { build: { sourcemap: 'hidden' } }
    },
    configResolved(resolved) {
      config = resolved
    },
    generateBundle: {
      // After Vite's own generateBundle work, which rewrites chunks and their maps once more.
      order: 'post',
      handler(_output, bundle) {
        for (const chunk of Object.values(bundle)) {
          if (chunk.type !== 'chunk') continue
          const mapAsset = bundle[`${chunk.fileName}.map`]
          const mapText = mapAsset?.type !== 'asset' ? undefined : typeof mapAsset.source === 'string' ? mapAsset.source : new TextDecoder().decode(mapAsset.source)
          const stamped = stampChunk(chunk.code, mapText)
          chunk.code = stamped.code
          if (mapAsset?.type === 'asset' && stamped.map !== undefined) mapAsset.source = stamped.map
        }
      },
    },
    writeBundle: {
      order: 'post',
      async handler(output, bundle) {
        const dir = output.dir ?? (output.file ? dirname(output.file) : undefined)
        if (!dir) return
        const settings = uploadSettings(options)
        if (!settings.key) {
          const generated = userAskedForMaps ? [] : Object.keys(bundle).filter(isMapFile).map((name) => join(dir, name))
          await removeFiles(generated)
          log(`${SKIP_LINE}${userAskedForMaps ? ' (the maps you asked for stay)' : `; removed the ${generated.length} map file(s) the plugin turned on`}`)
          return
        }
        try {
          await uploadBuildMaps({ ...settings, key: settings.key, dir, urlPrefix: options.urlPrefix ?? basePath(config?.base), keepMaps: options.keepMaps ?? false, log })
        } catch (error) {
          // Thrown, not logged: a build whose errors cannot be symbolicated must not look fine.
          if (error instanceof UploadFailed) throw new Error(`${PREFIX}${error.message}`)
          throw error
        }
      },
    },
  }
}

/** The URL path of Vite's base: /app/ from '/app/' or 'https://cdn.example.com/app/'; / for a relative base. */
function basePath(base: string | undefined): string {
  if (!base || base.startsWith('.')) return '/'
  try {
    return new URL(base).pathname
  } catch {
    return base.startsWith('/') ? base : '/'
  }
}
