import { runInNewContext } from 'node:vm'
import { buildSync } from 'esbuild'
import t from 'tap'
import { parseStack } from '../../../services/grouper/grouping/stack-parse.js'
import { MapCache } from '../../../services/grouper/symbolication/map-cache.js'
import { Symbolicator, type MapSource } from '../../../services/grouper/symbolication/symbolicator.js'

const APP_URL = 'https://shop.example.com/assets/app-4f3a9c2b.js'
const SOURCE = `export function checkout(cart) {
  return totalOf(cart)
}

export function main() {
  return checkout(undefined)
}

function totalOf(cart) {
  let sum = 0
  for (const item of cart.items) sum += item.price
  return sum
}
`

/** A real minified bundle and its map, and the real V8 stack of running it. */
function minifiedCrash(): { map: string; stack: string } {
  const result = buildSync({ stdin: { contents: SOURCE, sourcefile: 'src/cart.ts', loader: 'ts' }, bundle: true, minify: true, format: 'iife', globalName: 'app', sourcemap: 'external', outfile: 'app.js', write: false })
  const code = result.outputFiles.find((f) => f.path.endsWith('.js'))!.text
  const map = result.outputFiles.find((f) => f.path.endsWith('.map'))!.text
  let stack = ''
  try {
    runInNewContext(`${code}\napp.main()`, {}, { filename: APP_URL })
  } catch (error) {
    stack = (error as Error).stack!
  }
  return { map, stack }
}

function source(maps: { byUrl?: Record<string, string>; byId?: Record<string, string> }): MapSource & { calls: string[] } {
  const calls: string[] = []
  return {
    calls,
    hasMaps: async () => true,
    byDebugId: async (_project, id) => (calls.push(`id:${id}`), maps.byId?.[id]),
    byUrlPath: async (_project, release, path) => (calls.push(`url:${release}:${path}`), maps.byUrl?.[`${release}:${path}`]),
  }
}

t.test('a real V8 stack from a minified bundle maps back to the original file, line and function', async (t) => {
  const { map, stack } = minifiedCrash()
  t.match(stack, /TypeError/, 'the bundle really threw')
  const frames = parseStack(stack, '')
  const maps = source({ byUrl: { 'shop@1.0.0:/assets/app-4f3a9c2b.js': map } })
  const symbolicator = new Symbolicator(maps)
  const out = await symbolicator.symbolicate({ projectId: 'p', release: 'shop@1.0.0', frames })
  const resolved = out.filter((f) => f.original)
  t.ok(resolved.length >= 2, 'the bundle frames are resolved')
  t.match(resolved[0]!.original, { file: 'src/cart.ts', line: 11, function: 'totalOf' }, 'the loop that reads cart.items, in totalOf')
  t.match(resolved[1]!.original, { file: 'src/cart.ts', line: 2, function: 'checkout' }, 'called from checkout')
  t.equal(maps.calls.filter((c) => c.endsWith('/assets/app-4f3a9c2b.js')).length, 1, 'the map was fetched once for all its frames')
})

t.test('a debug id finds the map whatever URL served the file', async (t) => {
  const { map, stack } = minifiedCrash()
  const frames = parseStack(stack.replaceAll(APP_URL, 'https://cdn.example.net/x/app.js'), '')
  const symbolicator = new Symbolicator(source({ byId: { 'c0ffee00-0000-4000-8000-000000000001': map } }))
  const out = await symbolicator.symbolicate({ projectId: 'p', release: undefined, frames, debugIds: { 'https://cdn.example.net/x/app.js': 'c0ffee00-0000-4000-8000-000000000001' } })
  t.equal(out.find((f) => f.original)?.original?.file, 'src/cart.ts')
})

t.test('every frame that stays minified says why', async (t) => {
  const { map } = minifiedCrash()
  const frame = (file: string, line?: number, column?: number, native = false) => ({ function: 'f', file, line, column, inApp: true, ...(native ? { native } : {}) })
  const maps = source({ byUrl: { 'r:/ok.js': map, 'r:/broken.js': '{"version":3,"mappings":' } })
  const symbolicator = new Symbolicator(maps)
  const out = await symbolicator.symbolicate({
    projectId: 'p',
    release: 'r',
    frames: [frame('[native code]', undefined, undefined, true), frame('https://a/missing.js', 1, 1), frame('https://a/ok.js', 900, 1), frame('https://a/broken.js', 1, 1), frame('https://a/broken.js', 1, 2)],
  })
  t.same(out.map((f) => f.unresolved), ['no_position', 'map_missing', 'no_mapping', 'map_unparseable', 'map_unparseable'])
  const noRelease = await symbolicator.symbolicate({ projectId: 'p', release: undefined, frames: [frame('https://a/ok.js', 1, 1)] })
  t.equal(noRelease[0]!.unresolved, 'no_debug_id', 'without a debug id or a release there is nothing to look the map up by')
  await symbolicator.symbolicate({ projectId: 'p', release: 'r', frames: [frame('https://a/broken.js', 1, 1)] })
  t.equal(maps.calls.filter((c) => c.endsWith('/broken.js')).length, 1, 'an unparseable map is remembered, not parsed again')
})

t.test('the map cache stays within its byte budget, dropping the least recently used', async (t) => {
  const { map } = minifiedCrash()
  const cache = new MapCache(map.length * 2 + 10)
  cache.parse('a', map)
  cache.parse('b', map)
  t.ok(cache.get('a'), 'a is used again, so b is now the oldest')
  cache.parse('c', map)
  t.equal(cache.size, 2)
  t.ok(cache.bytes <= map.length * 2 + 10)
  t.notOk(cache.get('b'), 'b went first')
  t.ok(cache.get('a') && cache.get('c'))
})

t.test('a project that never uploaded a map gets its reasons without a single map lookup', async (t) => {
  const calls: string[] = []
  const symbolicator = new Symbolicator({
    hasMaps: async (project) => (calls.push(`has:${project}`), false),
    byDebugId: async () => (calls.push('id'), undefined),
    byUrlPath: async () => (calls.push('url'), undefined),
  })
  const frames = () => parseStack('Error: x\n    at f (https://a/app.js:1:10)\n    at Array.map (<anonymous>)', 'x')
  const first = await symbolicator.symbolicate({ projectId: 'p', release: 'r', frames: frames() })
  t.same(first.map((f) => f.unresolved), ['map_missing', 'no_position'])
  await symbolicator.symbolicate({ projectId: 'p', release: undefined, frames: frames() })
  t.same(calls, ['has:p'], 'asked once whether the project has maps, and never for a map')
})

t.test('parsing a key again replaces it without counting its bytes twice', async (t) => {
  const { map } = minifiedCrash()
  const cache = new MapCache(map.length * 10)
  cache.parse('a', map)
  cache.parse('a', map)
  t.equal(cache.bytes, map.length)
  t.equal(cache.size, 1)
})

t.test('concurrent stacks that need one map fetch and parse it once', async (t) => {
  const { map, stack } = minifiedCrash()
  const maps = source({ byUrl: { 'r:/assets/app-4f3a9c2b.js': map } })
  const symbolicator = new Symbolicator(maps)
  await Promise.all([1, 2, 3].map(() => symbolicator.symbolicate({ projectId: 'p', release: 'r', frames: parseStack(stack, '') })))
  t.equal(maps.calls.filter((c) => c.endsWith('/assets/app-4f3a9c2b.js')).length, 1)
})

t.test('a map that cannot be read now leaves frames minified as map_missing, and the next stack tries again', async (t) => {
  const { map, stack } = minifiedCrash()
  const frames = parseStack(stack, '')
  let storeDown = true
  const maps = source({ byUrl: { 'shop@1.0.0:/assets/app-4f3a9c2b.js': map } })
  const flaky: MapSource = { ...maps, byUrlPath: async (...args) => (storeDown ? Promise.reject(new Error('object store unreachable')) : maps.byUrlPath(...args)) }
  const symbolicator = new Symbolicator(flaky)
  const during = await symbolicator.symbolicate({ projectId: 'p', release: 'shop@1.0.0', frames })
  t.ok(during.every((f) => !f.original), 'nothing resolved while the store is down')
  t.ok(during.some((f) => f.unresolved === 'map_missing'), 'the bundle frames say map_missing')
  storeDown = false
  const after = await symbolicator.symbolicate({ projectId: 'p', release: 'shop@1.0.0', frames })
  t.match(after.find((f) => f.original)?.original, { file: 'src/cart.ts' }, 'resolved once the store is back: the failure was not remembered as a missing map')
})
