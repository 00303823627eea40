/**
 * Members for dashboard tests: an owner's invitation link created on the members page, and a new
 * account that accepts it, both through the dashboard's own forms.
 */
import { randomBytes } from 'node:crypto'
import { DashboardClient } from './dashboard.js'
import type { TestStack } from './stack.js'

/** Creates an invitation on the members page as owner; answers the link's path (/invitations/<token>). */
export async function inviteLink(owner: DashboardClient, projectId: string, role: 'member' | 'owner' = 'member'): Promise<string> {
  await owner.get(`/projects/${projectId}/members`)
  const created = await owner.post(`/projects/${projectId}/members/invitations`, { role })
  const link = /id="invitation-link">([^<]+)</.exec(created.text)?.[1]
  if (created.status !== 200 || !link) throw new Error(`creating an invitation answered ${created.status}`)
  return new URL(link).pathname
}

/** A new account that opens the link and accepts it; answers the client (signed in, a member now). */
export async function joinWith(stack: TestStack, link: string, email = `member-${randomBytes(4).toString('hex')}@example.test`): Promise<DashboardClient> {
  const client = new DashboardClient(stack.baseUrl)
  await client.signUp(email, undefined, link)
  const opened = await client.get(link)
  if (opened.status !== 200) throw new Error(`the invitation page answered ${opened.status}`)
  const accepted = await client.post(`${link}/accept`, {})
  if (accepted.status !== 303) throw new Error(`accepting answered ${accepted.status}`)
  return client
}

/** The user id of an account by email. */
export async function userId(stack: TestStack, email: string): Promise<string> {
  const { rows } = await stack.db.query<{ id: string }>('SELECT id FROM users WHERE lower(email) = lower($1)', [email])
  return rows[0]!.id
}

/** An issue as the grouper leaves it. */
export async function insertIssue(stack: TestStack, projectId: string, title: string): Promise<string> {
  const { rows } = await stack.db.query<{ id: string }>(
    `INSERT INTO issues (project_id, kind, fingerprint, grouping_version, status, title, culprit, first_seen, last_seen, event_count, user_count, session_count)
     VALUES ($1, 'error', gen_random_uuid()::text, 4, 'new', $2, 'totalOf (src/cart.ts:6)', now(), now(), 3, 1, 1) RETURNING id`,
    [projectId, title],
  )
  return rows[0]!.id
}
