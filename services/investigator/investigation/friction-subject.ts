/**
 * What an investigation of a known problem looks at instead of an error's event (docs/known-problems.md,
 * "Investigating a known problem"): the ticket of the friction-kind issue (kind, target, pages,
 * mechanical narrative, counts) and a short timeline of a few of its matched recordings around the
 * moment of friction, read from the matcher's tables with SQL (no chunk is read: the scan's findings
 * already tell the clicks that went wrong, and the recording's row its pages and counts). All of it
 * is recorded page text: the prompt marks it as untrusted data.
 */
import type { Db } from '../../../shared/db/index.js'

/** Matched recordings told, the most recent first. */
export const FRICTION_RECORDINGS = 3
/** Findings of one recording told around its moment, and how far from it (seconds). */
const TIMELINE_FINDINGS = 10
const TIMELINE_WINDOW_S = 120
/** Pages of one recording told, in order of first visit. */
const RECORDING_PAGES = 10

export interface FrictionSubject {
  ticket: {
    kind: string
    target: string
    page: string
    pages: string[]
    narrative: string
    matched: number
    users: number
    checks: { confirmed: number; refuted: number; inconclusive: number }
    published: boolean
  }
  recordings: FrictionRecording[]
}

export interface FrictionRecording {
  /** The moment of friction this recording matched the ticket at. */
  at: string
  release: string | undefined
  /** Pages visited, in order of first visit (the first RECORDING_PAGES). */
  pages: string[]
  clicks: number
  errors: number
  /** The recording's friction findings around the moment, in time order; offsetS is seconds from it. */
  timeline: Array<{ offsetS: number; kind: string; page: string; target: string; narrative: string }>
}

interface TicketRow {
  kind: string
  target: string
  page: string
  pages: string[]
  narrative: string
  matched: number
  users: number
  checks_confirmed: number
  checks_refuted: number
  checks_inconclusive: number
  published: boolean
  id: string
}

/** The known problem of a friction-kind issue, or undefined when it has none (gone with its ticket). */
export async function loadFrictionSubject(db: Db, issueId: string): Promise<FrictionSubject | undefined> {
  const { rows } = await db.query<TicketRow>(
    `SELECT id, kind, target, page, pages, narrative, matched, users, checks_confirmed, checks_refuted, checks_inconclusive,
            published_at IS NOT NULL AND unpublished_at IS NULL AS published
       FROM tickets WHERE issue_id = $1`,
    [issueId],
  )
  const ticket = rows[0]
  if (!ticket) return undefined
  const matches = await db.query<{ at: Date; release: string | null; pages: string[]; clicks: number; errors: number; timeline: FrictionRecording['timeline'] | null }>(
    `SELECT m.at, r.release, r.pages[1:${RECORDING_PAGES}] AS pages, r.clicks, r.errors,
            (SELECT json_agg(json_build_object('offsetS', round(extract(epoch FROM f.at - m.at)::numeric, 1), 'kind', f.kind, 'page', f.page, 'target', f.target, 'narrative', f.narrative) ORDER BY f.at)
               FROM (SELECT * FROM friction_findings f
                      WHERE f.project_id = m.project_id AND f.recording_id = m.recording_id
                        AND f.at BETWEEN m.at - interval '${TIMELINE_WINDOW_S} seconds' AND m.at + interval '${TIMELINE_WINDOW_S} seconds'
                      ORDER BY abs(extract(epoch FROM f.at - m.at)), f.at LIMIT ${TIMELINE_FINDINGS}) f) AS timeline
       FROM (SELECT DISTINCT ON (recording_id) project_id, recording_id, at FROM ticket_matches WHERE ticket_id = $1 ORDER BY recording_id, at) m
       JOIN recordings r ON r.project_id = m.project_id AND r.id = m.recording_id
      ORDER BY m.at DESC LIMIT ${FRICTION_RECORDINGS}`,
    [ticket.id],
  )
  return {
    ticket: {
      kind: ticket.kind,
      target: ticket.target,
      page: ticket.page,
      pages: ticket.pages,
      narrative: ticket.narrative,
      matched: ticket.matched,
      users: ticket.users,
      checks: { confirmed: ticket.checks_confirmed, refuted: ticket.checks_refuted, inconclusive: ticket.checks_inconclusive },
      published: ticket.published,
    },
    recordings: matches.rows.map((row) => ({
      at: row.at.toISOString(),
      release: row.release ?? undefined,
      pages: row.pages ?? [],
      clicks: row.clicks,
      errors: row.errors,
      timeline: (row.timeline ?? []).map((item) => ({ ...item, offsetS: Number(item.offsetS) })),
    })),
  }
}
