import { readFileSync } from 'node:fs'
import t from 'tap'
import { INGEST_ERRORS } from '../../services/ingress/errors.js'

t.test('docs/errors.md lists exactly the ingestion catalogue, with the same statuses and messages', async (t) => {
  const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8')
  const rows = [...doc.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \| (.+) \|$/gm)].map((m) => ({ code: m[1]!, status: Number(m[2]), message: m[3]! }))
  t.same(rows.map((r) => r.code).sort(), Object.keys(INGEST_ERRORS).sort(), 'same codes')
  for (const row of rows) {
    const spec = INGEST_ERRORS[row.code as keyof typeof INGEST_ERRORS]
    t.equal(row.status, spec.status, `${row.code} status`)
    t.equal(row.message, spec.message, `${row.code} message`)
  }
})

t.test('every message tells the sender what to do next', async (t) => {
  for (const [code, spec] of Object.entries(INGEST_ERRORS)) {
    t.ok(spec.message.length > 30, `${code} has a full message`)
    t.match(spec.message, /\b(send|use|copy|wait|fix|trim|check|upload|content-encoding|events go)\b/i, `${code} says what to do`)
  }
})
