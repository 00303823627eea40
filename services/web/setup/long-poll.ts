/**
 * Holding a request until something changes: the poll (status) and the state (facts, or only
 * has_events with until=event). A held request takes one of the session's waiter places, listens
 * on the session's and project's wake channels, re-reads on every wake, and ends at the change,
 * at its wait, at the session's expiry, or when the client goes away, which frees its place.
 * No timer ever polls the database: only wakes and the deadline cause a read.
 */
import { MAX_WAIT_SECONDS } from './wait-param.js'
import { getSession, expireIfDue, takeWaiterPlace, type SessionRow, type SetupDeps } from './sessions.js'
import { refreshStatus, viewSession, type Facts } from './facts.js'
import type { WakeHub } from './wake-hub.js'

export interface HoldControl {
  /** Seconds the client allows; 0 answers at once. */
  waitSeconds: number
  /** Registers what to do when the client disconnects. */
  onAbort(fn: () => void): void
}

interface Check<T> {
  /** Reads the current value and says whether it differs from what the client already has. */
  (session: SessionRow): Promise<{ value: T; changed: boolean }>
}

/** Re-reads the session; 410 once it expired. */
async function reread(deps: SetupDeps, pollId: string): Promise<SessionRow> {
  const session = await getSession(deps.db, pollId)
  if (!session) throw new Error(`setup session ${pollId} vanished while held`)
  return expireIfDue(deps.db, session)
}

/** Waits for check to report a change; resolves with the last value read, or undefined when the client left. */
async function hold<T>(deps: SetupDeps, hub: WakeHub, session: SessionRow, control: HoldControl, check: Check<T>): Promise<{ session: SessionRow; value: T } | undefined> {
  const first = await check(session)
  const waitMs = Math.min(control.waitSeconds, MAX_WAIT_SECONDS) * 1000
  if (first.changed || waitMs <= 0) return { session, value: first.value }
  const release = await takeWaiterPlace(deps, session.id)
  const unlisten: Array<() => void> = []
  let wakeUp: (() => void) | undefined
  let woken = false
  const onWake = (): void => {
    woken = true
    wakeUp?.()
  }
  let left = false
  control.onAbort(() => {
    left = true
    wakeUp?.()
  })
  try {
    unlisten.push(await hub.listen(deps.keys.wakeSession(session.id), onWake))
    if (session.project_id) unlisten.push(await hub.listen(deps.keys.wakeProject(session.project_id), onWake))
    // Anything that changed between the first read and the subscription is caught here.
    const deadline = Math.min(Date.now() + waitMs, session.expires_at.getTime() + 50)
    let current = session
    let latest = first
    woken = true
    while (!left) {
      if (woken) {
        woken = false
        current = await reread(deps, session.id)
        latest = await check(current)
        if (latest.changed) break
      }
      const remaining = deadline - Date.now()
      if (remaining <= 0) {
        current = await reread(deps, session.id) // a session that expired meanwhile answers 410
        latest = await check(current)
        break
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, remaining)
        wakeUp = () => {
          clearTimeout(timer)
          resolve()
        }
        if (woken || left) wakeUp()
      })
      wakeUp = undefined
    }
    return left ? undefined : { session: current, value: latest.value }
  } finally {
    for (const fn of unlisten) fn()
    await release()
  }
}

/** Holds a poll until the status differs from the one it started with (or keys are waiting). */
export async function holdPoll(deps: SetupDeps, hub: WakeHub, session: SessionRow, control: HoldControl): Promise<SessionRow | undefined> {
  const start = await refreshStatus(deps, session)
  const ready = (s: SessionRow): boolean => s.status !== start.status || s.status === 'provisioned' || s.status === 'failed' || s.status === 'expired'
  const held = await hold(deps, hub, start, control, async (s) => {
    const current = await refreshStatus(deps, s)
    return { value: current, changed: ready(current) }
  })
  return held?.value
}

/** Holds a state read until has_events turns true (untilEvent) or any fact or the status changes. */
export async function holdState(deps: SetupDeps, hub: WakeHub, session: SessionRow, control: HoldControl, untilEvent: boolean): Promise<Facts | undefined> {
  const start = await viewSession(deps, session)
  const initial = JSON.stringify(start.facts) + start.session.status
  const held = await hold(deps, hub, start.session, control, async (s) => {
    // Every read applies the app_reporting move, so the fact that ends the hold also moves the status.
    const view = await viewSession(deps, s)
    return { value: view.facts, changed: untilEvent ? view.facts.has_events : JSON.stringify(view.facts) + view.session.status !== initial }
  })
  return held?.value
}
