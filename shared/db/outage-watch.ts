/**
 * One process's view of a dependency that went away (the database): the first piece of work that
 * meets the outage logs it and starts a probe; everyone else who meets it waits for the same probe.
 * When a probe succeeds, one line says the dependency is back and how long it was gone, and every
 * waiter resumes at once. So an outage costs two log lines, however many batches it held.
 */
import type { Logger } from '../log.js'
import { SECOND } from '../time.js'

export interface OutageWatchOptions {
  /** What is watched, as log lines name it ("database"). */
  what: string
  /** Resolves when the dependency answers; rejects (or hangs past probeTimeoutMs) while it does not. */
  probe: () => Promise<unknown>
  log?: Logger
  /** Pause between probes: short, since held work resumes only after a probe succeeds. */
  probeEveryMs?: number
  probeTimeoutMs?: number
}

interface Down {
  since: number
  back: Promise<void>
}

export class OutageWatch {
  readonly #o: Required<Omit<OutageWatchOptions, 'log'>> & { log: Logger | undefined }
  #down: Down | undefined
  #closed = false
  /** The pause before the next probe; referenced, since a process waiting on a probe has work left. */
  #pause: { timer: NodeJS.Timeout; done: () => void } | undefined

  constructor(options: OutageWatchOptions) {
    this.#o = { probeEveryMs: SECOND / 2, probeTimeoutMs: 5 * SECOND, log: undefined, ...options }
  }

  /** When the current outage began (ms epoch), or undefined while the dependency answers. */
  get downSince(): number | undefined {
    return this.#down?.since
  }

  /** Notes an outage that error shows, without waiting for its end (logs it if it is new). */
  report(error: unknown): void {
    void this.untilBack(error)
  }

  /** Resolves once a probe succeeds after the outage error shows; the first caller of an outage logs it. */
  untilBack(error: unknown): Promise<void> {
    if (!this.#down) {
      const since = Date.now()
      this.#o.log?.warn(`${this.#o.what} unreachable: holding work until it answers`, { cause: describe(error) })
      this.#down = { since, back: this.#probeUntilUp(since) }
    }
    return this.#down.back
  }

  /** Stops probing (the pool is closing): waiters are released, and find out for themselves. */
  close(): void {
    this.#closed = true
    if (this.#pause) {
      clearTimeout(this.#pause.timer)
      this.#pause.done()
    }
  }

  async #probeUntilUp(since: number): Promise<void> {
    let attempts = 0
    for (;;) {
      await new Promise<void>((done) => (this.#pause = { timer: setTimeout(done, this.#o.probeEveryMs), done }))
      this.#pause = undefined
      if (this.#closed) break
      attempts++
      try {
        await withTimeout(this.#o.probe(), this.#o.probeTimeoutMs)
        break
      } catch {
        // still down; the first line already said so
      }
    }
    this.#down = undefined
    if (this.#closed) return
    this.#o.log?.info(`${this.#o.what} reachable again: held work resumes`, { down_ms: Date.now() - since, probes: attempts })
  }
}

/** The code and message of an error, which is what an operator needs (stacks of socket errors are noise). */
function describe(error: unknown): Record<string, unknown> {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown }
  return { code, message: typeof message === 'string' ? message : String(error) }
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)
    timer.unref()
  })
  // A probe that fails after the timeout won must not become an unhandled rejection.
  work.catch(() => {})
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer))
}
