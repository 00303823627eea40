/**
 * The recorder's behaviour in a real browser, written once and run in Chromium and in Firefox ESR
 * (sdk-recording-chromium.test.ts, sdk-recording-firefox.test.ts): what is sent, how it is
 * numbered and masked, how an error is linked, and what happens on a refusal, a page hide and a
 * reload. The SDK talks to a capture server standing in for the service.
 */
import type { Test } from 'tap'
import { servePages } from '../../helpers/browser/browser.js'
import { distinctChunks, everythingSent, INGEST_KEY, recordingPage, startCapture, type Capture, type ChunkBody } from './sdk-recording-harness.js'
import type { Step } from './sdk-recording-steps.js'

export type Drive = (capture: Capture, steps: Step[]) => Promise<string>

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
const TYPED = 'typed-name-Q7x'
const PASSWORD = 'pass-word-Z9k'
const NOTE = 'typed-note-K3m'

/** Script a page carries outside script elements: each marker is in nothing a chunk may hold. */
const SCRIPTED = `<form id="pay-form" onsubmit="return SUBMIT_IN_HTML()"><button id="go" type="button" onclick="HANDLER_IN_HTML()">Pay here</button></form>
<a id="js-link" href=" JavaScript:LINK_IN_HTML()">Pay by link</a> <a id="later" href="/fine">Later link</a>
<iframe id="doc" srcdoc="<script>var SRCDOC_SCRIPT = 1</script><p>inner page</p>"></iframe>`
/** What the handlers scenario does to the page once it is recorded. */
const SCRIPTED_LATER = [
  `document.getElementById('go').setAttribute('onmouseover', 'HANDLER_SET_LATER()')`,
  `document.getElementById('later').href = 'javascript:LINK_SET_LATER()'`,
  `document.getElementById('pay-form').insertAdjacentHTML('beforeend', '<div id="added" onclick="ADDED_HANDLER()">added</div>')`,
].join('; ')
const MARKERS = ['SUBMIT_IN_HTML', 'HANDLER_IN_HTML', 'LINK_IN_HTML', 'SRCDOC_SCRIPT', 'HANDLER_SET_LATER', 'LINK_SET_LATER', 'ADDED_HANDLER']

/** Serves the recording page at / (with inline handlers and javascript: links at /handlers) (and a plain page at /other) for config; returns the page's address. */
async function page(t: Test, capture: Capture, recording: Record<string, unknown>): Promise<string> {
  const config = { apiKey: INGEST_KEY, endpoint: capture.url, release: 'shop@1.0.0', environment: 'production', recording }
  const pages = { '/': recordingPage(config), '/handlers': recordingPage(config, SCRIPTED), '/other': '<!doctype html><p>another page</p>' }
  // 127.0.0.1, not localhost: Firefox tries ::1 first, where the page server does not listen.
  return (await servePages(t, pages)).replace('localhost', '127.0.0.1')
}

/**
 * What holds for every run: one recording (a UUID v4), headers as the contract says, gzip (a send
 * at unload may go uncompressed, with keepalive), chunks numbered from 0 without gaps, and a
 * number sent twice only with the same content. Returns the chunks as kept.
 */
function checkChunks(t: Test, capture: Capture): ChunkBody[] {
  t.ok(capture.chunks.length > 0, 'chunks arrived')
  const ids = [...new Set(capture.chunks.map((chunk) => chunk.body.recording_id))]
  t.equal(ids.length, 1, 'all of one recording')
  t.match(ids[0], UUID_V4, 'whose id is a UUID v4')
  const texts = new Map<number, string>()
  let wrong = 0
  for (const chunk of capture.chunks) {
    const gzip = chunk.headers['content-encoding'] === 'gzip' && chunk.raw[0] === 0x1f && chunk.raw[1] === 0x8b
    if (!gzip && !chunk.keepalive) wrong++
    if (chunk.headers['x-api-key'] !== INGEST_KEY || chunk.headers['content-type'] !== 'application/json' || chunk.headers.cookie !== undefined) wrong++
    const before = texts.get(chunk.body.seq)
    if (before !== undefined) t.equal(chunk.text, before, `chunk ${chunk.body.seq} sent again with the same content`)
    texts.set(chunk.body.seq, chunk.text)
  }
  t.equal(wrong, 0, 'every chunk gzipped, with the ingest key and JSON type, and no cookie')
  const seqs = [...texts.keys()].sort((a, b) => a - b)
  t.same(seqs, seqs.map((_, i) => i), 'numbered from 0 without gaps')
  return distinctChunks(capture)
}

/** Registers the scenarios as tests of t, driven by drive in the browser named. */
export function recordingScenarios(t: Test, browser: string, drive: Drive): void {
  t.test(`in ${browser}, the session goes in gzipped, numbered chunks, typed text and passwords appear nowhere, and an error is linked to its recording`, async (t) => {
    const capture = await startCapture(t)
    const origin = await page(t, capture, { mode: 'all', flushIntervalMs: 1000 })
    const message = `linked error ${'x'.repeat(300)}`
    await drive(capture, [
      { goto: `${origin}/?token=url-secret-77&step=2` },
      { ready: true },
      { type: ['#name', TYPED] },
      { type: ['#pw', PASSWORD] },
      { type: ['#note', NOTE] },
      { click: '#save' },
      { wait: { chunks: 1 } },
      { run: `throwNow(${JSON.stringify(message)})` },
      { wait: { events: 1, marked: 1 } },
    ])
    const chunks = checkChunks(t, capture)
    const first = chunks[0]!
    t.same(first.events.slice(0, 2).map((event) => event.type), [4, 2], 'the first chunk starts with the page (meta) and its full snapshot')
    t.equal(first.session_id, capture.events[0]!.body.session_id, 'chunks carry the session id of the events')
    t.same([first.user, first.release, first.environment, first.sdk_version], [{ id: 'user-7' }, 'shop@1.0.0', 'production', '0.1.0'])

    const sent = everythingSent(capture)
    t.match(first.events[0]!.data.href, /\?token=%5Bredacted%5D&step=2$/, 'the page address goes without the values of secret-looking parameters')
    for (const secret of [TYPED, PASSWORD, NOTE, 'masked-paragraph-text', 'blocked-box-text']) t.notOk(sent.includes(secret), `"${secret}" was never sent`)
    // (The error's stack names the page's inline script by its address, token and all: the core's business.)
    t.notOk(capture.chunks.some((chunk) => chunk.text.includes('url-secret-77')), 'nor the secret in the page address, in any chunk')
    const inputs = chunks.flatMap((chunk) => chunk.events).filter((event) => event.type === 3 && (event.data as { source?: number }).source === 5)
    const typedValues = inputs.map((event) => (event.data as { text?: string }).text)
    t.ok(typedValues.includes('*'.repeat(TYPED.length)), 'the typing was recorded, as stars')
    t.ok(typedValues.every((text) => /^\**$/.test(text ?? '')), 'every input value went as stars')

    const event = capture.events[0]!.body
    t.equal(event.recording_id, first.recording_id, 'the error event carries the recording id')
    const marks = chunks.flatMap((chunk) => chunk.events).filter((e) => e.type === 5 && e.data.tag === 'svc.error')
    t.equal(marks.length, 1, 'one svc.error custom event')
    t.same(marks[0]!.data.payload, { event_id: event.event_id, message: event.error.message.slice(0, 200) }, 'naming the event, its message cut to 200 characters')
  })

  t.test(`in ${browser}, inline handlers and javascript: URLs never leave the page, also when set after the first snapshot`, async (t) => {
    const capture = await startCapture(t)
    const origin = await page(t, capture, { mode: 'all', flushIntervalMs: 1000 })
    await drive(capture, [
      { goto: `${origin}/handlers` },
      { ready: true },
      { run: SCRIPTED_LATER },
      { idle: 300 },
      // A captured error sends what was recorded at once: the changes above with it.
      { run: `throwNow('after the changes')` },
      { wait: { events: 1, marked: 1 } },
    ])
    const chunks = checkChunks(t, capture)
    const sent = capture.chunks.map((chunk) => chunk.text).join('\n')
    t.ok(sent.includes('Pay here') && sent.includes('"id":"go"') && sent.includes('"id":"added"'), 'the elements are recorded, with their other attributes')
    t.ok(sent.includes('inner page'), "and the inner page's content, as its own document")
    for (const marker of MARKERS) t.notOk(sent.includes(marker), `${marker} is in no chunk`)
    t.notMatch(sent, /"on[a-z]+":/i, 'no handler attribute, not even empty')
    t.notMatch(sent, /javascript:/i, 'no javascript: URL')
    const changes = chunks.flatMap((chunk) => chunk.events).flatMap((event) => (event.type === 3 && (event.data as { source?: number }).source === 0 ? ((event.data as { attributes?: Array<{ attributes: Record<string, unknown> }> }).attributes ?? []) : []))
    t.ok(changes.some((change) => 'href' in change.attributes && change.attributes.href === null), "the link's change to a javascript: URL goes as the removal of its address")
  })

  t.test(`in ${browser}, with maskAllInputs false a text input is recorded as typed and a password still is not, even once shown`, async (t) => {
    const capture = await startCapture(t)
    const origin = await page(t, capture, { mode: 'all', flushIntervalMs: 1000, maskAllInputs: false })
    await drive(capture, [
      { goto: `${origin}/` },
      { ready: true },
      { type: ['#name', TYPED] },
      { type: ['#pw', PASSWORD] },
      // A "show password" button: the field becomes a text input, and the user types on.
      { run: `document.getElementById('pw').type = 'text'` },
      { type: ['#pw', 'shown-Y4'] },
      { run: `throwNow('after typing')` },
      { wait: { events: 1, marked: 1 } },
    ])
    checkChunks(t, capture)
    const sent = everythingSent(capture)
    t.ok(sent.includes(TYPED), 'the text input went as typed (the search does find what is there)')
    t.notOk(sent.includes(PASSWORD), 'the password did not')
    t.ok(sent.includes('*'.repeat(PASSWORD.length)), 'it went as stars')
    t.notOk(sent.includes('shown-Y4'), 'nor what was typed once the password was shown')
  })

  t.test(`in ${browser}, 'errors' mode sends nothing until an error, then the buffer from a full snapshot before it, then the rest`, async (t) => {
    const capture = await startCapture(t)
    const origin = await page(t, capture, { mode: 'errors', flushIntervalMs: 1000 })
    await drive(capture, [
      { goto: `${origin}/` },
      { ready: true },
      { type: ['#name', 'before'] },
      { idle: 2500 },
      { run: `throwNow('first error')` },
      { wait: { events: 1, marked: 1 } },
      { type: ['#note', 'after'] },
      { wait: { inputs: 'before'.length + 'after'.length } },
    ])
    const chunks = checkChunks(t, capture)
    const first = chunks[0]!
    const mark = first.events.find((event) => event.type === 5 && event.data.tag === 'svc.error')
    t.ok(mark, 'the first chunk holds the error: nothing was sent before it, though 2.5 s of flushes passed')
    t.same(first.events.slice(0, 2).map((event) => event.type), [4, 2], 'the buffer starts with the page and a full snapshot')
    t.ok(first.events[1]!.timestamp <= mark!.timestamp, 'taken before the error')
    t.ok(first.events.some((event) => event.type === 3 && (event.data as { source?: number }).source === 5 && event.timestamp < mark!.timestamp), 'with the typing before the error')
    t.equal(capture.events[0]!.body.recording_id, first.recording_id, 'the error names the recording')
    const later = chunks.slice(1).flatMap((chunk) => chunk.events)
    t.ok(later.some((event) => event.type === 3 && (event.data as { source?: number }).source === 5 && event.timestamp > mark!.timestamp), 'and recording went on after it')
  })

  t.test(`in ${browser}, a chunk answered 503 is sent again with the same number and the same bytes`, async (t) => {
    const capture = await startCapture(t)
    capture.answers.push({ status: 503, body: { code: 'objectstore_unavailable', message: 'Try again shortly.', retry_after: 1 } })
    const origin = await page(t, capture, { mode: 'all', flushIntervalMs: 1000 })
    await drive(capture, [{ goto: `${origin}/` }, { ready: true }, { wait: { chunks: 2 } }])
    checkChunks(t, capture)
    const [refused, again] = capture.chunks
    t.equal(refused!.status, 503)
    t.equal(again!.body.seq, refused!.body.seq, 'the same number')
    t.ok(again!.raw.equals(refused!.raw), 'the same body, byte for byte')
    t.equal(again!.status, 202)
  })

  t.test(`in ${browser}, a chunk answered 429 is sent again, the same, only after retry_after`, async (t) => {
    const capture = await startCapture(t)
    capture.answers.push({ status: 429, body: { code: 'rate_limited', message: 'Slow down.', retry_after: 2 } })
    const origin = await page(t, capture, { mode: 'all', flushIntervalMs: 1000 })
    await drive(capture, [{ goto: `${origin}/` }, { ready: true }, { wait: { chunks: 2 } }])
    checkChunks(t, capture)
    const [limited, again] = capture.chunks
    t.equal(again!.body.seq, limited!.body.seq, 'the same number')
    t.ok(again!.raw.equals(limited!.raw), 'the same body')
    t.ok(again!.at - limited!.at >= 1900, `after retry_after (${again!.at - limited!.at} ms)`)
  })

  t.test(`in ${browser}, leaving the page sends what was recorded with keepalive`, async (t) => {
    const capture = await startCapture(t)
    // The default interval (30 s): nothing is sent before the page is left.
    const origin = await page(t, capture, { mode: 'all' })
    await drive(capture, [{ goto: `${origin}/` }, { ready: true }, { type: ['#name', TYPED] }, { goto: `${origin}/other` }, { wait: { keepalive: 1, inputs: TYPED.length } }])
    const chunks = checkChunks(t, capture)
    const kept = capture.chunks.filter((chunk) => chunk.keepalive)
    t.ok(kept.length >= 1, 'sent with keepalive')
    t.ok(kept.some((chunk) => chunk.body.events.some((event) => event.type === 3 && (event.data as { source?: number }).source === 5)), 'holding the typing')
    t.same(chunks[0]!.events.slice(0, 2).map((event) => event.type), [4, 2])
    t.notOk(everythingSent(capture).includes(TYPED), 'masked all the same')
  })

  t.test(`in ${browser}, a reload goes on with the same recording and the next numbers`, async (t) => {
    const capture = await startCapture(t)
    const origin = await page(t, capture, { mode: 'all', flushIntervalMs: 1000 })
    await drive(capture, [
      { goto: `${origin}/` },
      { ready: true },
      { type: ['#name', 'one'] },
      { wait: { inputs: 3 } },
      { reload: true },
      { ready: true },
      { type: ['#note', 'two'] },
      { wait: { snapshots: 2, inputs: 6 } },
    ])
    const chunks = checkChunks(t, capture)
    const withSnapshot = chunks.filter((chunk) => chunk.events.some((event) => event.type === 2)).map((chunk) => chunk.seq)
    t.equal(withSnapshot.length, 2, 'two pages, each with its full snapshot')
    t.ok(withSnapshot[1]! > withSnapshot[0]!, 'the second page numbered after the first')
    t.equal(new Set(chunks.map((chunk) => chunk.session_id)).size, 1, 'one session')
  })

  t.test(`in ${browser}, after 30 minutes without activity the tab's next page begins a new recording from 0`, async (t) => {
    const capture = await startCapture(t)
    const origin = await page(t, capture, { mode: 'all', flushIntervalMs: 1000 })
    // The tab's state as 31 minutes of idling would leave it, written from a page that does not record.
    const age = `const saved = JSON.parse(sessionStorage.getItem('svc.recording')); saved.last -= 31 * 60_000; sessionStorage.setItem('svc.recording', JSON.stringify(saved))`
    await drive(capture, [{ goto: `${origin}/` }, { ready: true }, { wait: { chunks: 1 } }, { goto: `${origin}/other` }, { run: age }, { goto: `${origin}/` }, { ready: true }, { wait: { snapshots: 2 } }])
    const chunks = distinctChunks(capture)
    const ids = [...new Set(chunks.map((chunk) => chunk.recording_id))]
    t.equal(ids.length, 2, 'two recordings')
    for (const id of ids) t.equal(Math.min(...chunks.filter((chunk) => chunk.recording_id === id).map((chunk) => chunk.seq)), 0, 'each numbered from 0')
    const second = chunks.find((chunk) => chunk.recording_id === ids[1] && chunk.seq === 0)!
    t.same(second.events.slice(0, 2).map((event) => event.type), [4, 2], 'the new one starts with its page and full snapshot')
  })

  t.test(`in ${browser}, a recording sampled out sends nothing and the error names no recording`, async (t) => {
    const capture = await startCapture(t)
    const origin = await page(t, capture, { mode: 'all', flushIntervalMs: 1000, sampleRate: 0 })
    await drive(capture, [{ goto: `${origin}/` }, { ready: true }, { type: ['#name', TYPED] }, { run: `throwNow('unrecorded')` }, { wait: { events: 1 } }, { idle: 1500 }])
    t.equal(capture.chunks.length, 0, 'no chunk')
    t.equal(capture.events[0]!.body.recording_id, undefined, 'no recording id on the event')
  })
}
