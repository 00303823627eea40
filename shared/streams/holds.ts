/**
 * When a failed batch is held for an outage rather than charged an attempt, and how long to wait
 * before trying it again. A real outage costs one hold however long it lasts (the batch waits for
 * the dependency's probe); holds pile up only when the probe answers and the batch still fails as
 * if the dependency were down (a full disk: SELECT 1 works, writes do not). Between those the
 * pause doubles from 0.5 s to 30 s, and after twenty in a row (about seven minutes) the failure
 * counts as the entries' own, so an error misread as an outage cannot hold a batch forever.
 */
import { SECOND, sleep, until } from '../time.js'

const MAX_HOLDS = 20
const PAUSE_FIRST = SECOND / 2
const PAUSE_CAP = 30 * SECOND

/** Thrown by a batch that an outage interrupted: the batch is held, and the loop waits for recovery. */
export class Held extends Error {
  constructor(readonly outage: unknown) {
    super('batch held: a dependency is down')
  }
}

export class HoldPolicy {
  readonly #isOutage: (error: unknown) => boolean
  readonly #untilRecovered: ((error: unknown) => Promise<void>) | undefined
  /** Holds in a row without a batch succeeding. */
  #holds = 0

  constructor(isOutage: ((error: unknown) => boolean) | undefined, untilRecovered: ((error: unknown) => Promise<void>) | undefined) {
    this.#isOutage = isOutage ?? (() => false)
    this.#untilRecovered = untilRecovered
  }

  /** True when error is an outage to wait out (and counts the hold); false once holds in a row pass the limit. */
  holds(error: unknown): boolean {
    if (!this.#isOutage(error) || this.#holds >= MAX_HOLDS) return false
    this.#holds++
    return true
  }

  /** A batch succeeded: the next outage starts a fresh count. */
  succeeded(): void {
    this.#holds = 0
  }

  /** Waits until the outage is over (or signal aborts), then, if holds are piling up, a growing pause. */
  async recovery(outage: unknown, signal: AbortSignal): Promise<void> {
    await until(this.#untilRecovered?.(outage) ?? sleep(SECOND), signal)
    if (this.#holds > 1) await sleep(Math.min(PAUSE_CAP, PAUSE_FIRST * 2 ** (this.#holds - 2)), signal)
  }
}
