// The house rule that a service reaches another only through its faces (scripts/lint-service-faces.mjs),
// tried on paths and then through ESLint itself on source text, as `npm run lint` runs it.
import { fileURLToPath } from 'node:url'
import { ESLint } from 'eslint'
import t from 'tap'
import { isFace, violation } from '../../../scripts/lint-service-faces.mjs'

const root = fileURLToPath(new URL('../../../', import.meta.url))
const at = (path: string) => `${root}${path}`

t.test('index, read and commands are faces; anything else is insides', async (t) => {
  for (const face of ['index.ts', 'read.ts', 'read/issues.ts', 'read/deep/events.ts', 'commands.ts', 'commands/status.ts']) t.ok(isFace(face), face)
  for (const inside of ['store/entities.ts', 'reader.ts', 'fix/read.ts', 'index-helpers.ts', 'commands-old/x.ts', 'grouping/in-app.ts']) t.notOk(isFace(inside), inside)
})

t.test('a cross-service import into insides is named with what to do', async (t) => {
  const message = violation(root, at('services/web/issues/routes.ts'), '../../investigator/store/entities.js')
  t.match(message, /services\/web imports services\/investigator\/store\/entities\.js, which is investigator's insides/)
  t.match(message, /index\.ts, its read face \(read\.ts or read\/\) or its commands/)
})

t.test('faces, own insides, packages and files outside services pass', async (t) => {
  t.equal(violation(root, at('services/web/issues/routes.ts'), '../../grouper/read/issues.js'), undefined, 'read face')
  t.equal(violation(root, at('services/web/issues/routes.ts'), '../../grouper/index.js'), undefined, 'index')
  t.equal(violation(root, at('services/web/issues/routes.ts'), '../../grouper/commands.js'), undefined, 'commands')
  t.equal(violation(root, at('services/web/issues/routes.ts'), '../http/respond.js'), undefined, 'own insides')
  t.equal(violation(root, at('services/web/issues/routes.ts'), '../../../shared/db/index.js'), undefined, 'the kernel')
  t.equal(violation(root, at('services/web/issues/routes.ts'), 'pg'), undefined, 'a package')
  t.equal(violation(root, at('bin/front/index.ts'), '../../../services/investigator/store/entities.js'), undefined, 'bin composes')
  t.equal(violation(root, at('test/unit/x.test.ts'), '../../../services/grouper/grouping/in-app.js'), undefined, 'tests may look inside')
})

t.test('ESLint reports every form of import into another service\'s insides', async (t) => {
  const eslint = new ESLint({ cwd: root })
  const source = [
    "import { a } from '../../grouper/grouping/in-app.js'",
    "import type { B } from '../../matcher/store/entities.js'",
    "export { c } from '../../recorder/read-chunks.js'",
    "export * from '../../digester/schedule.js'",
    "export const d = await import('../../investigator/fix/read.js')",
    "import { e } from '../../grouper/read/issues.js'",
    "import { f } from '../http/respond.js'",
    "export type G = typeof a | B | typeof e | typeof f",
  ].join('\n')
  const [result] = await eslint.lintText(`${source}\n`, { filePath: at('services/web/issues/probe.ts') })
  const faces = result!.messages.filter((m) => m.ruleId === 'house/service-faces')
  t.same(faces.map((m) => m.line), [1, 2, 3, 4, 5], 'the five imports into insides, not the face or its own file')
})
