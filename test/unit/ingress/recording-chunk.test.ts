import t from 'tap'
import { chunkFields, chunkFromFields, chunkObjectKey, MalformedChunk, type RecordingChunk } from '../../../shared/domain/recording-chunk.js'

const PROJECT = '00000000-0000-4000-8000-00000000e2e0'
const RECORDING = '0B6F7C1E-2D3A-4B5C-9D8E-7F6A5B4C3D2E'

function chunk(overrides: Partial<RecordingChunk> = {}): RecordingChunk {
  return {
    projectId: PROJECT,
    recordingId: RECORDING,
    seq: 3,
    key: chunkObjectKey(PROJECT, RECORDING, 3, 'a'.repeat(64)),
    bytes: 1200,
    rawBytes: 9000,
    firstAt: 1764200000000,
    lastAt: 1764200025000,
    receivedAt: 1764200030000,
    sessionId: 'session',
    user: { id: 'u-1', email: 'ada@example.com' },
    release: '1.2.3',
    environment: 'production',
    pages: ['/a', '/b?x=1'],
    clicks: 4,
    errors: 1,
    ...overrides,
  }
}

/** The entry's fields as Redis hands them back. */
function fieldsOf(flat: string[]): Record<string, string> {
  const fields: Record<string, string> = {}
  for (let i = 0; i < flat.length; i += 2) fields[flat[i]!] = flat[i + 1]!
  return fields
}

t.test('an entry reads back as the chunk it was written from, its ids lowercased', async (t) => {
  const read = chunkFromFields(fieldsOf(chunkFields(chunk())))
  t.same(read, { ...chunk(), recordingId: RECORDING.toLowerCase() })
  t.same(chunkFromFields(fieldsOf(chunkFields(chunk({ user: undefined, release: undefined, environment: undefined })))).user, undefined, 'no user reads as none')
})

t.test('text PostgreSQL cannot hold is made storable; pages are kept once each, at most 50', async (t) => {
  const read = chunkFromFields(fieldsOf(chunkFields(chunk({ sessionId: 'a\u0000b', user: { id: '\ud800x' }, pages: [...Array.from({ length: 60 }, (_, i) => `/p${i}`), '/p1'] }))))
  t.equal(read.sessionId, 'a\ufffdb', 'NUL replaced')
  t.equal(read.user?.id, '\ufffdx', 'a lone surrogate replaced')
  t.equal(read.pages.length, 50)
  t.equal(new Set(read.pages).size, 50)
})

t.test('an entry not as the contract says is refused with a phrase naming the field, never its value', async (t) => {
  const cases: Array<[string, (fields: Record<string, string>) => void, RegExp]> = [
    ['a project that is not a UUID', (f) => (f.project = 'x'), /^project is not a UUID$/],
    ['a key in another recording’s folder', (f) => (f.key = chunkObjectKey(PROJECT, '11111111-2222-4333-8444-555555555555', 3, 'b'.repeat(64))), /^key is not an object key/],
    ['a key outside the recordings folder', (f) => (f.key = 'sourcemaps/x.map'), /^key is not an object key/],
    ['a key climbing out of its folder', (f) => (f.key = `recordings/${PROJECT}/${RECORDING}/../../other`), /^key is not an object key/],
    ['a negative seq', (f) => (f.seq = '-1'), /^seq is not a whole number/],
    ['a fractional click count', (f) => (f.clicks = '1.5'), /^clicks is not a whole number/],
    ['a missing time', (f) => delete f.first, /^first is not a time/],
    ['pages that are not an array of text', (f) => (f.pages = '[1]'), /^pages is not a JSON array of text$/],
    ['a user that is not JSON', (f) => (f.user = '{'), /^user is not JSON$/],
    ['no session field', (f) => delete f.session, /^session is missing$/],
  ]
  for (const [what, spoil, message] of cases) {
    const fields = fieldsOf(chunkFields(chunk()))
    spoil(fields)
    t.throws(() => chunkFromFields(fields), { name: 'MalformedChunk', message }, what)
  }
  t.ok(new MalformedChunk('x') instanceof Error)
})
