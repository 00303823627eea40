/**
 * The replay's events for the browser (the dashboard's replay page, the project API), read from the
 * recorder's chunk objects (chunks.ts), cleaned of what would run or fetch, and capped at
 * REPLAY_CAP_BYTES.
 */
import type { ObjectStore } from '../../../shared/object-store.js'
import { CHUNKS_CAP_BYTES, walkChunks, type ChunkRef } from './chunks.js'
import { ReplayCleaner } from './replay/clean-events.js'

/** Events one replay carries at most (the chunk reader's cap): a longer session plays up to where it fell, and says so. */
export const REPLAY_CAP_BYTES = CHUNKS_CAP_BYTES

/** The replay's answer: the recording's events in seq order as one JSON text, and what was left out. */
export async function replayJson(objects: ObjectStore, recordingId: string, chunks: readonly ChunkRef[]): Promise<string> {
  const parts: string[] = []
  const cleaner = new ReplayCleaner()
  const tooDeep: number[] = []
  const walk = await walkChunks(objects, chunks, (read, seq) => {
    // Re-serialised from the checked events, one chunk at a time: nothing else of a chunk's body goes
    // to the browser, and nothing that would run or fetch in the replay (replay/clean-events.ts).
    const events = cleaner.clean(read)
    if (events.length === 0) return
    const text = serialised(events)
    if (text === undefined) tooDeep.push(seq)
    else parts.push(text.slice(1, -1))
  })
  const unreadable = [...walk.unreadable, ...tooDeep].sort((a, b) => a - b)
  const head = { recording_id: recordingId, chunks_read: walk.read - tooDeep.length, unreadable_seqs: unreadable, capped_at_seq: walk.cappedAt ?? null, cap_bytes: REPLAY_CAP_BYTES }
  return `${JSON.stringify(head).slice(0, -1)},"events":[${parts.join(',')}]}`
}

/**
 * The events as JSON, or undefined when they nest too deep for JSON.stringify (a forged chunk: a
 * real page's snapshot is far shallower, and the browser could not rebuild such a tree either).
 */
function serialised(events: unknown[]): string | undefined {
  try {
    return JSON.stringify(events)
  } catch (error) {
    if (error instanceof RangeError) return undefined
    throw error
  }
}
