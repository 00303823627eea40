import t from 'tap'
import { BREADCRUMBS_SHOWN, readBreadcrumbs, readGrouping } from '../../services/grouper/read/stored-event.js'

t.test('reads the frames, positions, source lines and stack note the grouper stored', async (t) => {
  const grouping = readGrouping({
    version: 3,
    fingerprint: 'abc',
    culprit: 'totalOf (src/cart.ts:7)',
    stack_note: 'no_app_frames',
    frames: [
      { function: 'n', file: 'https://shop.example/app.js', line: 1, column: 99, inApp: true, original: { file: '../../src/cart.ts', line: 7, column: 31, function: 'totalOf', context: { pre: ['a'], line: 'b', post: ['c'], earlier: 0 } } },
      { function: 'x', file: 'https://shop.example/vendor.js', line: 2, column: 3, inApp: false, unresolved: 'map_missing', asyncCause: 'promise callback' },
      { function: '', file: '[native code]', inApp: false, native: true, unresolved: 'no_position' },
    ],
  })
  t.equal(grouping.version, 3)
  t.equal(grouping.stackNote, 'no_app_frames')
  t.match(grouping.frames[0], { inApp: true, original: { file: '../../src/cart.ts', line: 7, column: 31, function: 'totalOf', context: { pre: ['a'], line: 'b', post: ['c'] } } })
  t.match(grouping.frames[1], { inApp: false, unresolved: 'map_missing', asyncCause: 'promise callback' })
  t.equal(grouping.frames[1]!.original, undefined)
  t.equal(grouping.frames[2]!.native, true)
})

t.test('a grouping of another shape reads as no frames instead of failing the page', async (t) => {
  for (const value of [null, 'text', [], { frames: 'no' }, { frames: [null, 3, 'x', { line: 2 }] }]) t.same(readGrouping(value).frames, [], JSON.stringify(value))
  t.same(readGrouping({ frames: [{ file: 'a.js', original: { file: 'src/a.ts' } }] }).frames[0]!.original, undefined, 'an original position without a line is dropped')
})

t.test('breadcrumbs: the SDK shape, other SDKs’ shapes and junk all come out as text, the last ones kept', async (t) => {
  const crumbs = readBreadcrumbs([
    { type: 'http', timestamp: 1_700_000_000_000, message: 'GET /api/cart', data: { method: 'GET', status: 500, duration_ms: 12 } },
    { category: 'ui.click', timestamp: 1_700_000_001.5, message: { nested: true } },
    { type: 'navigation', timestamp: '2024-01-01T00:00:00Z', message: 'x'.repeat(5000) },
    'a bare string',
    null,
    { timestamp: 1e300, data: ['a', 'b'] },
  ])
  t.equal(crumbs.length, 6)
  t.match(crumbs[0], { kind: 'http', message: 'GET /api/cart', data: [['method', 'GET'], ['status', '500'], ['duration_ms', '12']] })
  t.equal(crumbs[0]!.at!.getTime(), 1_700_000_000_000)
  t.match(crumbs[1], { kind: 'ui.click', message: '{"nested":true}' })
  t.equal(crumbs[1]!.at!.getTime(), 1_700_000_001_500, 'seconds are read as seconds')
  t.ok(crumbs[2]!.message.length < 1100, 'a long message is cut')
  t.equal(crumbs[3]!.message, 'a bare string')
  t.equal(crumbs[4]!.message, '')
  t.equal(crumbs[5]!.at, undefined, 'a time out of range is unknown')
  const many = readBreadcrumbs(Array.from({ length: 200 }, (_, i) => ({ type: 'console', message: `line ${i}` })))
  t.equal(many.length, BREADCRUMBS_SHOWN)
  t.equal(many.at(-1)!.message, 'line 199', 'newest last')
  t.same(readBreadcrumbs({ not: 'a list' }), [])
})
