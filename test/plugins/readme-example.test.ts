// plugins/README.md opens with a plugin written from scratch; this runs it as a reader would and
// checks that it prints what the README says it prints.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { childEnv } from '../helpers/env.js'

t.test("plugins/README.md's opening example loads its plugin and prints the refusal it promises", async (t) => {
  const readme = readFileSync(new URL('../../plugins/README.md', import.meta.url), 'utf8')
  const example = /^```ts\n([\s\S]*?)^```/m.exec(readme)?.[1]
  t.ok(example, 'the README opens with a ts example')
  const promised = /^\/\/ (\{ ok: false.*\})$/m.exec(example!)?.[1]
  t.ok(promised, 'it says what it prints')
  // The example's imports are relative to the repository root, where a reader runs it.
  const root = new URL('../../', import.meta.url).href
  const dir = mkdtempSync(join(tmpdir(), 'svc-plugin-readme-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'example.mts')
  writeFileSync(file, example!.replaceAll("from './", `from '${root}`))
  const cwd = new URL('../../', import.meta.url).pathname
  const output = execFileSync(process.execPath, ['--import', 'tsx', file], { cwd, env: childEnv(), encoding: 'utf8', timeout: 60_000 })
  t.equal(output.trim().replace(/\s+/g, ' '), promised!.replace(/\s+/g, ' '))
})
