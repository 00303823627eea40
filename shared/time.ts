/** Durations in milliseconds, so every timeout in the code reads with its unit. */
export const SECOND = 1000
export const MINUTE = 60 * SECOND
export const HOUR = 60 * MINUTE
export const DAY = 24 * HOUR

/** Resolves after ms, or as soon as signal aborts; the timer does not keep the process alive. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return until(new Promise((resolve) => setTimeout(resolve, ms).unref()), signal)
}

/** Resolves once work settles (either way) or signal aborts, whichever comes first; no listener stays behind. */
export function until(work: Promise<unknown>, signal?: AbortSignal): Promise<void> {
  const settled = work.then(
    () => undefined,
    () => undefined,
  )
  if (!signal) return settled
  if (signal.aborted) return Promise.resolve()
  return new Promise((resolve) => {
    void settled.then(done)
    function done(): void {
      signal!.removeEventListener('abort', done)
      resolve()
    }
    signal.addEventListener('abort', done, { once: true })
  })
}
