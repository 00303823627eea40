/**
 * Why an issue that was not admitted was not, in one line for people (the issue page shows "Not
 * investigated: <message>"), decided from what the grouper's actor rows say. Pure, so each wording
 * is tested on its own.
 */
import type { AdmissionNote } from './store/admission-notes.js'

/** What admission knows of an issue's actors (the larger of its users and sessions in each count). */
export interface ActorCounts {
  /** Real users or sessions whose events' own timestamps fall within the window. */
  recent: number
  /** Real users or sessions at any time (some outside the window). */
  real: number
  /** Every user or session, automated agents and clocks ahead included. */
  total: number
  /** Some events came from automated agents. */
  automated: boolean
  /** Some events were dated ahead of the clock (beyond the skew tolerance) or undated. */
  ahead: boolean
}

export interface AdmissionRule {
  minActors: number
  windowMs: number
}

/** Noise is never investigated, whoever ran into it. */
export function noiseNote(noise: string): AdmissionNote {
  return { code: 'noise', message: `marked as noise (${NOISE[noise] ?? noise}): noise is never investigated` }
}

/** The note of an issue with fewer than rule.minActors recent real users or sessions. */
export function actorsNote(counts: ActorCounts, rule: AdmissionRule): AdmissionNote {
  const days = Math.round(rule.windowMs / 86_400_000)
  const window = days >= 1 ? `${days} day${days === 1 ? '' : 's'}` : `${Math.round(rule.windowMs / 3_600_000)} hours`
  const wanted = `an issue is investigated once ${rule.minActors} distinct users or sessions run into it within ${window}`
  if (counts.real >= rule.minActors) {
    const within = counts.recent === 0 ? 'none' : `only ${counts.recent}`
    return { code: 'events_too_old', message: `events too old: by their own timestamps, ${within} of the ${counts.real} real users or sessions that ran into it did so within the last ${window}; ${wanted}` }
  }
  if (counts.total >= rule.minActors) {
    const others = [counts.automated ? 'headless browsers, crawlers or monitoring agents' : '', counts.ahead ? 'clients whose clocks are ahead (their events are dated in the future)' : ''].filter(Boolean).join(', and ') || 'not real users'
    const message = counts.real === 0 ? `no real user or session so far: the ${counts.total} that ran into it were ${others}` : `only ${counted(counts.real)} so far: the others were ${others}`
    return { code: 'not_real_users', message: `${message}; ${wanted}` }
  }
  if (counts.recent === 0) return { code: 'too_few_users', message: `no user or session that counts so far; ${wanted}` }
  return { code: 'too_few_users', message: `only ${counts.recent === 1 ? 'one user' : `${counts.recent} users or sessions`} so far; ${wanted}` }
}

/** The stack check's refusal. */
export function appCodeNote(message: string): AdmissionNote {
  return { code: 'no_app_frames', message }
}

function counted(n: number): string {
  return n === 1 ? 'one real user or session' : `${n} real users or sessions`
}

/** How the noise reasons of grouping/noise.ts read. */
const NOISE: Record<string, string> = {
  'browser-extension': 'the stack is made only of browser-extension frames',
  'resize-observer-loop': 'a ResizeObserver loop message, which browsers raise harmlessly',
  'cross-origin-script-error': 'a cross-origin "Script error." with no stack',
}
