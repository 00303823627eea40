/**
 * Recordings as the recorder leaves them (docs/recordings.md): a recordings row, its
 * recording_chunks rows, and each chunk gzipped in the object store under its key. The rrweb events
 * are written by hand the way rrweb 2 records a small shop page: meta, full snapshot, a click, a
 * mutation, and the SDK's svc.error custom event.
 */
import { createHash, randomUUID } from 'node:crypto'
import { gzipSync } from 'node:zlib'
import type { Queryable } from '../../../shared/db/index.js'
import type { ObjectStore } from '../../../shared/object-store.js'
import { userKey } from '../../../shared/domain/user-key.js'

export interface RrwebEvent {
  type: number
  timestamp: number
  data: Record<string, unknown>
}

/** Text node. */
function text(id: number, textContent: string): Record<string, unknown> {
  return { type: 3, textContent, id }
}

/** Element node. */
function element(id: number, tagName: string, attributes: Record<string, string>, childNodes: Array<Record<string, unknown>>): Record<string, unknown> {
  return { type: 2, tagName, attributes, childNodes, id }
}

/**
 * A page load as rrweb records it: meta (the address and viewport), then a full snapshot of a
 * document with a heading, a paragraph and a button, node ids from firstId. Answers the events and
 * the button's id.
 */
export function pageLoad(at: number, href: string, content: { heading: string; paragraph: string; button: string }, firstId = 1): { events: RrwebEvent[]; buttonId: number; bodyId: number } {
  let id = firstId
  const next = (): number => id++
  const documentId = next()
  const doctypeId = next()
  const htmlId = next()
  const headId = next()
  const styleId = next()
  const styleTextId = next()
  const bodyId = next()
  const h1Id = next()
  const h1TextId = next()
  const pId = next()
  const pTextId = next()
  const buttonId = next()
  const buttonTextId = next()
  const css = 'body { font-family: sans-serif; background: #fff8e6; margin: 24px } .total { color: #b42318; font-size: 20px } #pay { padding: 8px 16px }'
  const node = {
    type: 0,
    id: documentId,
    childNodes: [
      { type: 1, name: 'html', publicId: '', systemId: '', id: doctypeId },
      element(htmlId, 'html', { lang: 'en' }, [
        element(headId, 'head', {}, [element(styleId, 'style', {}, [{ ...text(styleTextId, css), isStyle: true }])]),
        element(bodyId, 'body', {}, [
          element(h1Id, 'h1', {}, [text(h1TextId, content.heading)]),
          element(pId, 'p', { class: 'total' }, [text(pTextId, content.paragraph)]),
          element(buttonId, 'button', { id: 'pay', class: 'primary big' }, [text(buttonTextId, content.button)]),
        ]),
      ]),
    ],
  }
  return {
    events: [
      { type: 4, timestamp: at, data: { href, width: 1024, height: 640 } },
      { type: 2, timestamp: at + 5, data: { node, initialOffset: { left: 0, top: 0 } } },
    ],
    buttonId,
    bodyId,
  }
}

/** A click on node id, as rrweb's mouse-interaction event. */
export function click(at: number, id: number): RrwebEvent {
  return { type: 3, timestamp: at, data: { source: 2, type: 2, id, x: 60, y: 140, pointerType: 0 } }
}

/** A mutation that adds an alert with text under parentId (ids id and id + 1). */
export function addAlert(at: number, parentId: number, id: number, message: string): RrwebEvent {
  return {
    type: 3,
    timestamp: at,
    data: {
      source: 0,
      texts: [],
      attributes: [],
      removes: [],
      adds: [
        { parentId, nextId: null, node: element(id, 'div', { class: 'alert', role: 'alert' }, []) },
        { parentId: id, nextId: null, node: text(id + 1, message) },
      ],
    },
  }
}

/** The SDK's mark of an error it captured while recording. */
export function svcError(at: number, eventId: string, message: string): RrwebEvent {
  return { type: 5, timestamp: at, data: { tag: 'svc.error', payload: { event_id: eventId, message } } }
}

export interface SeedRecording {
  projectId: string
  id?: string
  user?: { id?: string; email?: string; username?: string }
  /** What the dashboard shows; by default the user's id, username or email. */
  userLabel?: string | null
  release?: string
  sessionId?: string
  /** Chunks by seq; a seq absent from this map is a lost chunk (max_seq still counts it). */
  chunks: Map<number, RrwebEvent[]>
  /** Seqs whose row is written but whose object is not (a store that lost it). */
  withoutObject?: number[]
  maxSeq?: number
  closed?: boolean
  /** Overrides the counts the recorder would sum from the chunks. */
  pages?: string[]
}

/** Stores a recording as the recorder does (rows) and as the ingress does (objects); answers its id. */
export async function seedRecording(db: Queryable, objects: ObjectStore, seed: SeedRecording): Promise<string> {
  const id = seed.id ?? randomUUID()
  const all = [...seed.chunks].sort(([a], [b]) => a - b).flatMap(([, events]) => events)
  const times = all.map((event) => event.timestamp)
  const first = Math.min(...times)
  const last = Math.max(...times)
  const pages = seed.pages ?? all.filter((event) => event.type === 4).map((event) => { const url = new URL(String(event.data.href)); return url.pathname + url.search })
  const clicks = all.filter((event) => event.type === 3 && event.data.source === 2 && event.data.type === 2).length
  const errors = all.filter((event) => event.type === 5 && event.data.tag === 'svc.error').length
  const seqs = [...seed.chunks.keys()]
  const label = seed.userLabel !== undefined ? seed.userLabel : (seed.user?.id ?? seed.user?.username ?? seed.user?.email ?? null)
  await db.query(`INSERT INTO environments (project_id, name) VALUES ($1, 'production') ON CONFLICT DO NOTHING`, [seed.projectId])
  await db.query(
    `INSERT INTO recordings (project_id, id, environment_id, release, session_id, user_key, user_label, started_at, last_at, received_at, closed_at, pages, clicks, errors, chunks, max_seq, bytes)
     VALUES ($1, $2, (SELECT id FROM environments WHERE project_id = $1 AND name = 'production'), $3, $4, $5, $6, $7, $8, $8, $9, $10, $11, $12, $13, $14, 0)`,
    [seed.projectId, id, seed.release ?? 'shop@1.4.0', seed.sessionId ?? `s-${id.slice(0, 8)}`, userKey(seed.projectId, seed.user), label, new Date(first), new Date(last), seed.closed ? new Date(last + 30 * 60_000) : null, pages, clicks, errors, seqs.length, seed.maxSeq ?? Math.max(...seqs)],
  )
  for (const [seq, events] of seed.chunks) {
    const body = gzipSync(JSON.stringify({ recording_id: id, seq, session_id: seed.sessionId ?? 's', user: seed.user ?? {}, release: seed.release ?? 'shop@1.4.0', environment: 'production', sdk_version: '0.1.0', events }))
    const key = `recordings/${seed.projectId}/${id}/${seq}-${createHash('sha256').update(body).digest('hex').slice(0, 16)}.json.gz`
    if (!seed.withoutObject?.includes(seq)) await objects.put(key, body)
    const ts = events.map((event) => event.timestamp)
    await db.query(
      `INSERT INTO recording_chunks (project_id, recording_id, seq, object_key, bytes, raw_bytes, first_at, last_at, received_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)`,
      [seed.projectId, id, seq, key, body.length, body.length * 5, new Date(Math.min(...ts)), new Date(Math.max(...ts))],
    )
  }
  return id
}
