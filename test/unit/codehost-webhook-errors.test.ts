import { readFileSync } from 'node:fs'
import t from 'tap'
import { WEBHOOK_ERRORS } from '../../services/web/codehost/errors.js'

t.test('docs/fixes.md lists exactly the code-host webhook catalogue, with the same statuses and messages', async (t) => {
  const doc = readFileSync(new URL('../../docs/fixes.md', import.meta.url), 'utf8')
  const section = doc.slice(doc.indexOf('## Following a pull request to its end'), doc.indexOf('## Stop reasons'))
  const rows = [...section.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \| (.+) \|$/gm)].map((m) => ({ code: m[1]!, status: Number(m[2]), message: m[3]! }))
  t.same(rows.map((r) => r.code).sort(), Object.keys(WEBHOOK_ERRORS).sort(), 'same codes')
  for (const row of rows) {
    const spec = WEBHOOK_ERRORS[row.code as keyof typeof WEBHOOK_ERRORS]
    t.equal(row.status, spec.status, `${row.code} status`)
    t.equal(row.message, spec.message, `${row.code} message`)
  }
})

t.test('every code-host webhook message tells the sender what to do next', async (t) => {
  for (const [code, spec] of Object.entries(WEBHOOK_ERRORS)) {
    t.ok(spec.message.length > 30, `${code} has a full message`)
    t.match(spec.message, /\b(send|set|check|attach|retry|do not retry|remove)\b/i, `${code} says what to do`)
  }
})
