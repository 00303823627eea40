// The settings page's data limits and storage panel, posted and read as a browser does: the two
// limits saved, refused with their codes (nothing written), owners only; the panel's figures from
// seeded events, recordings and intake tallies, for owners on the settings page and for members on
// their Storage page.
import { randomBytes } from 'node:crypto'
import t from 'tap'
import { addIntakeTally } from '../../../shared/domain/intake-tally.js'
import { approveNewProject, DashboardClient } from '../../helpers/dashboard.js'
import { insertIssue, inviteLink, joinWith } from '../../helpers/members.js'
import { startTestStack, type TestStack } from '../../helpers/stack.js'

async function limits(stack: TestStack, projectId: string): Promise<{ retention_days: number | null; events_per_minute: number | null }> {
  const { rows } = await stack.db.query<{ retention_days: number | null; events_per_minute: number | null }>('SELECT retention_days, events_per_minute FROM projects WHERE id = $1', [projectId])
  return rows[0]!
}

async function ownerWithProject(stack: TestStack): Promise<{ client: DashboardClient; projectId: string }> {
  const client = new DashboardClient(stack.baseUrl)
  await client.signUp(`owner-${randomBytes(4).toString('hex')}@example.test`)
  return { client, projectId: await approveNewProject(stack, client, 'Shop') }
}

/** The text of the panel's figure named by data-figure. */
function figure(page: string, name: string): string {
  const match = new RegExp(`data-figure="${name}">(.*?)</dd>`).exec(page)
  return match ? match[1]!.replace(/<[^>]+>/g, '') : ''
}

t.test('the owner saves both data limits, blank goes back to the defaults, and the page shows the defaults', async (t) => {
  const stack = await startTestStack(t)
  const { client, projectId } = await ownerWithProject(stack)
  const page = `/projects/${projectId}/settings/codehost`
  const opened = await client.get(page)
  t.match(opened.text, "blank keeps the service's default, now 90 days (in use)")
  t.match(opened.text, "blank keeps the service's default, now no cap (in use)")

  const saved = await client.post(`/projects/${projectId}/settings/data`, { retention_days: ' 30 ', events_per_minute: '1200' })
  t.equal(saved.status, 303)
  t.equal(saved.location, `${page}?saved=data_limits`)
  t.same(await limits(stack, projectId), { retention_days: 30, events_per_minute: 1200 })
  const shown = await client.get(saved.location)
  t.match(shown.text, 'The data limits were saved.')
  t.match(shown.text, 'name="retention_days" type="text" inputmode="numeric" value="30"')
  t.match(shown.text, 'name="events_per_minute" type="text" inputmode="numeric" value="1200"')

  await client.post(`/projects/${projectId}/settings/data`, { retention_days: '', events_per_minute: '0' })
  t.same(await limits(stack, projectId), { retention_days: null, events_per_minute: 0 }, 'blank is the default (NULL); 0 is no cap, stored')
})

t.test('invalid limits are refused with stable codes and clear messages, and nothing changes', async (t) => {
  const stack = await startTestStack(t)
  const { client, projectId } = await ownerWithProject(stack)
  await client.get(`/projects/${projectId}/settings/codehost`)
  await client.post(`/projects/${projectId}/settings/data`, { retention_days: '60', events_per_minute: '500' })
  const cases: Array<[Record<string, string>, string[]]> = [
    [{ retention_days: '0', events_per_minute: '500' }, ['retention_days_out_of_range']],
    [{ retention_days: '3651', events_per_minute: '' }, ['retention_days_out_of_range']],
    [{ retention_days: 'ninety', events_per_minute: '500' }, ['retention_days_not_a_number']],
    [{ retention_days: '7.5', events_per_minute: '-1' }, ['retention_days_not_a_number', 'events_per_minute_not_a_number']],
    [{ retention_days: '30', events_per_minute: '100000001' }, ['events_per_minute_out_of_range']],
    [{ retention_days: '30', events_per_minute: '<b>x</b>' }, ['events_per_minute_not_a_number']],
  ]
  for (const [form, codes] of cases) {
    const answer = await client.post(`/projects/${projectId}/settings/data`, form)
    t.equal(answer.status, 400, `${JSON.stringify(form)} answers 400`)
    t.same([...answer.text.matchAll(/data-code="([a-z_]+)"/g)].map((m) => m[1]), codes, `${JSON.stringify(form)}: ${codes.join(', ')}`)
    t.match(answer.text, 'Nothing was saved.')
    t.same(await limits(stack, projectId), { retention_days: 60, events_per_minute: 500 }, 'neither field changed')
  }
  const days = await client.post(`/projects/${projectId}/settings/data`, { retention_days: '0', events_per_minute: '' })
  t.match(days.text, 'is not a number of days from 1 to 3650. Enter a whole number of days, or leave the field blank')
  const hostile = await client.post(`/projects/${projectId}/settings/data`, { retention_days: '30', events_per_minute: '<b>x</b>' })
  t.notMatch(hostile.text, '<b>x</b>', 'what was typed is shown escaped')
  t.match(hostile.text, 'value="&lt;b&gt;x&lt;/b&gt;"', 'the form keeps what was typed')
  t.match(hostile.text, 'enter a whole number of events a minute from 0 (no cap) to 100,000,000')
})

t.test('a member sees the storage panel but not the settings page, and cannot post the limits; a stranger gets 403 too', async (t) => {
  const stack = await startTestStack(t)
  const { client: owner, projectId } = await ownerWithProject(stack)
  const member = await joinWith(stack, await inviteLink(owner, projectId))
  t.equal((await member.get(`/projects/${projectId}/settings/codehost`)).status, 403, 'the settings page is owners only')
  const storage = await member.get(`/projects/${projectId}/settings/storage`)
  t.equal(storage.status, 200, 'the storage page is every member’s')
  t.match(storage.text, 'Events stored')
  t.match((await member.get(`/projects/${projectId}`)).text, `href="/projects/${projectId}/settings/storage"`, 'a member’s tabs lead to it')
  await member.get(`/projects/${projectId}/members`)
  t.equal((await member.post(`/projects/${projectId}/settings/data`, { retention_days: '1', events_per_minute: '1' })).status, 403)
  const stranger = new DashboardClient(stack.baseUrl)
  await stranger.signUp(`stranger-${randomBytes(4).toString('hex')}@example.test`)
  t.equal((await stranger.post(`/projects/${projectId}/settings/data`, { retention_days: '1', events_per_minute: '1' })).status, 403)
  t.equal((await stranger.get(`/projects/${projectId}/settings/storage`)).status, 404, 'a stranger is told of no such project')
  t.same(await limits(stack, projectId), { retention_days: null, events_per_minute: null }, 'nothing changed')
})

t.test('the storage panel counts the seeded events, the oldest, the recordings’ bytes and the last day’s refused and sampled', async (t) => {
  const stack = await startTestStack(t)
  const { client, projectId } = await ownerWithProject(stack)
  const { projectId: otherId } = await ownerWithProject(stack)
  // Seeded before the first view: the page counts at most once a minute.
  for (const project of [projectId, otherId]) {
    const issueId = await insertIssue(stack, project, 'TypeError')
    await stack.db.query(
      `INSERT INTO events (id, project_id, issue_id, occurred_at, received_at, grouping, payload)
       SELECT gen_random_uuid(), $1, $2, now() - make_interval(days => n), now() - make_interval(days => n), '{}', '{}' FROM generate_series(0, 4) n`,
      [project, issueId],
    )
  }
  await stack.db.query(
    `INSERT INTO recordings (project_id, id, session_id, started_at, last_at, received_at, bytes)
     VALUES ($1, gen_random_uuid(), 's1', now(), now(), now(), 1048576), ($1, gen_random_uuid(), 's2', now(), now(), now(), 524288), ($2, gen_random_uuid(), 's3', now(), now(), now(), 7)`,
    [projectId, otherId],
  )
  const now = Date.now()
  await addIntakeTally(stack.redis, stack.keys, projectId, 'refused', 7, now)
  await addIntakeTally(stack.redis, stack.keys, projectId, 'refused', 5, now - 3 * 3600_000)
  await addIntakeTally(stack.redis, stack.keys, projectId, 'refused', 1000, now - 30 * 3600_000)
  await addIntakeTally(stack.redis, stack.keys, projectId, 'sampled', 40, now - 3600_000)
  await addIntakeTally(stack.redis, stack.keys, otherId, 'sampled', 99, now)
  const { rows } = await stack.db.query<{ oldest: Date }>('SELECT min(received_at) AS oldest FROM events WHERE project_id = $1', [projectId])

  const page = (await client.get(`/projects/${projectId}/settings/codehost`)).text
  t.equal(figure(page, 'events'), '5', 'every row of this project, none of the other')
  t.equal(figure(page, 'oldest'), `${rows[0]!.oldest.toISOString().slice(0, 16).replace('T', ' ')} UTC`)
  t.equal(figure(page, 'recordings'), '1.5 MiB in 2 recordings')
  t.equal(figure(page, 'refused'), '12', 'the last 24 hours only')
  t.equal(figure(page, 'sampled'), '40')
  t.match(page, /Events and recordings counted <time datetime="[^"]+">[^<]+ UTC<\/time>, at most 1 minute before this page was made/, 'the page says how fresh the counts are')

  const empty = new DashboardClient(stack.baseUrl)
  await empty.signUp(`empty-${randomBytes(4).toString('hex')}@example.test`)
  const emptyId = await approveNewProject(stack, empty, 'Empty')
  const blank = (await empty.get(`/projects/${emptyId}/settings/storage`)).text
  t.equal(figure(blank, 'events'), '0')
  t.equal(figure(blank, 'oldest'), 'none stored')
  t.equal(figure(blank, 'recordings'), '0 bytes in 0 recordings')
})
