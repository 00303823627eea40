/**
 * Where the digester takes its time from: every decision about days (which projects are due, a
 * run's window, when its check and its delivery are due) reads this clock, never Date.now(), so
 * tests move through days, time zones and a daylight-saving change without waiting. Leases and
 * slots stay on real time: they measure how long a worker has been silent, not the calendar.
 */

export interface Clock {
  now(): Date
}

/** The process's own clock. */
export const systemClock: Clock = Object.freeze({ now: () => new Date() })

/** A clock that says what it is told (tests, and the benchmark). */
export class ManualClock implements Clock {
  #at: number

  constructor(at: Date | string) {
    this.#at = new Date(at).getTime()
  }

  now(): Date {
    return new Date(this.#at)
  }

  set(at: Date | string): void {
    this.#at = new Date(at).getTime()
  }

  advance(ms: number): void {
    this.#at += ms
  }
}
