/**
 * When digests come: at 09:00 in each project's own time zone, one per local date, through a
 * daylight-saving change, on the digester's clock (moved by the test, never waited for).
 */
import t from 'tap'
import { startDigestHarness } from '../../helpers/digest-harness.js'

const MINUTE = 60_000
const HOUR = 60 * MINUTE

t.test('each project gets its digest a little after 09:00 in its own time zone, checked and delivered ten minutes later', async (t) => {
  const h = await startDigestHarness(t, { start: '2026-06-10T06:58:00Z' })
  const berlin = await h.project('Berlin shop', 'Europe/Berlin')
  const york = await h.project('New York shop', 'America/New_York')
  await h.completed(berlin.id, { title: 'TypeError: cart is undefined', users: 14, at: new Date('2026-06-10T02:00:00Z'), fix: { number: 42 } })
  await h.completed(york.id, { title: 'RangeError: invalid date', users: 3, at: new Date('2026-06-10T02:00:00Z') })
  const digester = await h.digester()

  await h.settle(digester)
  const { rows: scheduled } = await h.stack.db.query<{ name: string; next: Date }>(`SELECT name, digest_next_at AS next FROM projects WHERE id = ANY($1) ORDER BY name`, [[berlin.id, york.id]])
  t.same(scheduled.map((row) => [row.name, row.next.toISOString()]), [['Berlin shop', '2026-06-10T07:00:00.000Z'], ['New York shop', '2026-06-10T13:00:00.000Z']], '09:00 Berlin is 07:00 UTC in summer, 09:00 New York is 13:00 UTC')
  t.same(await h.digests(berlin.id), [], 'nothing before 09:00')

  h.clock.set('2026-06-10T07:00:30Z')
  await h.settle(digester)
  t.match(await h.digests(berlin.id), [{ local_date: '2026-06-10', state: 'queued', step: 'check', written_by: 'mechanical' }], 'Berlin is written at 09:00 and waits for its check')
  t.same(h.posts(berlin.hook), [], 'nothing is sent before the check')
  t.same(await h.digests(york.id), [], 'New York is not due yet')

  h.clock.advance(9 * MINUTE)
  await h.settle(digester)
  t.same(h.posts(berlin.hook), [], 'nine minutes later the check is not due yet')
  h.clock.advance(1 * MINUTE)
  await h.settle(digester)
  const [sent] = h.posts(berlin.hook)
  t.match(sent, /^Daily digest for Berlin shop, 2026-06-10: 1 update since the last digest\.\n\n• `TypeError: cart is undefined`: a fix is proposed in a draft pull request; 14 users affected\. Pull request: https:\/\/github\.com\/acme\/shop\/pull\/42 Details: https:\/\/svc\.example\.com\/projects\/[0-9a-f-]+\/issues\/[0-9a-f-]+$/, 'Berlin receives its digest after the check')
  t.match(await h.digests(berlin.id), [{ state: 'delivered', payload: sent }], 'delivered, the payload stored as sent')

  h.clock.set('2026-06-10T13:00:10Z')
  await h.settle(digester)
  h.clock.advance(10 * MINUTE)
  await h.settle(digester)
  t.equal(h.posts(york.hook).length, 1, 'New York receives its own at 09:00 New York time')
  t.match(h.posts(york.hook)[0], /`RangeError: invalid date`: the cause was found in your code; 3 users affected\./)
  t.equal(h.posts(berlin.hook).length, 1, 'and Berlin nothing more that day')
})

t.test('across the spring change in Berlin the digest stays at 09:00 local, one per day, none skipped or doubled', async (t) => {
  // 2026-03-29 is the last Sunday of March: 09:00 is 08:00 UTC on Saturday and 07:00 UTC on Sunday.
  const h = await startDigestHarness(t, { start: '2026-03-27T12:00:00Z' })
  const berlin = await h.project('Berlin shop', 'Europe/Berlin')
  const digester = await h.digester()
  await h.settle(digester)
  const dueAt = async (): Promise<string> => (await h.stack.db.query<{ next: Date }>('SELECT digest_next_at AS next FROM projects WHERE id = $1', [berlin.id])).rows[0]!.next.toISOString()
  t.equal(await dueAt(), '2026-03-28T08:00:00.000Z')

  const sent: string[] = []
  for (const [i, at] of ['2026-03-28T08:00:05Z', '2026-03-29T07:00:05Z', '2026-03-30T07:00:05Z'].entries()) {
    await h.completed(berlin.id, { title: `Error number ${i + 1}`, users: 2, at: new Date(Date.parse(at) - HOUR) })
    h.clock.set(new Date(Date.parse(at) - 2 * MINUTE))
    await h.settle(digester)
    t.equal((await h.digests(berlin.id)).length, i, `two minutes before ${at} its digest is not opened`)
    h.clock.set(at)
    await h.settle(digester)
    // Every worker sweeping over and over within the hour opens nothing more.
    for (let n = 0; n < 3; n++) {
      h.clock.advance(20 * MINUTE)
      await h.settle(digester)
    }
    sent.push(...h.posts(berlin.hook).slice(sent.length))
  }
  t.same((await h.digests(berlin.id)).map((d) => [d.local_date, d.state]), [['2026-03-28', 'delivered'], ['2026-03-29', 'delivered'], ['2026-03-30', 'delivered']], 'one digest per local date')
  t.equal(sent.length, 3, 'three messages in three days')
  t.match(sent, [/2026-03-28: 1 update[\s\S]*Error number 1/, /2026-03-29: 1 update[\s\S]*Error number 2/, /2026-03-30: 1 update[\s\S]*Error number 3/], "each day's message holds that day's item only")
  t.equal(await dueAt(), '2026-03-31T07:00:00.000Z', 'the next one is 09:00 CEST')
})

t.test('a project whose time zone changes is scheduled again in its new zone', async (t) => {
  const h = await startDigestHarness(t, { start: '2026-06-10T05:00:00Z' })
  const project = await h.project('Shop', 'UTC')
  const digester = await h.digester()
  await h.settle(digester)
  await h.stack.db.query(`UPDATE projects SET timezone = 'Asia/Tokyo', digest_next_at = NULL WHERE id = $1`, [project.id])
  await h.settle(digester)
  const { rows } = await h.stack.db.query<{ next: Date }>('SELECT digest_next_at AS next FROM projects WHERE id = $1', [project.id])
  t.equal(rows[0]!.next.toISOString(), '2026-06-11T00:00:00.000Z', '09:00 in Tokyo is midnight UTC')
})

t.test('across the autumn change in Berlin the digest moves from 07:00 to 08:00 UTC and comes once a day', async (t) => {
  // 2026-10-25 is the last Sunday of October: the clocks go back at 03:00 local.
  const h = await startDigestHarness(t, { start: '2026-10-23T12:00:00Z' })
  const berlin = await h.project('Berlin shop', 'Europe/Berlin')
  const digester = await h.digester()
  await h.settle(digester)
  const opened: string[] = []
  for (const day of ['2026-10-24', '2026-10-25', '2026-10-26']) {
    const { rows } = await h.stack.db.query<{ next: Date }>('SELECT digest_next_at AS next FROM projects WHERE id = $1', [berlin.id])
    opened.push(rows[0]!.next.toISOString())
    await h.completed(berlin.id, { title: `Error of ${day}`, users: 1, at: new Date(rows[0]!.next.getTime() - HOUR) })
    h.clock.set(new Date(rows[0]!.next.getTime() + 5000))
    await h.settle(digester)
    h.clock.advance(10 * MINUTE)
    await h.settle(digester)
  }
  t.same(opened, ['2026-10-24T07:00:00.000Z', '2026-10-25T08:00:00.000Z', '2026-10-26T08:00:00.000Z'], '09:00 local each day')
  t.same((await h.digests(berlin.id)).map((d) => [d.local_date, d.state]), [['2026-10-24', 'delivered'], ['2026-10-25', 'delivered'], ['2026-10-26', 'delivered']])
  t.equal(h.posts(berlin.hook).length, 3)
})
