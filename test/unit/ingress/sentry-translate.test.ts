import t from 'tap'
import { groupEvent, type GroupingInput } from '../../../services/grouper/grouping/index.js'
import { IngestError } from '../../../services/ingress/errors.js'
import { checkProjectSegment, keyFromAuthHeader, keyFromDsn } from '../../../services/ingress/sentry/auth.js'
import { parseEnvelope } from '../../../services/ingress/sentry/envelope.js'
import { stackText } from '../../../services/ingress/sentry/stack-text.js'
import { translateEvent } from '../../../services/ingress/sentry/translate.js'
import { parseEvent } from '../../../services/ingress/validate-event.js'
import { browserEvent } from '../../helpers/browser/sentry.js'

// One bug in Chrome, as our SDK sends error.stack and as @sentry/browser's parser lists the frames (oldest first).
const ourStack = [
  "TypeError: Cannot read properties of undefined (reading 'price')",
  '    at https://shop.example/src/cart/summary.ts:43:35',
  '    at Array.reduce (<anonymous>)',
  '    at CartSummary.total (https://shop.example/src/cart/summary.ts:42:31)',
  '    at HTMLButtonElement.<anonymous> (https://shop.example/src/main.ts:8:12)',
].join('\n')
const sentryFrames = [
  { filename: 'https://shop.example/src/main.ts', function: 'HTMLButtonElement.<anonymous>', lineno: 8, colno: 12, in_app: true },
  { filename: 'https://shop.example/src/cart/summary.ts', function: 'CartSummary.total', lineno: 42, colno: 31, in_app: true },
  { filename: '<anonymous>', function: 'Array.reduce', in_app: true },
  { filename: 'https://shop.example/src/cart/summary.ts', function: '?', lineno: 43, colno: 35, in_app: true },
]

t.test('Sentry frames become the V8 stack text our SDK sends, throw site first', async (t) => {
  t.equal(stackText('TypeError', "Cannot read properties of undefined (reading 'price')", sentryFrames), ourStack)
  t.equal(stackText('Error', 'x', []), '', 'no frames, no stack')
  t.equal(stackText('Error', 'x', 'junk'), '')
})

t.test('the same bug through either SDK gets the same fingerprint under every grouping version', async (t) => {
  const message = "Cannot read properties of undefined (reading 'price')"
  const event = translateEvent(browserEvent({ exception: { values: [{ type: 'TypeError', value: message, stacktrace: { frames: sentryFrames } }] }, request: { url: 'https://shop.example/cart' } }), Date.now())
  const ours: GroupingInput = { type: 'TypeError', message, stack: ourStack, url: 'https://shop.example/cart' }
  const theirs: GroupingInput = { type: event.error.type, message: event.error.message, stack: event.error.stack, url: event.context.url }
  for (const version of [1, 2, 3, 4]) t.equal(groupEvent(theirs, version).fingerprint, groupEvent(ours, version).fingerprint, `version ${version}`)
})

t.test('frame text cannot forge a frame or move a location', async (t) => {
  const stack = stackText('Error', 'boom', [{ filename: 'https://a.example/x.js\n    at evil (https://evil.example/e.js:1:1)', function: 'f (https://evil.example/e.js:1:1)', lineno: 3, colno: 4 }])
  t.equal(stack.split('\n').length, 2, 'one frame line')
  t.notMatch(stack.split('\n')[1]!, /\(https:\/\/evil\.example\/e\.js:1:1\)$/)
})

t.test('a translated event passes our schema, with the last exception as the one thrown and the rest kept as text', async (t) => {
  const event = translateEvent(
    browserEvent({
      exception: { values: [{ type: 'Error', value: 'the cause' }, { type: 'TypeError', value: 'the outer', mechanism: { type: 'generic', handled: true } }] },
      timestamp: 1764400000.5,
      environment: 'has spaces',
      user: { id: 42, ip_address: '{{auto}}' },
    }),
    Date.now(),
  )
  t.same(event.error, { type: 'TypeError', message: 'the outer', stack: '' })
  t.same(event.linked_errors, ['Error: the cause'])
  t.equal(event.handled, true)
  t.equal(event.timestamp, '2025-11-29T07:06:40.500Z')
  t.equal(event.environment, undefined, 'an environment our names cannot hold is left out')
  t.same(event.user, { id: '42' })
  t.doesNotThrow(() => parseEvent(JSON.stringify(event)))
})

t.test("the event's trace (one a page load) is its session, so admission counts page views without a user", async (t) => {
  const traced = translateEvent(browserEvent({ contexts: { trace: { trace_id: 'AB'.repeat(16), span_id: '1'.repeat(16) } } }), Date.now())
  t.equal(traced.session_id, `sentry-trace-${'ab'.repeat(16)}`)
  t.doesNotThrow(() => parseEvent(JSON.stringify(traced)))
  for (const contexts of [undefined, { trace: { trace_id: 'x'.repeat(32) } }, { trace: { trace_id: 7 } }, { trace: 'abc' }]) {
    t.equal(translateEvent(browserEvent({ contexts }), Date.now()).session_id, undefined, `no session from ${JSON.stringify(contexts)}`)
  }
})

t.test('a message event, odd values and oversized fields still translate to a valid event', async (t) => {
  const message = translateEvent({ message: { formatted: 'checkout slow' }, level: 'warning', timestamp: 'garbage', event_id: 'nope' }, Date.UTC(2026, 0, 1))
  t.same(message.error, { type: 'Message', message: 'checkout slow', stack: '', thrown: 'string' })
  t.equal(message.timestamp, '2026-01-01T00:00:00.000Z', 'an unreadable timestamp becomes the arrival time')
  t.equal(message.event_id, undefined)
  t.equal(message.level, 'warning')
  const huge = translateEvent({ exception: { values: [{ type: 'T'.repeat(1000), value: 'v'.repeat(100_000) }] }, request: { url: 'u'.repeat(10_000) }, sdk: { version: 'x'.repeat(100) }, release: 'r'.repeat(300), breadcrumbs: Array(500).fill({ category: 'console', message: 'm' }), timestamp: 1e20 }, Date.now())
  t.doesNotThrow(() => parseEvent(JSON.stringify(huge)))
  t.equal(huge.breadcrumbs.length, 200)
  for (const junk of [null, 'text', 7, [1]]) t.throws(() => translateEvent(junk, Date.now()), IngestError)
  const deep = JSON.parse(`{"contexts":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}}`) as Record<string, unknown>
  const kept = translateEvent(deep, Date.now())
  t.doesNotThrow(() => parseEvent(JSON.stringify(kept)), 'contexts nested 100,000 deep are cut, not a stack overflow')
  t.match(JSON.stringify(kept.contexts), /deeper than kept/)
})

t.test('an envelope is read by length or to the newline; a bad one is refused with invalid_envelope', async (t) => {
  const body = Buffer.from('{"event_id":"9ec79c33ec9942ab8353589fcb2e04dc"}\n{"type":"attachment","length":3}\na\nb\n{"type":"event"}\n{"x":1}\n\n')
  const envelope = parseEnvelope(body)
  t.same(envelope.header, { event_id: '9ec79c33ec9942ab8353589fcb2e04dc' })
  t.same(envelope.items.map((i) => [i.type, i.payload.toString()]), [['attachment', 'a\nb'], ['event', '{"x":1}']])
  t.same(parseEnvelope(Buffer.from('{}\n{"type":"event"}')).items.map((i) => i.payload.length), [0], 'a last item without a payload line')
  t.same(parseEnvelope(Buffer.from('{}')).items, [], 'a header alone')
  for (const bad of ['', 'nope', '[]\n', '{}\n{"type":""}\n', '{}\n{"type":"a","length":1.5}\nx\n', '{}\n{"type":"a","length":5}\nx', '{}\n{"type":"a","length":1}\nxy\n']) {
    t.throws(() => parseEnvelope(Buffer.from(bad)), { code: 'invalid_envelope' }, JSON.stringify(bad))
  }
  t.throws(() => parseEnvelope(Buffer.from(`{}\n${'{"type":"session"}\n{}\n'.repeat(101)}`)), { code: 'invalid_envelope' }, 'too many items')
})

t.test('the key is read from X-Sentry-Auth and DSNs; the URL names the key\'s project or a number', async (t) => {
  t.equal(keyFromAuthHeader('Sentry sentry_version=7, sentry_key=svc_pk_a, sentry_client=x/1'), 'svc_pk_a')
  t.equal(keyFromAuthHeader('sentry_key=abc'), 'abc')
  t.equal(keyFromAuthHeader('Sentry sentry_version=7'), undefined)
  t.equal(keyFromAuthHeader(''), undefined)
  t.equal(keyFromDsn('https://svc_pk_a@errors.example.com/0b8e9a34-0000-4000-8000-000000000000'), 'svc_pk_a')
  t.equal(keyFromDsn('not a url'), undefined)
  t.equal(keyFromDsn('https://errors.example.com/1'), undefined)
  t.equal(keyFromDsn(42), undefined)
  const key = { projectId: '0b8e9a34-0000-4000-8000-000000000000', dsnNumber: '7' }
  t.doesNotThrow(() => checkProjectSegment('0B8E9A34-0000-4000-8000-000000000000', key))
  t.doesNotThrow(() => checkProjectSegment('7', key))
  t.throws(() => checkProjectSegment('1', key), { code: 'project_mismatch' }, "another project's number")
  t.throws(() => checkProjectSegment('07', key), { code: 'project_mismatch' })
  t.throws(() => checkProjectSegment('0b8e9a34-0000-4000-8000-000000000001', key), { code: 'project_mismatch' })
  t.throws(() => checkProjectSegment('', key), { code: 'project_mismatch' })
})
