import t from 'tap'
import { envelopeFields, envelopesFromFields, packedRecord, packRecords, type EventEnvelope } from '../../shared/event.js'

const envelope = (i: number, body: string): EventEnvelope => ({ id: `00000000-0000-4000-8000-00000000000${i}`, projectId: '11111111-1111-4111-8111-111111111111', keyId: 'abcdefghijkl', receivedAt: 1_700_000_000_000 + i, body })

t.test('a packed entry gives back every envelope exactly, whatever valid JSON text the bodies hold', async (t) => {
  const bodies = [
    '{"a":1}',
    '{\n  "pretty": "printed",\n\t"tabs": true\r\n}',
    JSON.stringify({ message: 'quotes " and \\ backslashes, \u001e escaped, emoji 🐛, ünïcödé' }),
    '{"sep":"\\u001e\\u001f"}',
  ]
  for (const body of bodies) t.doesNotThrow(() => JSON.parse(body), 'each body is valid JSON')
  const envelopes = bodies.map((body, i) => envelope(i, body))
  const fields = { n: String(envelopes.length), events: packRecords(envelopes.map(packedRecord)) }
  t.same(envelopesFromFields(fields), { envelopes, malformed: 0 })
})

t.test('a single-envelope entry, as written before packing, still reads', async (t) => {
  const one = envelope(1, '{"x":1}')
  const flat = envelopeFields(one)
  const fields: Record<string, string> = {}
  for (let i = 0; i < flat.length; i += 2) fields[flat[i]!] = flat[i + 1]!
  t.same(envelopesFromFields(fields), { envelopes: [one], malformed: 0 })
  t.same(envelopesFromFields({ id: 'x' }), { envelopes: [], malformed: 1 }, 'an entry missing fields is counted, not thrown')
})

t.test('a record without its five fields is counted as malformed and the rest are kept', async (t) => {
  const good = envelope(2, '{"ok":true}')
  const read = envelopesFromFields({ n: '2', events: packRecords(['garbage-without-separators', packedRecord(good)]) })
  t.same(read, { envelopes: [good], malformed: 1 })
})
