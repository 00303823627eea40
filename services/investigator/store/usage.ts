/** Model tokens a project's investigations used: what the per-project daily budget is held against. */
import type { EntityManager } from '@mikro-orm/postgresql'
import type { Orm } from '../../../shared/orm.js'
import { Investigation } from './entities.js'

/** Input plus output tokens of the project's investigations started since 00:00 UTC today. */
export async function tokensUsedToday(orm: Orm, projectId: string, now = new Date()): Promise<number> {
  const em = orm.em.fork() as EntityManager
  const midnight = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()))
  const rows = await em.find(Investigation, { projectId, startedAt: { $gte: midnight } }, { fields: ['inputTokens', 'outputTokens'] })
  return rows.reduce((sum, row) => sum + row.inputTokens + row.outputTokens, 0)
}

/** Tokens used today per project, for worker health (projects that used any). */
export async function usageByProjectToday(orm: Orm, now = new Date()): Promise<Map<string, number>> {
  const em = orm.em.fork() as EntityManager
  const midnight = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()))
  const rows = await em.find(Investigation, { startedAt: { $gte: midnight } }, { fields: ['projectId', 'inputTokens', 'outputTokens'] })
  const usage = new Map<string, number>()
  for (const row of rows) usage.set(row.projectId, (usage.get(row.projectId) ?? 0) + row.inputTokens + row.outputTokens)
  return usage
}
