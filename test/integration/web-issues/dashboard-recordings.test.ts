import { randomUUID } from 'node:crypto'
import { gzipSync } from 'node:zlib'
import t from 'tap'
import { storeEventBatch } from '../../../services/grouper/store-events.js'
import { storedEventId as ingressEventId } from '../../../services/ingress/event-id.js'
import { walkChunks } from '../../../services/recorder/read/chunks.js'
import { listChunks, storedEventId } from '../../../services/recorder/read/recordings.js'
import { createObjectStore } from '../../../shared/object-store.js'
import { approveNewProject, DashboardClient } from '../../helpers/dashboard.js'
import { addAlert, click, pageLoad, seedRecording, svcError, type RrwebEvent } from '../../helpers/browser/recording-fixture.js'
import { sampleEvent, startTestStack, type TestStack } from '../../helpers/stack.js'

const T0 = Date.parse('2026-11-20T09:00:00.000Z')

/** Stores error events through the real grouper, with the ids the ingress gives them. */
async function storeErrors(stack: TestStack, projectId: string, events: Array<{ eventId: string; message: string; at: number; recordingId?: string }>): Promise<void> {
  const envelopes = events.map(({ eventId, message, at, recordingId }) => ({
    id: ingressEventId(projectId, eventId),
    projectId,
    keyId: 'test',
    receivedAt: at + 1000,
    body: JSON.stringify(sampleEvent({ event_id: eventId, timestamp: new Date(at).toISOString(), error: { type: 'Error', message, stack: `Error: ${message}\n    at pay (https://shop.example.com/assets/app.js:1:100)` }, recording_id: recordingId, environment: 'production' })),
  }))
  await storeEventBatch(stack.db, envelopes)
}

async function issueOf(stack: TestStack, eventId: string, projectId: string): Promise<string> {
  const { rows } = await stack.db.query<{ issue_id: string }>('SELECT issue_id FROM events WHERE id = $1', [ingressEventId(projectId, eventId)])
  return rows[0]!.issue_id
}

t.test('the issue page lists the sessions it happened in, and the session page tells one and serves its events', async (t) => {
  const stack = await startTestStack(t)
  const objects = await createObjectStore(stack.config.objectStore)
  const client = new DashboardClient(stack.baseUrl)
  await client.signUp('dev@example.test')
  const projectId = await approveNewProject(stack, client, 'Shop')
  const otherProjectId = await approveNewProject(stack, client, 'Blog')

  // Recording A: two chunks, stored in reverse order; the pay button fails and the SDK marks it.
  const payFailed = randomUUID()
  const recordingA = randomUUID()
  const cart = pageLoad(T0, 'https://shop.example.com/cart?step=1', { heading: 'Your cart', paragraph: 'Total: 42.00 EUR', button: 'Pay now' })
  const chunk0: RrwebEvent[] = [...cart.events, click(T0 + 12_000, cart.buttonId), addAlert(T0 + 12_050, cart.bodyId, 100, 'Payment failed'), svcError(T0 + 12_100, payFailed, 'Payment provider answered 502')]
  const pay = pageLoad(T0 + 20_000, 'https://shop.example.com/checkout/pay', { heading: 'Pay', paragraph: 'Card', button: 'Retry' }, 200)
  const chunk1: RrwebEvent[] = [...pay.events, click(T0 + 25_000, 9999)]
  await seedRecording(stack.db, objects, { projectId, id: recordingA, user: { id: 'user-7', email: 'ann@example.test' }, chunks: new Map([[1, chunk1], [0, chunk0]]), closed: true })
  // Recording B, later, with the same error, and a lost chunk (seq 1 of 0..2).
  const payFailedAgain = randomUUID()
  const recordingB = randomUUID()
  const again = pageLoad(T0 + 3_600_000, 'https://shop.example.com/cart', { heading: 'Your cart', paragraph: 'Total: 9.00 EUR', button: 'Pay now' })
  await seedRecording(stack.db, objects, {
    projectId,
    id: recordingB,
    user: { username: 'bob' },
    chunks: new Map([[0, [...again.events, svcError(T0 + 3_640_000, payFailedAgain, 'Payment provider answered 502')]], [2, [click(T0 + 3_700_000, again.buttonId)]]]),
    maxSeq: 2,
  })
  // A recording of the other project, and one of this project without the error.
  const foreign = await seedRecording(stack.db, objects, { projectId: otherProjectId, user: { id: 'eve' }, chunks: new Map([[0, pageLoad(T0, 'https://blog.example.com/', { heading: 'Blog', paragraph: 'Post', button: 'Like' }).events]]) })
  const quiet = await seedRecording(stack.db, objects, { projectId, user: { id: 'quiet-user' }, chunks: new Map([[0, pageLoad(T0 + 7_200_000, 'https://shop.example.com/', { heading: 'Shop', paragraph: 'Hello', button: 'Browse' }).events]]) })

  const lonely = randomUUID()
  await storeErrors(stack, projectId, [
    { eventId: payFailed, message: 'Payment provider answered 502', at: T0 + 12_100, recordingId: recordingA },
    { eventId: payFailedAgain, message: 'Payment provider answered 502', at: T0 + 3_640_000, recordingId: recordingB },
    { eventId: lonely, message: 'Search index unavailable', at: T0 + 100 },
  ])
  const issueId = await issueOf(stack, payFailed, projectId)
  t.equal(await issueOf(stack, payFailedAgain, projectId), issueId, 'both errors are one issue')
  const { rows: linked } = await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE issue_id = $1 AND recording_id IS NOT NULL', [issueId])
  t.equal(linked[0]!.n, 2, 'the grouper stored the recording ids the events named')

  t.test('the issue page lists its sessions newest first, each opening 5 s before its error', async (t) => {
    const page = await client.get(`/projects/${projectId}/issues/${issueId}`)
    t.equal(page.status, 200)
    const section = /<h2>Sessions<\/h2>[\s\S]*?<\/table>/.exec(page.text)?.[0] ?? ''
    const rows = section.split('<tr>').slice(2)
    t.equal(rows.length, 2, 'the two sessions with the issue, not the quiet one')
    t.match(rows[0], 'bob', 'the later session first')
    t.match(rows[0], `href="/projects/${projectId}/recordings/${recordingB}?at=${T0 + 3_640_000 - 5000}#replay"`, 'its replay opens 5 s before the error')
    t.match(rows[0], 'Replay from 00:35')
    t.match(rows[0], '1 chunk missing', 'and says a chunk was lost')
    t.match(rows[1], 'user-7')
    t.match(rows[1], `?at=${T0 + 12_100 - 5000}#replay`)
    t.match(rows[1], /<td class="num">2<\/td><td class="num">2<\/td><td class="num">1<\/td>/, 'pages, clicks, errors')
    t.match(rows[1], '25 s', 'its length')
    t.notMatch(rows[1], 'missing')
    t.notMatch(section, quiet)

    const other = await client.get(`/projects/${projectId}/issues/${await issueOf(stack, lonely, projectId)}`)
    t.match(other.text, /<h2>Sessions<\/h2>\s*<p class="empty">No recorded session of this issue\. To see what users did before an error, turn on session recording/, 'an issue without sessions says how to record them')
    t.match(other.text, "recording: { mode: 'errors' }")
  })

  t.test('the session page gives the facts and tells what the user did and what went wrong', async (t) => {
    const page = await client.get(`/projects/${projectId}/recordings/${recordingA}?at=${T0 + 7100}`)
    t.equal(page.status, 200)
    t.match(page.headers.get('content-security-policy'), "script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'", 'the replay page has its own policy')
    t.match(page.text, /<dt>User<\/dt><dd><span class="user-label">user-7<\/span><\/dd>/)
    t.match(page.text, /<dt>Release<\/dt><dd><code>shop@1\.4\.0<\/code><\/dd>/)
    t.match(page.text, /<dt>Environment<\/dt><dd><code>production<\/code><\/dd>/)
    t.match(page.text, /<dt>Length<\/dt><dd>25 s /)
    t.match(page.text, /<ol class="pages"><li><code class="wrap">\/cart\?step=1<\/code><\/li><li><code class="wrap">\/checkout\/pay<\/code><\/li><\/ol>/, 'pages in the order visited')
    t.match(page.text, /<dt>Clicks<\/dt><dd>2<\/dd>/)
    t.match(page.text, /<dt>Chunks<\/dt><dd>2 stored<\/dd>/)
    t.match(page.text, /<dt>State<\/dt><dd>closed <time/)
    t.match(page.text, `data-events="/api/v1/projects/${projectId}/recordings/${recordingA}/events" data-at="${T0 + 7100}"`, 'the replay is told where its events are and where to start')
    t.match(page.text, '<script src="/assets/rrweb-player.js" defer></script>')
    t.notMatch(page.text, /<script>|<script [^s]|\son[a-z]+=/, 'no inline script or handler')

    const steps = [...page.text.matchAll(/<li class="step (\w+)"><a class="at" href="([^"]+)" data-at="(\d+)">([^<]+)<\/a> ([\s\S]*?)<\/li>/g)].map((m) => ({ kind: m[1], href: m[2], at: Number(m[3]), clock: m[4], text: m[5] }))
    t.same(steps.map((s) => [s.kind, s.clock]), [['navigation', '00:00'], ['click', '00:12'], ['error', '00:12'], ['navigation', '00:20'], ['click', '00:25']], 'page loads, clicks and the error, in order')
    t.match(steps[0]!.text, '<code class="wrap">/cart?step=1</code>')
    t.match(steps[1]!.text, 'on <code class="wrap">button#pay.primary.big “Pay now”</code>', 'the click names its element and text')
    t.match(steps[2]!.text, '<code class="wrap">Payment provider answered 502</code>')
    t.match(steps[2]!.text, `<a href="/projects/${projectId}/issues/${issueId}">open its issue</a>`, 'the error links to its issue')
    t.match(steps[4]!.text, 'on an element the recording does not name')
    t.equal(steps[1]!.href, `/projects/${projectId}/recordings/${recordingA}?at=${T0 + 12_000}#replay`)
  })

  t.test('a recording with a lost chunk and a lost object says so', async (t) => {
    const page = await client.get(`/projects/${projectId}/recordings/${recordingB}`)
    t.match(page.text, /<dt>Chunks<\/dt><dd>2 stored · <span class="bad">1 missing<\/span>/)
    t.match(page.text, /<dt>State<\/dt><dd>open /)
    const lostObject = await seedRecording(stack.db, objects, { projectId, user: { id: 'z' }, chunks: new Map([[0, cart.events], [1, [click(T0 + 1000, cart.buttonId)]]]), withoutObject: [1] })
    const lost = await client.get(`/projects/${projectId}/recordings/${lostObject}`)
    t.match(lost.text, '1 stored chunk could not be read (seq 1) and is left out.')
    t.match(lost.text, '<li class="step navigation">', 'what could be read is told')
  })

  t.test('the events read answers the chunks in seq order, gzipped when asked', async (t) => {
    const answer = await fetch(`${stack.baseUrl}/api/v1/projects/${projectId}/recordings/${recordingA}/events`, { headers: { cookie: [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; '), 'accept-encoding': 'gzip' } })
    t.equal(answer.status, 200)
    t.equal(answer.headers.get('content-encoding'), 'gzip')
    t.equal(answer.headers.get('cache-control'), 'no-store')
    t.equal(answer.headers.get('access-control-allow-origin'), null, 'no cross-origin page may read it')
    const body = (await answer.json()) as { recording_id: string; chunks_read: number; unreadable_seqs: number[]; capped_at_seq: number | null; cap_bytes: number; events: RrwebEvent[] }
    t.same({ ...body, events: undefined }, { recording_id: recordingA, chunks_read: 2, unreadable_seqs: [], capped_at_seq: null, cap_bytes: 16 * 1024 * 1024, events: undefined })
    t.same(body.events, [...chunk0, ...chunk1], 'every event of chunk 0, then chunk 1')
  })

  t.test('a forged chunk nested too deep to serialise is left out and named, not a failed answer', async (t) => {
    // JSON.parse takes this (the ingress's check looks at each event's type, time and data only);
    // JSON.stringify overflows the stack on it, which once made the whole replay a 500.
    const forged = await seedRecording(stack.db, objects, { projectId, user: { id: 'forger' }, chunks: new Map([[0, cart.events], [1, [click(T0 + 2000, cart.buttonId)]]]) })
    const deep = `${'{"c":['.repeat(20_000)}{}${']}'.repeat(20_000)}`
    const text = `{"recording_id":"${forged}","seq":1,"session_id":"s","events":[{"type":5,"timestamp":${T0 + 2000},"data":{"tag":"x","payload":${deep}}}]}`
    const { rows } = await stack.db.query<{ object_key: string }>('SELECT object_key FROM recording_chunks WHERE recording_id = $1 AND seq = 1', [forged])
    await objects.put(rows[0]!.object_key, gzipSync(text))
    const cookie = [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ')
    const answer = await fetch(`${stack.baseUrl}/api/v1/projects/${projectId}/recordings/${forged}/events`, { headers: { cookie } })
    t.equal(answer.status, 200)
    const body = (await answer.json()) as { chunks_read: number; unreadable_seqs: number[]; events: RrwebEvent[] }
    t.same({ chunks_read: body.chunks_read, unreadable_seqs: body.unreadable_seqs }, { chunks_read: 1, unreadable_seqs: [1] })
    t.same(body.events, cart.events, 'the readable chunk is served')
    t.equal((await client.get(`/projects/${projectId}/recordings/${forged}`)).status, 200, 'its session page is told')
  })

  t.test('the events are capped by size, and the walk says where it stopped', async (t) => {
    const chunks = await listChunks(stack.db, projectId, recordingA)
    const seen: number[] = []
    const walk = await walkChunks(objects, chunks, (_events, seq) => seen.push(seq), 100)
    t.same(seen, [0], 'the first chunk is read even when it alone passes the cap')
    t.equal(walk.cappedAt, 1)
  })

  t.test('another project, another person and a signed-out browser get nothing', async (t) => {
    t.equal((await client.get(`/projects/${projectId}/recordings/${foreign}`)).status, 404, "a recording of another of one's projects is not in this one")
    t.equal((await client.get(`/projects/${otherProjectId}/recordings/${foreign}`)).status, 200, 'it is in its own')
    t.equal((await client.get(`/projects/${projectId}/recordings/not-a-uuid`)).status, 404)
    const cookie = [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ')
    const crossed = await fetch(`${stack.baseUrl}/api/v1/projects/${projectId}/recordings/${foreign}/events`, { headers: { cookie } })
    t.equal(crossed.status, 404)
    t.equal(((await crossed.json()) as { code: string }).code, 'recording_not_found')

    const stranger = new DashboardClient(stack.baseUrl)
    await stranger.signUp('stranger@example.test')
    t.equal((await stranger.get(`/projects/${projectId}/recordings/${recordingA}`)).status, 404)
    t.equal((await stranger.get(`/projects/${projectId}/recordings`)).status, 404)
    const theirs = await fetch(`${stack.baseUrl}/api/v1/projects/${projectId}/recordings/${recordingA}/events`, { headers: { cookie: [...stranger.cookies].map(([k, v]) => `${k}=${v}`).join('; ') } })
    t.equal(((await theirs.json()) as { code: string }).code, 'project_not_found')

    const anonymous = new DashboardClient(stack.baseUrl)
    const signedOut = await anonymous.get(`/projects/${projectId}/recordings/${recordingA}`)
    t.equal(signedOut.status, 302)
    t.match(signedOut.location, '/signin?next=')
    t.equal((await fetch(`${stack.baseUrl}/api/v1/projects/${projectId}/recordings/${recordingA}/events`)).status, 401)
  })

  t.test("the dashboard derives a marked error's stored id as the ingress does", async (t) => {
    for (const id of [payFailed, payFailedAgain, randomUUID().replaceAll('-', '')]) t.equal(storedEventId(projectId, id), ingressEventId(projectId, id))
    t.equal(storedEventId(projectId, 'not-an-id'), undefined)
  })
})
