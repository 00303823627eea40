import { readFileSync } from 'node:fs'
import t from 'tap'
import { INGEST_ERRORS } from '../../../services/ingress/errors.js'
import { TOOL_SERVER_ERRORS } from '../../../services/web/mcp/errors.js'
import { PROJECT_API_ERRORS } from '../../../services/web/project-api/errors.js'
import { AGENT_ERRORS } from '../../../services/web/setup/errors.js'

/** Table rows of docs/errors.md, by the section (## heading) they sit under. */
function rowsBySection(): Map<string, Array<{ code: string; status: number; message: string }>> {
  const doc = readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8')
  const sections = new Map<string, Array<{ code: string; status: number; message: string }>>()
  for (const part of doc.split(/^## /m).slice(1)) {
    const title = part.slice(0, part.indexOf('\n'))
    sections.set(title, [...part.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \| (.+) \|$/gm)].map((m) => ({ code: m[1]!, status: Number(m[2]), message: m[3]! })))
  }
  return sections
}

const CATALOGUES = [
  { name: 'ingestion', sections: /^(Ingestion|Source-map upload)/, catalogue: INGEST_ERRORS as Record<string, { status: number; message: string }> },
  { name: 'setup-session', sections: /^Setup sessions/, catalogue: AGENT_ERRORS as Record<string, { status: number; message: string }> },
  { name: 'project API', sections: /^Project API/, catalogue: PROJECT_API_ERRORS as Record<string, { status: number; message: string }> },
  { name: 'tool server', sections: /^Tool server/, catalogue: TOOL_SERVER_ERRORS as Record<string, { status: number; message: string }> },
]

for (const { name, sections, catalogue } of CATALOGUES) {
  t.test(`docs/errors.md lists exactly the ${name} catalogue, with the same statuses and messages`, async (t) => {
    const rows = [...rowsBySection()].filter(([title]) => sections.test(title)).flatMap(([, r]) => r)
    t.same(rows.map((r) => r.code).sort(), Object.keys(catalogue).sort(), 'same codes')
    for (const row of rows) {
      t.equal(row.status, catalogue[row.code]!.status, `${row.code} status`)
      t.equal(row.message, catalogue[row.code]!.message, `${row.code} message`)
    }
  })

  t.test(`every ${name} message tells the client what to do next`, async (t) => {
    for (const [code, spec] of Object.entries(catalogue)) {
      t.ok(spec.message.length > 30, `${code} has a full message`)
      t.match(spec.message, /\b(send|use|copy|wait|fix|trim|check|upload|content-encoding|events go|retry|do not retry|keep polling|ask|skip|report|live under)\b/i, `${code} says what to do`)
    }
  })
}
