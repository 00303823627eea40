import t, { type Test } from 'tap'
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { indexRepository, repoPathOf, type RepoIndex } from '../../../services/investigator/analysis/repo-paths.js'

async function makeRepo(t: Test, files: string[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-repo-paths-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  for (const file of files) {
    await mkdir(dirname(join(dir, file)), { recursive: true })
    await writeFile(join(dir, file), `// ${file}\n`)
  }
  return dir
}

function indexOf(files: string[]): RepoIndex {
  const byName = new Map<string, string[]>()
  for (const path of files) {
    const name = path.slice(path.lastIndexOf('/') + 1)
    byName.set(name, [...(byName.get(name) ?? []), path])
  }
  return { root: '/repo', files, fileSet: new Set(files), byName, truncated: false }
}

t.test('indexes every file but dependencies, build output and .git, without following symlinks', async (t) => {
  const dir = await makeRepo(t, ['package.json', 'src/cart.ts', 'src/deep/a/b.ts', '.git/config', 'node_modules/x/index.js', 'dist/app.js', 'build/app.js', 'coverage/lcov.info', '.next/page.js', 'packages/ui/node_modules/y/z.js'])
  const outside = await makeRepo(t, ['secret.txt'])
  await symlink(outside, join(dir, 'linked-folder'))
  await symlink(join(dir, 'src/cart.ts'), join(dir, 'linked-file.ts'))
  const index = await indexRepository(dir)
  t.same(index.files, ['package.json', 'src/cart.ts', 'src/deep/a/b.ts'])
  t.equal(index.truncated, false)
  t.ok(index.fileSet.has('src/cart.ts'))
})

t.test('stops at the file cap and says it was truncated', async (t) => {
  const dir = await makeRepo(t, Array.from({ length: 30 }, (_, i) => `f/${String(i).padStart(2, '0')}.ts`).concat(['top.ts']))
  const index = await indexRepository(dir, { maxFiles: 10 })
  t.equal(index.files.length, 10)
  t.equal(index.truncated, true)
  t.ok(index.fileSet.has('top.ts'), 'shallow files are listed before deep ones')
})

t.test('an exact path wins over longer paths ending in it', async (t) => {
  const index = indexOf(['src/cart.ts', 'apps/shop/src/cart.ts'])
  t.equal(repoPathOf(index, 'src/cart.ts'), 'src/cart.ts')
})

t.test("maps a source into a monorepo's app folder", async (t) => {
  const index = indexOf(['apps/shop/src/cart.ts', 'apps/shop/package.json', 'apps/admin/src/users.ts'])
  t.equal(repoPathOf(index, 'src/cart.ts'), 'apps/shop/src/cart.ts')
  t.equal(repoPathOf(index, 'src/users.ts'), 'apps/admin/src/users.ts')
})

t.test('prefers the unique shortest candidate', async (t) => {
  const index = indexOf(['apps/shop/src/cart.ts', 'archive/2019/apps/shop/src/cart.ts'])
  t.equal(repoPathOf(index, 'src/cart.ts'), 'apps/shop/src/cart.ts')
})

t.test('gives up when two candidates are equally close', async (t) => {
  const index = indexOf(['apps/shop/src/cart.ts', 'apps/shoe/src/cart.ts'])
  t.equal(repoPathOf(index, 'src/cart.ts'), undefined)
  t.equal(repoPathOf(index, 'shop/src/cart.ts'), 'apps/shop/src/cart.ts', 'a longer source settles it')
})

t.test('drops leading segments the repository does not have, down to folder and file name', async (t) => {
  const index = indexOf(['src/cart.ts', 'src/index.ts', 'lib/util.ts'])
  t.equal(repoPathOf(index, 'shop/src/cart.ts'), 'src/cart.ts')
  t.equal(repoPathOf(index, 'my-app/packages/shop/src/cart.ts'), 'src/cart.ts')
  t.equal(repoPathOf(index, 'other/index.ts'), undefined, 'a bare file name is not enough')
  t.equal(repoPathOf(index, 'src/missing.ts'), undefined)
})

t.test('never maps libraries or climbing paths', async (t) => {
  const index = indexOf(['node_modules/x/y.js', 'vendor/node_modules/x/y.js', 'x/y.js', 'src/a.ts'])
  t.equal(repoPathOf(index, 'node_modules/x/y.js'), undefined)
  t.equal(repoPathOf(index, '../src/a.ts'), undefined)
  t.equal(repoPathOf(index, ''), undefined)
})
