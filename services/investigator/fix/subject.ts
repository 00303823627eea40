/**
 * What a fix works from: the investigation's verified root cause (outcome and citations, through the
 * ORM), the error as the best recent event tells it, and the project's repository and fix settings
 * (the grouper's tables, through SQL).
 */
import type { EntityManager } from '@mikro-orm/postgresql'
import type { Db } from '../../../shared/db/index.js'
import type { Orm } from '../../../shared/db/orm.js'
import { InvestigationCitation, InvestigationOutcome } from '../store/entities.js'
import type { Fix } from '../store/fix-entities.js'
import { loadSubject, type Subject } from '../investigation/subject.js'

export interface FixSubject {
  issue: Subject['issue']
  project: Subject['project'] & { limitedDrafts: boolean }
  error: { type: string; message: string }
  rootCause: { summary: string; chain: string[]; fix: string }
  citations: Array<{ path: string; lineStart: number; lineEnd: number; quote: string }>
}

/** The fix's subject; undefined when its issue or investigation outcome is gone. */
export async function loadFixSubject(db: Db, orm: Orm, fix: Fix): Promise<FixSubject | undefined> {
  const subject = await loadSubject(db, fix.issueId)
  const em = orm.em.fork() as EntityManager
  const outcome = await em.findOne(InvestigationOutcome, { investigationId: fix.investigationId })
  if (!subject || !outcome) return undefined
  const citations = await em.find(InvestigationCitation, { investigationId: fix.investigationId }, { orderBy: { id: 'asc' } })
  const { rows } = await db.query<{ fix_limited_drafts: boolean }>('SELECT fix_limited_drafts FROM projects WHERE id = $1', [fix.projectId])
  return {
    issue: subject.issue,
    project: { ...subject.project, limitedDrafts: rows[0]?.fix_limited_drafts === true },
    error: { type: subject.event?.type ?? '', message: subject.event?.message ?? subject.issue.title },
    rootCause: { summary: outcome.summary, chain: outcome.chain, fix: outcome.fix },
    citations: citations.map((c) => ({ path: c.path, lineStart: c.lineStart, lineEnd: c.lineEnd, quote: c.quote })),
  }
}
