import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { filesUnder, installFixtureApp, packSdk, viteBuild } from '../helpers/browser/browser.js'
import { startTestStack } from '../helpers/stack.js'

// The plugin's other paths, on the Vue fixture built from the packed package: no key, and a key
// the service refuses. The successful upload is tested end to end in vite-apps.test.ts.

const tarball = await packSdk(t)

/**
 * The build's chunk, its debug id comment, every script (the chunk and the lazy recorder chunk
 * @svc/sdk's init imports on demand), and the maps left beside them.
 */
function inspect(dist: string): { chunk: string; debugId: string | undefined; scripts: string[]; maps: string[] } {
  const files = filesUnder(dist)
  const chunk = files.find((file) => /^assets\/index-[\w-]+\.js$/.test(file))!
  const debugId = /\/\/# debugId=([0-9a-f-]{36})\n/.exec(readFileSync(join(dist, chunk), 'utf8'))?.[1]
  return { chunk, debugId, scripts: files.filter((file) => file.endsWith('.js')), maps: files.filter((file) => file.endsWith('.map')) }
}

t.test('without SVC_SOURCEMAP_KEY, svc() prints one skip line, uploads nothing and removes only the maps it turned on', async (t) => {
  const stack = await startTestStack(t)
  const app = await installFixtureApp(t, 'vite-vue', tarball)
  const env = { SVC_SOURCEMAP_KEY: undefined, SVC_ENDPOINT: stack.baseUrl, VITE_SVC_API_KEY: stack.ingestKey, VITE_SVC_ENDPOINT: stack.baseUrl }

  const build = await viteBuild(app, env)
  t.equal(build.code, 0, build.output)
  const skips = build.output.split('\n').filter((line) => line.includes('SVC_SOURCEMAP_KEY'))
  t.same(skips, ['svc: SVC_SOURCEMAP_KEY is not set; skipping the source-map upload; removed the 2 map file(s) the plugin turned on'], 'one skip line')
  const built = inspect(join(app, 'dist'))
  t.same(built.maps, [], 'the map it turned on is gone')
  t.ok(built.debugId, 'the chunk is stamped all the same')

  const own = await viteBuild(app, env, ['--sourcemap'])
  t.equal(own.code, 0, own.output)
  t.match(own.output, 'svc: SVC_SOURCEMAP_KEY is not set; skipping the source-map upload (the maps you asked for stay)')
  const kept = inspect(join(app, 'dist'))
  t.same(kept.maps, kept.scripts.map((file) => `${file}.map`), 'the maps the build asked for itself stay')
  const map = JSON.parse(readFileSync(join(app, 'dist', `${kept.chunk}.map`), 'utf8')) as { debugId?: string }
  t.equal(map.debugId, kept.debugId, 'stamped with the chunk\'s debug id')

  const { rows } = await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM sourcemaps')
  t.equal(rows[0]!.n, 0, 'nothing was uploaded')
})

t.test('an upload the service refuses fails the build, says why, keeps the maps and never prints the key', async (t) => {
  const stack = await startTestStack(t)
  const app = await installFixtureApp(t, 'vite-vue', tarball)
  // An ingest key cannot upload maps: the service answers 403.
  const build = await viteBuild(app, { SVC_SOURCEMAP_KEY: stack.ingestKey, SVC_ENDPOINT: stack.baseUrl, VITE_SVC_API_KEY: stack.ingestKey, VITE_SVC_ENDPOINT: stack.baseUrl })
  t.not(build.code, 0, 'vite build failed')
  const { chunk, scripts, maps } = inspect(join(app, 'dist'))
  t.match(build.output, `svc: upload of /${chunk} failed with 403 insufficient_scope`)
  t.notMatch(build.output, stack.ingestKey.split('_').pop()!, 'the key is never printed')
  t.same(maps, scripts.map((file) => `${file}.map`), 'the maps stay for another try')
})
