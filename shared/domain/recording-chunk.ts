/**
 * The recordings stream's entries (docs/recordings.md, "Where a chunk goes"): one accepted chunk's
 * metadata, added by the ingress once the chunk's bytes are in the object store, and read by the
 * recorder. Both import this one definition. Every value but the numbers is the SDK's text, so the
 * reader keeps what PostgreSQL can store (no NUL, no lone surrogate) and nothing else is trusted:
 * an object key is used only when it lies under its own recording's folder.
 */
import { OBJECT_KEY } from '../plugins/types.js'
import { storableText } from './untrusted-text.js'
import type { UserIdentity } from './user-key.js'

export interface RecordingChunk {
  projectId: string
  recordingId: string
  seq: number
  /** Where the gzipped chunk is in the object store (chunkObjectKey). */
  key: string
  /** Stored (gzipped) bytes, and bytes after decompression. */
  bytes: number
  rawBytes: number
  /** The first and last rrweb event's time, and when the ingress received the chunk (ms epoch). */
  firstAt: number
  lastAt: number
  receivedAt: number
  sessionId: string
  user: UserIdentity | undefined
  release: string | undefined
  environment: string | undefined
  /** Pages visited in the chunk, in order of first visit (paths with their query). */
  pages: string[]
  clicks: number
  errors: number
}

/** The folder of a recording's chunks in the object store. */
export function recordingFolder(projectId: string, recordingId: string): string {
  return `recordings/${projectId}/${recordingId}/`
}

/**
 * A chunk's object key: seq padded to 6 digits (seq is below 10^6, so a listing of the folder is
 * in seq order), then 16 hex digits of the SHA-256 of the stored bytes.
 */
export function chunkObjectKey(projectId: string, recordingId: string, seq: number, sha256Hex: string): string {
  return `${recordingFolder(projectId, recordingId)}${String(seq).padStart(6, '0')}-${sha256Hex.slice(0, 16)}.json.gz`
}

/** True for a key the recorder may delete: a chunk's, under the recordings folder. */
export function isChunkObjectKey(key: string): boolean {
  return key.startsWith('recordings/') && OBJECT_KEY.test(key)
}

/** The entry's fields as name, value pairs, flat as XADD takes them. */
export function chunkFields(chunk: RecordingChunk): string[] {
  return [
    'project', chunk.projectId,
    'recording', chunk.recordingId,
    'seq', String(chunk.seq),
    'key', chunk.key,
    'bytes', String(chunk.bytes),
    'raw', String(chunk.rawBytes),
    'first', String(chunk.firstAt),
    'last', String(chunk.lastAt),
    'received', String(chunk.receivedAt),
    'session', chunk.sessionId,
    'user', chunk.user ? JSON.stringify(chunk.user) : '',
    'release', chunk.release ?? '',
    'environment', chunk.environment ?? '',
    'pages', JSON.stringify(chunk.pages),
    'clicks', String(chunk.clicks),
    'errors', String(chunk.errors),
  ]
}

/** Why an entry cannot be read: a fixed phrase naming the field, never its value. */
export class MalformedChunk extends Error {
  override name = 'MalformedChunk'
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
/** The integer columns' limit. */
const INT_MAX = 2 ** 31 - 1
/** The latest time a JavaScript Date holds. */
const TIME_MAX = 8.64e15
/** Pages a recording keeps (recordings.pages). */
export const MAX_PAGES = 50

/** Reads an entry back; throws MalformedChunk for one that is not as the contract says. */
export function chunkFromFields(fields: Record<string, string>): RecordingChunk {
  const { project, recording, key } = fields
  if (!project || !UUID.test(project)) throw new MalformedChunk('project is not a UUID')
  if (!recording || !UUID.test(recording)) throw new MalformedChunk('recording is not a UUID')
  // The key is the one thing the recorder deletes by: it must be this chunk's, not any object's.
  if (!key || !key.startsWith(recordingFolder(project, recording)) || !isChunkObjectKey(key)) throw new MalformedChunk("key is not an object key in the chunk's recording folder")
  if (fields.session === undefined) throw new MalformedChunk('session is missing')
  const firstAt = time(fields, 'first')
  const lastAt = time(fields, 'last')
  return {
    projectId: project.toLowerCase(),
    recordingId: recording.toLowerCase(),
    seq: count(fields, 'seq'),
    key,
    bytes: count(fields, 'bytes'),
    rawBytes: count(fields, 'raw'),
    firstAt: Math.min(firstAt, lastAt),
    lastAt: Math.max(firstAt, lastAt),
    receivedAt: time(fields, 'received'),
    sessionId: storableText(fields.session),
    user: userOf(fields.user),
    release: fields.release ? storableText(fields.release) : undefined,
    environment: fields.environment ? storableText(fields.environment) : undefined,
    pages: pagesOf(fields.pages),
    clicks: count(fields, 'clicks'),
    errors: count(fields, 'errors'),
  }
}

function count(fields: Record<string, string>, name: string): number {
  const value = Number(fields[name])
  if (fields[name] === undefined || fields[name] === '' || !Number.isInteger(value) || value < 0 || value > INT_MAX) throw new MalformedChunk(`${name} is not a whole number from 0 to ${INT_MAX}`)
  return value
}

function time(fields: Record<string, string>, name: string): number {
  const value = Number(fields[name])
  if (fields[name] === undefined || fields[name] === '' || !Number.isFinite(value) || value < 0 || value > TIME_MAX) throw new MalformedChunk(`${name} is not a time in ms since 1970`)
  return value
}

function userOf(raw: string | undefined): UserIdentity | undefined {
  if (!raw) return undefined
  let parsed: unknown
  try {
    parsed = JSON.parse(raw)
  } catch {
    throw new MalformedChunk('user is not JSON')
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new MalformedChunk('user is not a JSON object')
  const user: UserIdentity = {}
  for (const name of ['id', 'email', 'username'] as const) {
    const value = (parsed as Record<string, unknown>)[name]
    if (typeof value === 'string') user[name] = storableText(value)
  }
  return Object.values(user).some(Boolean) ? user : undefined
}

function pagesOf(raw: string | undefined): string[] {
  let parsed: unknown
  try {
    parsed = JSON.parse(raw ?? '')
  } catch {
    throw new MalformedChunk('pages is not JSON')
  }
  if (!Array.isArray(parsed) || !parsed.every((page) => typeof page === 'string')) throw new MalformedChunk('pages is not a JSON array of text')
  return [...new Set((parsed as string[]).map(storableText))].slice(0, MAX_PAGES)
}

