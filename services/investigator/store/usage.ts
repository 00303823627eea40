/** Model tokens a project's investigations used: what the per-project daily budget is held against. */
import type { EntityManager } from '@mikro-orm/postgresql'
import type { Orm } from '../../../shared/db/orm.js'
import { Investigation } from './entities.js'
import { Fix } from './fix-entities.js'

/** Input plus output tokens of the project's investigations and fixes started since 00:00 UTC today. */
export async function tokensUsedToday(orm: Orm, projectId: string, now = new Date()): Promise<number> {
  return (await usageByProjectToday(orm, now, projectId)).get(projectId) ?? 0
}

/** Tokens used today per project (or only projectId's), for worker health and the budget (projects that used any). */
export async function usageByProjectToday(orm: Orm, now = new Date(), projectId?: string): Promise<Map<string, number>> {
  const em = orm.em.fork() as EntityManager
  const midnight = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()))
  const since = { startedAt: { $gte: midnight }, ...(projectId ? { projectId } : {}) }
  const fields = ['projectId', 'inputTokens', 'outputTokens'] as const
  const rows = [...(await em.find(Investigation, since, { fields: [...fields] })), ...(await em.find(Fix, since, { fields: [...fields] }))]
  const usage = new Map<string, number>()
  for (const row of rows) usage.set(row.projectId, (usage.get(row.projectId) ?? 0) + row.inputTokens + row.outputTokens)
  return usage
}

/**
 * The project's daily model-token budget that investigations and fixes share, as a job kind's
 * budget: what the project used today, and the kind's stop once it is spent.
 */
export function projectTokenBudget<End>(orm: Orm, daily: number, spent: (code: 'budget_exhausted', message: string) => End): { daily: number; usedToday(row: { projectId: string }): Promise<number>; exhausted(used: number): End } {
  return {
    daily,
    usedToday: (row) => tokensUsedToday(orm, row.projectId),
    exhausted: (used) => spent('budget_exhausted', `The project's investigations and fixes used ${used} of ${daily} model tokens today (UTC).`),
  }
}
