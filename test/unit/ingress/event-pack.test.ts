import t from 'tap'
import { envelopeFields, envelopesFromFields, packedEntryFields, packedRecord, PACKED_ENCODING, UnknownPackedEncoding, type EventEnvelope } from '../../../shared/domain/event.js'

const envelope = (i: number, body: string): EventEnvelope => ({ id: `00000000-0000-4000-8000-00000000000${i}`, projectId: '11111111-1111-4111-8111-111111111111', keyId: 'abcdefghijkl', receivedAt: 1_700_000_000_000 + i, body })

/** [name, value, …] as the record ioredis hands a consumer. */
function asFields(flat: string[]): Record<string, string> {
  const fields: Record<string, string> = {}
  for (let i = 0; i < flat.length; i += 2) fields[flat[i]!] = flat[i + 1]!
  return fields
}

t.test('a packed entry gives back every envelope exactly, whatever valid JSON text the bodies hold', async (t) => {
  const bodies = [
    '{"a":1}',
    '{\n  "pretty": "printed",\n\t"tabs": true\r\n}',
    JSON.stringify({ message: 'quotes " and \\ backslashes, \u001e escaped, emoji 🐛, ünïcödé, lone \ud800 surrogate' }),
    '{"sep":"\\u001e\\u001f"}',
  ]
  for (const body of bodies) t.doesNotThrow(() => JSON.parse(body), 'each body is valid JSON')
  const envelopes = bodies.map((body, i) => envelope(i, body))
  const fields = asFields(packedEntryFields(envelopes.map(packedRecord)))
  t.equal(fields.n, '4', 'n counts the events')
  t.equal(fields.encoding, PACKED_ENCODING)
  t.same(envelopesFromFields(fields), { envelopes, malformed: 0 })
})

t.test('a pack of look-alike events is stored in a fraction of their bytes, as printable text', async (t) => {
  const envelopes = Array.from({ length: 12 }, (_, i) => envelope(i, JSON.stringify({ error: { type: 'TypeError', message: `Cannot read properties of undefined (reading 'f${i}')`, stack: `TypeError\n    at render (https://shop.example.com/assets/app-4f3a.js:${i}:20)`.repeat(8) }, context: { url: `https://shop.example.com/cart?item=${i}` } })))
  const raw = envelopes.reduce((sum, e) => sum + Buffer.byteLength(packedRecord(e)), 0)
  const { events } = asFields(packedEntryFields(envelopes.map(packedRecord)))
  t.match(events, /^[A-Za-z0-9+/]+=*$/, 'base64: a string field like any other, safe in retries and dead letters')
  t.ok(Buffer.byteLength(events!) * 4 < raw, `${Buffer.byteLength(events!)} bytes for ${raw} bytes of records`)
})

t.test('a packed entry written before compression (no encoding field) still reads', async (t) => {
  const envelopes = [envelope(1, '{"x":1}'), envelope(2, '{"y":2}')]
  const fields = { n: '2', events: envelopes.map(packedRecord).join('\u001e') }
  t.same(envelopesFromFields(fields), { envelopes, malformed: 0 })
})

t.test('a pack in an encoding this version does not know throws instead of being skipped', async (t) => {
  t.throws(() => envelopesFromFields({ n: '1', encoding: 'zstd64', events: 'AAAA' }), UnknownPackedEncoding)
  t.throws(() => envelopesFromFields({ n: '1', encoding: PACKED_ENCODING, events: 'bm90IGJyb3RsaQ==' }), 'a pack that does not decompress throws too')
})

t.test('a single-envelope entry, as written before packing, still reads', async (t) => {
  const one = envelope(1, '{"x":1}')
  t.same(envelopesFromFields(asFields(envelopeFields(one))), { envelopes: [one], malformed: 0 })
  t.same(envelopesFromFields({ id: 'x' }), { envelopes: [], malformed: 1 }, 'an entry missing fields is counted, not thrown')
})

t.test('a record without its five fields is counted as malformed and the rest are kept', async (t) => {
  const good = envelope(2, '{"ok":true}')
  const read = envelopesFromFields(asFields(packedEntryFields(['garbage-without-separators', packedRecord(good)])))
  t.same(read, { envelopes: [good], malformed: 1 })
})
