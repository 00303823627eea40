import { runInNewContext } from 'node:vm'
import { buildSync } from 'esbuild'
import t from 'tap'
import { postEvent, sampleEvent, startTestStack, waitFor } from '../../helpers/stack.js'

const SOURCE = `export function checkout(cart) {
  return totalOf(cart)
}

function totalOf(cart) {
  let sum = 0
  for (const item of cart.items) sum += item.price
  return sum
}

export function main() {
  return checkout(undefined)
}

main()
`

const PLAYER = `export function play(stream) {
  return stream.h264Decoder(stream.frame)
}

play({ frame: 1 })
`

/** A minified bundle built from source as src/cart.ts, its map, and the V8 stack of running it from url. */
function crashFrom(url: string, banner = '', source = SOURCE): { map: string; stack: string; message: string } {
  const result = buildSync({ stdin: { contents: source, sourcefile: 'src/cart.ts', loader: 'ts' }, bundle: true, minify: true, format: 'iife', globalName: 'app', sourcemap: 'external', outfile: 'app.js', banner: { js: banner }, write: false })
  const code = result.outputFiles.find((f) => f.path.endsWith('.js'))!.text
  try {
    runInNewContext(code, {}, { filename: url })
  } catch (error) {
    return { map: result.outputFiles.find((f) => f.path.endsWith('.map'))!.text, stack: (error as Error).stack!, message: (error as Error).message }
  }
  throw new Error('the bundle did not throw')
}

t.test('with its map uploaded, a minified error is grouped on the original code, and a new deploy of it stays one issue', async (t) => {
  const stack = await startTestStack(t, { worker: true })
  const key = await stack.mint('sourcemap')
  const deploys = [
    { release: 'shop@1.0.0', url: 'https://shop.example.com/assets/app-1a2b3c4d.js', banner: '' },
    { release: 'shop@1.0.1', url: 'https://shop.example.com/assets/app-9f8e7d6c.js', banner: 'var BUILD="1.0.1";' },
  ]
  for (const deploy of deploys) {
    const crash = crashFrom(deploy.url, deploy.banner)
    const path = new URL(deploy.url).pathname
    const upload = await fetch(`${stack.baseUrl}/api/v1/sourcemaps?release=${deploy.release}&path=${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-API-Key': key }, body: crash.map })
    t.equal(upload.status, 201, `map of ${deploy.release} uploaded`)
    const event = sampleEvent({ release: deploy.release, error: { type: 'TypeError', message: crash.message, stack: crash.stack }, context: { url: 'https://shop.example.com/cart', user_agent: 'test' } })
    t.equal((await postEvent(stack.baseUrl, event, { 'Content-Type': 'application/json', 'X-API-Key': stack.ingestKey })).status, 202)
  }
  await waitFor(async () => (await stack.db.query('SELECT 1 FROM events')).rowCount === 2, 15_000, 50)
  const { rows: issues } = await stack.db.query<{ culprit: string; grouping_version: number; event_count: string }>('SELECT culprit, grouping_version, event_count FROM issues')
  t.equal(issues.length, 1, 'two deploys, one issue')
  t.equal(issues[0]!.culprit, 'totalOf (src/cart.ts:7)', 'the culprit is the original function, file and line')
  t.equal(issues[0]!.grouping_version, 4, 'a new project groups with version 4')
  const { rows } = await stack.db.query<{ grouping: { frames: Array<{ file: string; original?: { file: string; line: number; function?: string }; unresolved?: string }> } }>('SELECT grouping FROM events ORDER BY received_at LIMIT 1')
  const frames = rows[0]!.grouping.frames
  t.match(frames[0], { file: 'https://shop.example.com/assets/app-1a2b3c4d.js', original: { file: 'src/cart.ts', line: 7, function: 'totalOf' } }, 'the stored event keeps both positions')
  t.ok(frames.filter((f) => !f.original).every((f) => typeof f.unresolved === 'string'), 'every frame left minified says why')
})

t.test('without a map, the same error is grouped as before and its frames say the map is missing', async (t) => {
  const stack = await startTestStack(t, { worker: true })
  const crash = crashFrom('https://shop.example.com/assets/app-1a2b3c4d.js')
  const event = sampleEvent({ release: 'shop@1.0.0', error: { type: 'TypeError', message: crash.message, stack: crash.stack } })
  t.equal((await postEvent(stack.baseUrl, event, { 'Content-Type': 'application/json', 'X-API-Key': stack.ingestKey })).status, 202)
  await waitFor(async () => (await stack.db.query('SELECT 1 FROM events')).rowCount === 1, 15_000, 50)
  const { rows } = await stack.db.query<{ grouping: { frames: Array<{ unresolved?: string; file: string }> } }>('SELECT grouping FROM events')
  t.equal(rows[0]!.grouping.frames[0]!.unresolved, 'map_missing')
})

t.test('an issue titled before titles kept the code\'s names takes the name from its next event', async (t) => {
  const stack = await startTestStack(t, { worker: true })
  const url = 'https://shop.example.com/assets/app-1a2b3c4d.js'
  const crash = crashFrom(url, '', PLAYER)
  t.match(crash.message, /^\w+\.h264Decoder is not a function$/, 'the engine names the minified head')
  const upload = await fetch(`${stack.baseUrl}/api/v1/sourcemaps?release=player@1&path=${new URL(url).pathname}`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-API-Key': await stack.mint('sourcemap') }, body: crash.map })
  t.equal(upload.status, 201)
  const send = async (count: number): Promise<{ title: string }> => {
    const event = sampleEvent({ release: 'player@1', error: { type: 'TypeError', message: crash.message, stack: crash.stack } })
    t.equal((await postEvent(stack.baseUrl, event, { 'Content-Type': 'application/json', 'X-API-Key': stack.ingestKey })).status, 202)
    return waitFor(async () => (await stack.db.query<{ title: string }>('SELECT title FROM issues WHERE event_count = $1', [count])).rows[0], 15_000, 50)
  }
  t.equal((await send(1)).title, 'TypeError: stream.h264Decoder is not a function', 'a new issue names what the throwing line names')
  // As the rule before issue 28 stored it.
  await stack.db.query("UPDATE issues SET title = 'TypeError: stream.<id> is not a function'")
  t.equal((await send(2)).title, 'TypeError: stream.h264Decoder is not a function', 'the stored masked title takes the name')
  await stack.db.query("UPDATE issues SET title = 'TypeError: <id> failed'")
  t.equal((await send(3)).title, 'TypeError: <id> failed', 'a title that is not this event\'s masked reading stays')
  const { rows } = await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM issues')
  t.equal(rows[0]!.n, 1, 'every event joined the one issue')
})
