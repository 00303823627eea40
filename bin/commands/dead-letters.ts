/** svc dead-letters: list the events a consumer group gave up on, and replay them once the cause is fixed. */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { Command, Option } from 'clipanion'
import { createRedis, streamKeys } from '../../shared/redis.js'
import { listDeadLetters, replayDeadLetters } from '../../shared/streams/index.js'
import { GROUPS, streamTopology } from '../../shared/topology.js'
import { loadContext } from '../context.js'

export class DeadLettersCommand extends Command {
  static override paths = [['dead-letters']]
  static override usage = Command.Usage({
    description: 'List the entries a consumer group dead-lettered (oldest first, without their payloads); with --replay, put them back on the group\'s retry path with fresh attempts.',
    examples: [
      ['List the grouper\'s dead letters', 'svc dead-letters'],
      ['Replay all of them after fixing the cause', 'svc dead-letters --replay'],
      ['Replay two', 'svc dead-letters --replay --id 1700000000000-0 --id 1700000000001-0'],
    ],
  })

  group = Option.String('--group', GROUPS.grouper, { description: 'Consumer group (grouper)' })
  replay = Option.Boolean('--replay', false, { description: 'Replay instead of only listing' })
  ids = Option.Array('--id', [], { description: 'Only these dead-letter ids (repeatable)' })
  limit = Option.String('--limit', '1000', { description: 'At most this many, oldest first' })

  async execute(): Promise<number> {
    const { config } = loadContext('dead-letters')
    const limit = Number(this.limit)
    if (!Number.isInteger(limit) || limit < 1) {
      this.context.stderr.write('svc dead-letters: --limit must be a whole number above 0.\n')
      return 2
    }
    const keys = streamKeys(config.redisKeyPrefix)
    const topology = streamTopology(keys).find(({ groups }) => groups.includes(this.group))
    if (!topology) {
      this.context.stderr.write(`svc dead-letters: no consumer group "${this.group}". Groups: ${Object.values(GROUPS).join(', ')}.\n`)
      return 2
    }
    // The embedded Redis of "svc up" is reachable through its socket while it runs.
    const socket = join(config.dataDir, 'redis', 'redis.sock')
    const url = config.redisUrl ?? (existsSync(socket) ? `unix://${socket}` : undefined)
    if (!url) {
      this.context.stderr.write('svc dead-letters: set REDIS_URL to the stack\'s Redis, or run this while "svc up" runs in this folder.\n')
      return 2
    }
    const redis = createRedis(url, { maxRetriesPerRequest: 1 })
    try {
      const listed = await listDeadLetters(redis, topology.stream, this.group, this.ids.length > 0 ? Number.MAX_SAFE_INTEGER : limit)
      const chosen = this.ids.length > 0 ? listed.filter((letter) => this.ids.includes(letter.id)) : listed
      const unknown = this.ids.filter((id) => !listed.some((letter) => letter.id === id))
      if (unknown.length > 0) this.context.stderr.write(`svc dead-letters: no dead letter ${unknown.join(', ')} in group ${this.group}.\n`)
      if (!this.replay) {
        for (const letter of chosen) this.context.stdout.write(`${letter.id}\torigin ${letter.origin}\tevents ${letter.events}\tattempts ${letter.attempts}\t${letter.error.replace(/\s+/g, ' ')}\n`)
        this.context.stdout.write(`${chosen.length} dead letter(s) in group ${this.group}${chosen.length > 0 ? '; replay them with --replay once the cause is fixed' : ''}.\n`)
        return unknown.length > 0 ? 1 : 0
      }
      const moved = await replayDeadLetters(redis, topology.stream, this.group, chosen.map((letter) => letter.id))
      this.context.stdout.write(`replayed ${moved} dead letter(s) to group ${this.group}: a running worker retries them now.\n`)
      return unknown.length > 0 ? 1 : 0
    } catch (error) {
      this.context.stderr.write(`svc dead-letters: ${(error as Error).message}\n`)
      return 1
    } finally {
      redis.disconnect()
    }
  }
}
