/** The stream runtime: consumer groups with batched reads, retries, dead letters, reclaim and trimming. */
export { StreamConsumer, type ConsumerOptions, type HandlerContext, type StreamEntry } from './consumer.js'
export { ensureGroup, groupActivity, groupInfo, queueDepth, type Depth } from './groups.js'
export { compareIds, groupKeys, type GroupKeys } from './names.js'
export { StreamTrimmer, trimStream } from './trim.js'
export { listDeadLetters, replayDeadLetters, trimDeadLetters, type DeadLetter } from './dead-letters.js'
