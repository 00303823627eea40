import { readFileSync } from 'node:fs'
import t from 'tap'
import { RESET_REASON } from '../../../bin/friction/reset.js'
import { STOPS } from '../../../services/investigator/stops.js'

t.test('docs/errors.md lists exactly the investigation stop codes, with the same remediation', async (t) => {
  const doc = readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8')
  const start = doc.indexOf('## Investigation stops')
  const end = doc.indexOf('\n## ', start + 1)
  const section = doc.slice(start, end < 0 ? undefined : end)
  const rows = [...section.matchAll(/^\| `([a-z_]+)` \| (.+) \|$/gm)].map((m) => ({ code: m[1]!, remediation: m[2]! }))
  t.same(rows.map((r) => r.code).sort(), Object.keys(STOPS).sort(), 'same codes')
  for (const row of rows) t.equal(row.remediation, STOPS[row.code as keyof typeof STOPS], `${row.code} remediation`)
})

t.test('the issue names at least the stop codes the product promises, each with an action', async (t) => {
  for (const code of ['missing_model_key', 'codehost_not_connected', 'repo_access_denied', 'no_app_frames', 'sourcemap_missing', 'model_unavailable', 'budget_exhausted', 'unverified_analysis', 'low_confidence']) {
    t.ok(code in STOPS, code)
  }
  for (const [code, remediation] of Object.entries(STOPS)) t.match(remediation, /\b(set|attach|grant|check|upload|try|raise|press|look|report)\b/i, `${code} says what to do`)
})

t.test('docs/investigations.md and docs/fixes.md explain every stop code', async (t) => {
  const doc = ['investigations', 'fixes'].map((name) => readFileSync(new URL(`../../../docs/${name}.md`, import.meta.url), 'utf8')).join('\n')
  for (const code of Object.keys(STOPS)) t.match(doc, `| \`${code}\` |`, code)
})

t.test("the stops the operator's tools write are the catalogue's codes with its remediation", async (t) => {
  t.equal(RESET_REASON.remediation, STOPS[RESET_REASON.code], 'svc reset-friction-tickets: known_problems_reset')
  const script = readFileSync(new URL('../../../scripts/retire-friction-buckets.sql', import.meta.url), 'utf8').replace(/^--.*$/gm, '')
  const codes = [...script.matchAll(/'(\w+_retired)'/g)].map((m) => m[1])
  t.same(codes, ['friction_group_retired', 'friction_group_retired'], 'the retire script stops investigations and fixes with one code')
  t.equal(script.split(`'${STOPS.friction_group_retired.replaceAll("'", "''")}'`).length - 1, 2, "for both, the catalogue's remediation")
})
