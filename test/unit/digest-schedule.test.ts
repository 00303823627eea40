import t from 'tap'
import { followingDueAt, isTimeZone, localDateOf, nextDueAt } from '../../services/digester/schedule.js'

t.test('a digest is due at 09:00 on the wall clock of each time zone', async (t) => {
  const at = new Date('2026-06-10T12:00:00Z')
  t.equal(nextDueAt('Europe/Berlin', at).toISOString(), '2026-06-11T07:00:00.000Z', 'Berlin in summer is UTC+2: tomorrow 07:00 UTC')
  t.equal(nextDueAt('America/New_York', at).toISOString(), '2026-06-10T13:00:00.000Z', 'New York in summer is UTC-4: 09:00 there is 13:00 UTC, still to come today')
  t.equal(nextDueAt('UTC', new Date('2026-06-10T08:59:59Z')).toISOString(), '2026-06-10T09:00:00.000Z', 'just before 09:00 it is today')
  t.equal(nextDueAt('UTC', new Date('2026-06-10T09:00:00Z')).toISOString(), '2026-06-11T09:00:00.000Z', 'at 09:00 exactly the next one is tomorrow')
  t.equal(nextDueAt('Asia/Kolkata', new Date('2026-06-10T00:00:00Z')).toISOString(), '2026-06-10T03:30:00.000Z', 'a half-hour offset')
})

t.test('across the spring and autumn changes in Berlin, 09:00 stays 09:00 local and moves by an hour in UTC', async (t) => {
  // The last Sunday of March 2026 is the 29th; of October, the 25th.
  t.equal(nextDueAt('Europe/Berlin', new Date('2026-03-28T08:30:00Z')).toISOString(), '2026-03-29T07:00:00.000Z', 'Saturday was 08:00 UTC (CET); Sunday is 07:00 UTC (CEST)')
  t.equal(nextDueAt('Europe/Berlin', new Date('2026-03-27T12:00:00Z')).toISOString(), '2026-03-28T08:00:00.000Z')
  t.equal(nextDueAt('Europe/Berlin', new Date('2026-10-24T08:00:00Z')).toISOString(), '2026-10-25T08:00:00.000Z', 'after the autumn change it is 08:00 UTC again')
  t.equal(localDateOf('Europe/Berlin', new Date('2026-03-29T07:00:00Z')), '2026-03-29')
  t.equal(localDateOf('America/Los_Angeles', new Date('2026-03-29T07:00:00Z')), '2026-03-29')
  t.equal(localDateOf('Pacific/Auckland', new Date('2026-03-28T20:00:00Z')), '2026-03-29', 'the local date, not the UTC one')
})

t.test('a due project moves to the next day, or past now when the fleet was down over several days', async (t) => {
  const due = new Date('2026-06-10T07:00:00Z')
  t.equal(followingDueAt('Europe/Berlin', due, new Date('2026-06-10T07:00:20Z')).toISOString(), '2026-06-11T07:00:00.000Z')
  t.equal(followingDueAt('Europe/Berlin', due, new Date('2026-06-13T10:00:00Z')).toISOString(), '2026-06-14T07:00:00.000Z', 'one late digest, then the next 09:00 after now')
})

t.test('time zones are IANA names luxon knows; anything else is refused', async (t) => {
  t.ok(isTimeZone('Europe/Berlin'))
  t.ok(isTimeZone('UTC'))
  t.notOk(isTimeZone('Europe/Atlantis'))
  t.notOk(isTimeZone(''))
  t.notOk(isTimeZone('x'.repeat(100)))
  t.equal(nextDueAt('Europe/Atlantis', new Date('2026-06-10T12:00:00Z')).toISOString(), '2026-06-11T09:00:00.000Z', 'an unknown stored zone counts as UTC')
})
