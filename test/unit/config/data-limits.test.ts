import t from 'tap'
import { parseDataLimits } from '../../../services/web/settings/data-limits.js'

t.test('blank fields are the defaults (null) and whole numbers in range are kept, spaces ignored', async (t) => {
  t.same(parseDataLimits('', '  '), { ok: true, limits: { retentionDays: null, eventsPerMinute: null } })
  t.same(parseDataLimits(' 1 ', '0'), { ok: true, limits: { retentionDays: 1, eventsPerMinute: 0 } })
  t.same(parseDataLimits('3650', '100000000'), { ok: true, limits: { retentionDays: 3650, eventsPerMinute: 100_000_000 } })
})

t.test('anything else is refused with each field’s stable code', async (t) => {
  const codes = (a: string, b: string): string[] => {
    const parsed = parseDataLimits(a, b)
    return parsed.ok ? [] : parsed.problems.map((p) => p.code)
  }
  t.same(codes('0', ''), ['retention_days_out_of_range'])
  t.same(codes('3651', ''), ['retention_days_out_of_range'])
  t.same(codes('-1', ''), ['retention_days_not_a_number'])
  t.same(codes('1e3', ''), ['retention_days_not_a_number'])
  t.same(codes('12345678901', ''), ['retention_days_not_a_number'], 'more than 10 digits is not read as a number')
  t.same(codes('', '100000001'), ['events_per_minute_out_of_range'])
  t.same(codes('x', '1.5'), ['retention_days_not_a_number', 'events_per_minute_not_a_number'], 'both fields are told at once')
})
