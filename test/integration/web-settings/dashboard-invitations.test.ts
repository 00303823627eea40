// Invitation links, opened and accepted as a browser does: single use, expiry, revocation, a
// tampered token, and accepting as someone who is already a member. A dead link says which it is
// (a stable code) and changes nothing.
import t from 'tap'
import { approveNewProject, DashboardClient } from '../../helpers/dashboard.js'
import { inviteLink, joinWith, userId } from '../../helpers/members.js'
import { startTestStack, type TestStack } from '../../helpers/stack.js'

/** Everything an acceptance may change: the memberships and the invitations. */
async function snapshot(stack: TestStack, projectId: string): Promise<unknown> {
  const members = await stack.db.query('SELECT user_id, role FROM project_members WHERE project_id = $1 ORDER BY user_id', [projectId])
  const invitations = await stack.db.query('SELECT id, accepted_at, accepted_by, revoked_at FROM project_invitations WHERE project_id = $1 ORDER BY id', [projectId])
  return { members: members.rows, invitations: invitations.rows }
}

t.test('an invitation link makes the signed-in account a member once; every dead link says why and changes nothing', async (t) => {
  const stack = await startTestStack(t)
  const owner = new DashboardClient(stack.baseUrl)
  await owner.signUp('owner@example.test')
  const projectId = await approveNewProject(stack, owner, 'Shop')
  t.match((await stack.db.query('SELECT role FROM project_members WHERE project_id = $1', [projectId])).rows, [{ role: 'owner' }], 'the creator is the owner')

  const link = await inviteLink(owner, projectId)
  const { rows: stored } = await stack.db.query<{ token_hash: Buffer; expires_at: Date; created_at: Date }>('SELECT token_hash, expires_at, created_at FROM project_invitations WHERE project_id = $1', [projectId])
  t.equal(stored.length, 1)
  t.notOk(stored[0]!.token_hash.toString('latin1').includes(link.split('/').pop()!), 'only a hash of the token is stored')
  t.equal(Math.round((stored[0]!.expires_at.getTime() - stored[0]!.created_at.getTime()) / 86_400_000), 7, 'the link expires in 7 days by default')

  // Signed out, the link offers sign-in and sign-up that come back to it.
  const stranger = new DashboardClient(stack.baseUrl)
  const signedOut = await stranger.get(link)
  t.equal(signedOut.status, 200)
  t.match(signedOut.text, `/signin?next=${encodeURIComponent(link)}`)
  t.match(signedOut.text, 'Join Shop')
  await stranger.get('/signin') // the link's page has no form for a signed-out browser: take the token of one that has
  const acceptSignedOut = await stranger.post(`${link}/accept`, {})
  t.equal(acceptSignedOut.status, 303)
  t.match(acceptSignedOut.location, /^\/signin\?next=/, 'accepting signed out sends to sign-in first')

  // The owner opening their own link is already a member: nothing changes, the link stays unused.
  const before = await snapshot(stack, projectId)
  await owner.get(link)
  const mine = await owner.post(`${link}/accept`, {})
  t.equal(mine.status, 409)
  t.match(mine.text, 'already a member')
  t.same(await snapshot(stack, projectId), before)

  const member = await joinWith(stack, link, 'member@example.test')
  const memberId = await userId(stack, 'member@example.test')
  t.match((await stack.db.query('SELECT role, invited_by FROM project_members WHERE project_id = $1 AND user_id = $2', [projectId, memberId])).rows, [{ role: 'member', invited_by: String }])
  t.equal((await member.get(`/projects/${projectId}`)).status, 200, 'the new member opens the project')

  const dead = async (client: DashboardClient, path: string, status: number, code: string, what: string): Promise<void> => {
    const now = await snapshot(stack, projectId)
    const opened = await client.get(path)
    t.equal(opened.status, status, `${what}: the page answers ${status}`)
    t.match(opened.text, `data-code="${code}"`, `${what}: the page says ${code}`)
    const accepted = await client.request(`${path}/accept`, { form: { csrf: client.csrf } })
    t.equal(accepted.status, status, `${what}: accepting answers ${status}`)
    t.match(accepted.text, `data-code="${code}"`)
    t.same(await snapshot(stack, projectId), now, `${what}: nothing changed`)
  }

  // Used: a second account, and the same member accepting twice.
  const second = new DashboardClient(stack.baseUrl)
  await second.signUp('second@example.test')
  await dead(second, link, 410, 'invitation_used', 'a used link')
  await dead(member, link, 410, 'invitation_used', 'accepting twice')
  t.match(second.csrf, /./)

  // Expired: the row's dates moved into the past.
  const expiring = await inviteLink(owner, projectId)
  await stack.db.query(`UPDATE project_invitations SET created_at = now() - interval '8 days', expires_at = now() - interval '1 day' WHERE accepted_at IS NULL AND revoked_at IS NULL`)
  await dead(second, expiring, 410, 'invitation_expired', 'an expired link')

  // Revoked on the members page.
  const revoking = await inviteLink(owner, projectId)
  const pending = await owner.get(`/projects/${projectId}/members`)
  const revokeAction = /action="([^"]+\/revoke)"/.exec(pending.text)?.[1]
  t.ok(revokeAction, 'the members page lists the pending invitation with a revoke button')
  t.equal((await owner.post(revokeAction!, {})).status, 303)
  await dead(second, revoking, 410, 'invitation_revoked', 'a revoked link')
  t.equal((await owner.post(revokeAction!, {})).status, 404, 'revoking twice says there is no pending invitation')

  // Tampered: one character changed, cut short, or made up.
  const fresh = await inviteLink(owner, projectId)
  const token = fresh.split('/').pop()!
  const flipped = `/invitations/${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`
  await dead(second, flipped, 404, 'invitation_unknown', 'a changed token')
  await dead(second, `/invitations/${token.slice(0, 20)}`, 404, 'invitation_unknown', 'a cut token')
  await dead(second, '/invitations/%3Cscript%3E', 404, 'invitation_unknown', 'a made-up token')

  // The fresh link still works after all that, and as an owner invitation it makes an owner.
  const ownerLink = await inviteLink(owner, projectId, 'owner')
  await second.get(ownerLink)
  t.equal((await second.post(`${ownerLink}/accept`, {})).status, 303)
  t.match((await stack.db.query('SELECT role FROM project_members WHERE project_id = $1 AND user_id = $2', [projectId, await userId(stack, 'second@example.test')])).rows, [{ role: 'owner' }])
  t.equal((await owner.get(fresh)).status, 200, 'an unused link is still pending')
})

t.test('an invitation posted cross-site or with a wrong form token is refused and joins nobody', async (t) => {
  const stack = await startTestStack(t)
  const owner = new DashboardClient(stack.baseUrl)
  await owner.signUp('owner@example.test')
  const projectId = await approveNewProject(stack, owner, 'Shop')
  const link = await inviteLink(owner, projectId)
  const person = new DashboardClient(stack.baseUrl)
  await person.signUp('person@example.test')
  await person.get(link)
  const before = await snapshot(stack, projectId)
  t.equal((await person.post(`${link}/accept`, {}, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' })).status, 403)
  t.equal((await person.request(`${link}/accept`, { form: { csrf: 'x'.repeat(43) } })).status, 403)
  t.same(await snapshot(stack, projectId), before, 'nobody joined and the link is unused')
})
