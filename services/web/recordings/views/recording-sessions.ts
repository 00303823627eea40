/**
 * What the recording views share: how a recording's user, length and gaps read, where its replay
 * is, and the issue page's "Sessions" section (the recordings the issue happened in). Recorded
 * text (user labels, pages) is untrusted and goes through html`` like everything else.
 */
import { html, type SafeHtml } from '../../http/html.js'
import { ISSUE_SESSIONS, missingChunks, type IssueSession, type RecordingSummary } from '../../../recorder/read/recordings.js'
import { when } from '../../http/views/layout.js'

/** The replay opens this long before the error, so the steps that led to it are on screen. */
export const LEAD_IN_MS = 5_000

/** The session page of a recording; at (ms since 1970) opens its replay at that moment. */
export function replayPath(projectId: string, recordingId: string, at?: number): string {
  const path = `/projects/${projectId}/recordings/${recordingId}`
  return at === undefined ? path : `${path}?at=${Math.round(at)}#replay`
}

/** A length of time as people say it: "45 s", "3 min 5 s", "1 h 2 min". */
export function duration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000))
  if (seconds < 60) return `${seconds} s`
  const minutes = Math.floor(seconds / 60)
  if (minutes < 60) return `${minutes} min ${seconds % 60} s`
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`
}

/** A moment of the replay as its player shows it: "01:05", "1:02:03". */
export function clock(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000))
  const h = Math.floor(seconds / 3600)
  const mm = String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')
  const ss = String(seconds % 60).padStart(2, '0')
  return h > 0 ? `${h}:${mm}:${ss}` : `${mm}:${ss}`
}

/** Who was recorded, as the SDK named them. */
export function userCell(recording: Pick<RecordingSummary, 'user_label'>): SafeHtml {
  return recording.user_label ? html`<span class="user-label">${recording.user_label}</span>` : html`<span class="muted">anonymous</span>`
}

/** "2 chunks missing" when chunks were lost on the way, else nothing. */
export function missingNote(recording: Pick<RecordingSummary, 'chunks' | 'max_seq'>): SafeHtml | '' {
  const missing = missingChunks(recording)
  return missing > 0 ? html` <span class="badge gap">${missing} chunk${missing === 1 ? '' : 's'} missing</span>` : ''
}

/** The issue page's Sessions section. */
export function sessionsSection(projectId: string, sessions: readonly IssueSession[]): SafeHtml {
  if (sessions.length === 0) {
    return html`<p class="empty">No recorded session of this issue. To see what users did before an error, turn on session recording in the browser SDK:
<code>init({ apiKey, recording: { mode: 'errors' } })</code> records the minute before each error and the rest of that session
(<code>mode: 'all'</code> records every session); see <code>docs/recordings.md</code>, “Turning it on”.</p>`
  }
  return html`<p class="hint small">Recorded sessions in which this issue happened, newest first (${ISSUE_SESSIONS} at most). Each replay opens ${LEAD_IN_MS / 1000} s before the issue's first error in it.</p>
<table class="sessions"><thead><tr><th scope="col">User</th><th scope="col">Started</th><th scope="col">Length</th><th scope="col" class="num">Pages</th><th scope="col" class="num">Clicks</th><th scope="col" class="num">Errors</th><th scope="col">Replay</th></tr></thead><tbody>
${sessions.map((session) => {
  const at = session.event_at.getTime() - LEAD_IN_MS
  return html`<tr><td>${userCell(session)}</td><td class="nowrap">${when(session.started_at)}</td><td>${duration(session.last_at.getTime() - session.started_at.getTime())}</td>
<td class="num">${session.pages.length}</td><td class="num">${session.clicks}</td><td class="num">${session.errors}</td>
<td><a href="${replayPath(projectId, session.id, at)}">Replay from ${clock(at - session.started_at.getTime())}</a>${missingNote(session)}</td></tr>`
})}
</tbody></table>`
}
