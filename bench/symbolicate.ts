/**
 * npm run bench:symbolicate: cold parse and warm lookup of a large real source map, measured in
 * one run against a bare @jridgewell/trace-mapping loop over the same positions. The map is the
 * one esbuild writes for a minified browser bundle of @sentry/browser (a real map of about 5 MB).
 */
import { buildSync } from 'esbuild'
import { eachMapping, originalPositionFor, TraceMap } from '@jridgewell/trace-mapping'
import { fileURLToPath } from 'node:url'
import type { StackFrame } from '../services/grouper/grouping/types.js'
import { Symbolicator } from '../services/grouper/symbolication/symbolicator.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const FILE = 'https://app.example.com/assets/vendor-0a1b2c3d.js'
const STACKS = 2000

const result = buildSync({ stdin: { contents: "import * as sentry from '@sentry/browser'\nconsole.log(sentry)", resolveDir: ROOT }, bundle: true, minify: true, platform: 'browser', format: 'esm', sourcemap: 'external', outfile: 'vendor.js', write: false, logLevel: 'error' })
const json = result.outputFiles.find((f) => f.path.endsWith('.map'))!.text

// Cold: what the first event after a deploy pays for the bare library (parse and decode on the
// first lookup) and for our path (fetch, parse, cache, 20 lookups), medians of five.
const median = (runs: number[]): number => runs.sort((a, b) => a - b)[Math.floor(runs.length / 2)]!
const bareCold: number[] = []
let traced: TraceMap | undefined
const bareOnce = (): void => {
  const start = performance.now()
  traced = new TraceMap(json)
  originalPositionFor(traced, { line: 1, column: 0 })
  bareCold.push(performance.now() - start)
}
bareOnce()

// Twenty generated positions spread over the bundle, as a deep stack would have.
const all: Array<{ line: number; column: number }> = []
eachMapping(traced!, (m) => {
  if (m.source !== null) all.push({ line: m.generatedLine, column: m.generatedColumn })
})
const positions = Array.from({ length: 20 }, (_, i) => all[Math.floor(((i + 0.5) / 20) * all.length)]!)
const frames: StackFrame[] = positions.map((p, i) => ({ function: `f${i}`, file: FILE, line: p.line, column: p.column + 1, inApp: true }))

const source = { hasMaps: async () => true, byDebugId: async () => undefined, byUrlPath: async () => json }
const oursCold: number[] = []
bareCold.length = 0
for (let i = 0; i < 5; i++) {
  // Interleaved, so neither side gets the other's JIT warm-up.
  bareOnce()
  const fresh = new Symbolicator(source)
  const start = performance.now()
  await fresh.symbolicate({ projectId: 'p', release: 'r', frames })
  oursCold.push(performance.now() - start)
}
const symbolicator = new Symbolicator(source)
const warmup = await symbolicator.symbolicate({ projectId: 'p', release: 'r', frames })
const resolved = warmup.filter((f) => f.original).length

let start = performance.now()
for (let i = 0; i < STACKS; i++) await symbolicator.symbolicate({ projectId: 'p', release: 'r', frames })
const oursMs = (performance.now() - start) / STACKS

start = performance.now()
let sink = 0
for (let i = 0; i < STACKS; i++) for (const p of positions) sink += originalPositionFor(traced!, { line: p.line, column: p.column }).line ?? 0
const bareMs = (performance.now() - start) / STACKS

console.log(`map: ${(json.length / 1024 / 1024).toFixed(1)} MB (esbuild, minified @sentry/browser bundle); ${all.length} mappings; ${resolved}/20 frames resolved${sink < 0 ? '' : ''}`)
console.log('')
console.log('| figure | value | target |')
console.log('|---|---|---|')
console.log(`| cold: bare parse + first lookup | ${median(bareCold).toFixed(0)} ms | — |`)
console.log(`| cold: our first 20-frame stack (parse, cache, lookups) | ${median(oursCold).toFixed(0)} ms | — |`)
console.log(`| warm symbolication of a 20-frame stack | ${(oursMs * 1000).toFixed(1)} µs | < 1 ms |`)
console.log(`| frames per second, warm | ${Math.round((20 / oursMs) * 1000).toLocaleString('en-US')} | — |`)
console.log(`| bare trace-mapping, same 20 positions | ${(bareMs * 1000).toFixed(1)} µs | — |`)
console.log(`| our overhead (ours / bare) | ${(oursMs / bareMs).toFixed(2)}× | — |`)
