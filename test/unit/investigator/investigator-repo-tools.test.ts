import t, { type Test } from 'tap'
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { indexRepository } from '../../../services/investigator/analysis/repo-paths.js'
import { createRepoTools, TOOL_LIMITS, type RepoTools } from '../../../services/investigator/analysis/repo-tools.js'

const SECRET = 'TOP-SECRET-OUTSIDE-THE-CLONE'

async function tempDir(t: Test, prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  return dir
}

async function put(dir: string, file: string, content: string | Buffer): Promise<void> {
  await mkdir(dirname(join(dir, file)), { recursive: true })
  await writeFile(join(dir, file), content)
}

/** A clone with code, Git's store, dependencies, a binary, many files and symlinks leading out. */
async function makeTools(t: Test): Promise<{ dir: string; tools: RepoTools }> {
  const outside = await tempDir(t, 'svc-outside-')
  await put(outside, 'secret.txt', `${SECRET}\n`)
  const dir = await tempDir(t, 'svc-clone-')
  await put(dir, 'src/cart.ts', Array.from({ length: 1000 }, (_, i) => `export const line${i + 1} = ${i + 1}`).join('\n') + '\n')
  await put(dir, 'src/total.ts', 'export function total(cart) {\n  return cart.items.reduce((sum, item) => sum + item.price, 0)\n}\n')
  await put(dir, 'src/wide.ts', Array.from({ length: 400 }, (_, i) => `// ${i} ${'x'.repeat(500)}`).join('\n'))
  await put(dir, 'src/minified.js', `${'a'.repeat(5000)}needle(${'b'.repeat(5000)}\n`)
  await put(dir, 'src/logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1, 2, 3]))
  await put(dir, 'src/Needle.ts', 'const Needle = "upper"\n')
  await put(dir, '.git/config', `[remote "origin"]\n  url = https://token:${SECRET}@example.com/x\n`)
  await put(dir, 'node_modules/lib/index.js', 'needle()\n')
  for (let i = 0; i < 250; i++) await put(dir, `gen/file-${String(i).padStart(3, '0')}.ts`, `needle(${i})\n`)
  await symlink('/etc/passwd', join(dir, 'passwd.ts'))
  await symlink(outside, join(dir, 'outside'))
  await symlink(join(outside, 'secret.txt'), join(dir, 'src/secret.ts'))
  await symlink('.git', join(dir, 'git-alias'))
  await symlink('/proc/self/environ', join(dir, 'environ'))
  const index = await indexRepository(dir)
  return { dir, tools: createRepoTools(dir, index) }
}

t.test('offers exactly the three repository tools and submit_answer', async (t) => {
  const { tools } = await makeTools(t)
  t.same(tools.specs.map((spec) => spec.name), ['list_files', 'read_file', 'search', 'submit_answer'])
  for (const spec of tools.specs) t.equal(spec.inputSchema.type, 'object', `${spec.name} takes an object`)
})

t.test('refuses every way out of the clone and into .git', async (t) => {
  const { tools } = await makeTools(t)
  const attempts: Array<[string, Record<string, unknown>]> = [
    ['read_file', { path: '../secret.txt' }],
    ['read_file', { path: 'src/../../secret.txt' }],
    ['read_file', { path: '/etc/passwd' }],
    ['read_file', { path: 'passwd.ts' }],
    ['read_file', { path: 'environ' }],
    ['read_file', { path: 'outside/secret.txt' }],
    ['read_file', { path: 'src/secret.ts' }],
    ['read_file', { path: '.git/config' }],
    ['read_file', { path: './.git/config' }],
    ['read_file', { path: 'git-alias/config' }],
    ['read_file', { path: 'src/cart.ts\0.png' }],
    ['list_files', { path: '..' }],
    ['list_files', { path: '/' }],
    ['list_files', { path: '.git' }],
    ['list_files', { path: 'outside' }],
    ['search', { text: 'TOP', path: '..' }],
    ['search', { text: 'TOP', path: '/etc' }],
    ['search', { text: 'TOP', path: 'outside' }],
    ['search', { text: 'url', path: '.git' }],
  ]
  for (const [name, input] of attempts) {
    const result = await tools.run(name, input)
    t.equal(result.isError, true, `${name} ${JSON.stringify(input)} is refused`)
    t.notMatch(result.content, SECRET)
    t.notMatch(result.content, /root:/)
  }
  t.equal(tools.readFiles.size, 0, 'nothing counts as read')
})

t.test('search over the whole clone never finds what is outside it or in .git', async (t) => {
  const { tools } = await makeTools(t)
  const result = await tools.run('search', { text: SECRET })
  t.equal(result.isError, false)
  t.match(result.content, /^no matches/)
  const listing = await tools.run('list_files', {})
  t.notMatch(listing.content, /\.git|node_modules|passwd|secret|environ/)
})

t.test('bad input and unknown tools come back as errors, not exceptions', async (t) => {
  const { tools } = await makeTools(t)
  for (const [name, input] of [['nope', {}], ['read_file', null], ['read_file', []], ['read_file', {}], ['read_file', { path: 7 }], ['read_file', { path: 'src/cart.ts', start_line: 0 }], ['read_file', { path: 'src/cart.ts', start_line: 1.5 }], ['read_file', { path: 'src/cart.ts', start_line: 2000 }], ['read_file', { path: 'src/missing.ts' }], ['read_file', { path: 'src' }], ['search', { text: '' }], ['search', { text: 'a\nb' }], ['submit_answer', {}]] as const) {
    const result = await tools.run(name, input)
    t.equal(result.isError, true, `${name} ${JSON.stringify(input)}`)
    t.ok(result.content.length > 0 && result.content.length < 200, 'a short message')
    t.notMatch(result.content, tmpdir(), 'no host paths')
  }
})

t.test('list_files lists at most 200 files and says how many more there are', async (t) => {
  const { tools } = await makeTools(t)
  const result = await tools.run('list_files', { path: 'gen' })
  const lines = result.content.split('\n')
  t.equal(lines.length, TOOL_LIMITS.listedFiles + 1)
  t.equal(lines[0], 'gen/file-000.ts')
  t.match(lines.at(-1), /50 more files/)
  const src = await tools.run('list_files', { path: 'src/' })
  t.same(src.content.split('\n'), ['src/Needle.ts', 'src/cart.ts', 'src/logo.png', 'src/minified.js', 'src/total.ts', 'src/wide.ts'])
})

t.test('read_file returns a numbered window of at most 400 lines and the total', async (t) => {
  const { tools } = await makeTools(t)
  const first = await tools.run('read_file', { path: 'src/cart.ts' })
  t.equal(first.isError, false)
  const lines = first.content.split('\n')
  t.equal(lines[0], 'src/cart.ts: lines 1-400 of 1000')
  t.equal(lines[1], '1| export const line1 = 1')
  t.equal(lines[400], '400| export const line400 = 400')
  t.match(lines.at(-1), /start_line 401/)
  const tail = await tools.run('read_file', { path: './src/cart.ts', start_line: 990, end_line: 5000 })
  t.match(tail.content, /^src\/cart\.ts: lines 990-1000 of 1000\n990\| /)
  t.equal(tools.readFiles.get('src/cart.ts')?.size, 411)
  t.ok(tools.readFiles.get('src/cart.ts')?.has(995))
  t.notOk(tools.readFiles.get('src/cart.ts')?.has(500))
})

t.test('read_file cuts the window at about 50 KB and long lines at 2000 characters', async (t) => {
  const { tools } = await makeTools(t)
  const wide = await tools.run('read_file', { path: 'src/wide.ts' })
  t.ok(Buffer.byteLength(wide.content) < TOOL_LIMITS.readBytes + 500)
  t.match(wide.content, /lines 1-9\d of 400/)
  const minified = await tools.run('read_file', { path: 'src/minified.js' })
  t.match(minified.content, /line cut: 8007 more characters/)
  t.ok(minified.content.length < 2200)
})

t.test('read_file refuses binary files and files over the size limit', async (t) => {
  const { dir, tools } = await makeTools(t)
  t.match(await tools.run('read_file', { path: 'src/logo.png' }), { isError: true, content: /binary/ })
  const small = createRepoTools(dir, await indexRepository(dir), { maxFileBytes: 100 })
  t.match(await small.run('read_file', { path: 'src/cart.ts' }), { isError: true, content: /too large/ })
})

t.test('search is literal, case-sensitive, capped at 50 results and skips dependencies', async (t) => {
  const { tools } = await makeTools(t)
  const many = await tools.run('search', { text: 'needle(' })
  const lines = many.content.split('\n')
  t.equal(lines.length, TOOL_LIMITS.searchResults + 1)
  t.match(lines.at(-1), /cut at 50/)
  t.notMatch(many.content, /node_modules/)
  const scoped = await tools.run('search', { text: 'needle(', path: 'src' })
  t.equal(scoped.content.split('\n').length, 1)
  t.match(scoped.content, /^src\/minified\.js:1: …a+needle\(b+…$/)
  t.ok(scoped.content.length <= 'src/minified.js:1: '.length + TOOL_LIMITS.searchLineChars)
  t.match(await tools.run('search', { text: 'Needle' }), { isError: false, content: 'src/Needle.ts:1: const Needle = "upper"' })
  t.match(await tools.run('search', { text: '.reduce((sum' }), { content: /^src\/total\.ts:2: return cart\.items\.reduce/ })
  t.match(await tools.run('search', { text: '(a+)+$' }), { isError: false, content: /^no matches/ }, 'a regex is only text')
})
