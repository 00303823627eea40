// codehost-github's fix delivery (pullRequests) through the loader, with Octokit and the git
// command line talking real HTTP to the GitHub stand-in, whose git is git's own http-backend
// (fetch and push): the pull-request conformance suite, plus what is particular to GitHub.
import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import t from 'tap'
import { pullRequestConformance, type ArrangedCheck, type WritableRepositoryArrangement } from '../../plugins/conformance/codehost-pull-requests.js'
import { capturingLogger } from '../../plugins/conformance/leaks.js'
import { importPluginModule, loadPlugin } from '../../shared/plugins/loader.js'
import type { CodehostPlugin } from '../../shared/plugins/types.js'
import { addCommit, makeRepository, readCommit, revParse } from '../helpers/loopback/git-repository.js'
import { closedOrigin, startGithubLoopback } from '../helpers/loopback/github-loopback.js'

const github = await startGithubLoopback()
const scratch = await mkdtemp(join(tmpdir(), 'svc-codehost-github-pulls-'))
t.teardown(async () => {
  await github.close()
  await rm(scratch, { recursive: true, force: true })
})

/** CODEHOST_TOKEN granted Contents and Pull requests write on the arranged repositories; and one granted read only. */
const writer = `github_pat_${randomBytes(24).toString('hex')}`
const reader = `github_pat_${randomBytes(24).toString('hex')}`
const writable: string[] = []
const bareDirs = new Map<string, string>()
const tokenSettings = (token = writer): Record<string, unknown> => ({ token, apiUrl: github.apiUrl, webUrl: github.webUrl })
const appSettings = (): Record<string, unknown> => ({ appId: github.appId, privateKey: github.privateKey, appSlug: github.appSlug, apiUrl: github.apiUrl, webUrl: github.webUrl })

/** Writes files (path → text) under a fresh folder in scratch. */
async function folder(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(scratch, 'src-'))
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true })
    await writeFile(join(dir, path), text)
  }
  return dir
}

const FIRST = { 'README.md': '# app\n', 'src/index.js': 'export const answer = 40\n' }
const OLDER = { ...FIRST, 'src/index.js': 'export const answer = 41\n' }
const HEAD = { ...OLDER, 'src/index.js': 'export const answer = 42\n', 'src/lib/util.js': 'export const twice = (n) => 2 * n\n' }

/** A fresh repository of three commits (older: the middle one), written by its installation and writer, read by reader. */
async function arrangeWritable(options: { link?: boolean } = {}): Promise<WritableRepositoryArrangement> {
  const owner = `w-${randomBytes(4).toString('hex')}`
  const repo = `${owner}/app`
  const { bareDir } = await makeRepository(await folder(FIRST), { parentDir: scratch })
  const older = await addCommit(bareDir, await folder(OLDER))
  const headDir = await folder(HEAD)
  if (options.link) await symlink('src/index.js', join(headDir, 'link.js'))
  const head = await addCommit(bareDir, headDir)
  github.serveGit(repo, bareDir)
  bareDirs.set(repo, bareDir)
  writable.push(repo)
  github.acceptToken(writer, writable)
  github.acceptToken(reader, writable, { write: false })
  return { repo, installationId: github.install(owner), defaultBranch: 'main', head, older, files: HEAD }
}

const bareDir = (repo: string): string => bareDirs.get(repo) ?? ''

/** Checks as GitHub reports them: a status, or a check run (pending: in progress). */
function setChecks(repo: string, commit: string, checks: readonly ArrangedCheck[]): void {
  const statuses = checks.filter((c) => c.kind === 'status').map((c) => ({ context: c.name, state: c.state, target_url: `${github.webUrl}/ci/${c.name}` }))
  const checkRuns = checks
    .filter((c) => c.kind === 'check_run')
    .map((c) => (c.state === 'pending' ? { name: c.name, status: 'in_progress' as const } : { name: c.name, status: 'completed' as const, conclusion: c.state, html_url: `${github.webUrl}/runs/${c.name}` }))
  github.setCi(repo, commit, { statuses, checkRuns })
}

const secrets = (): string[] => [github.privateKey, ...github.privateKey.split('\n').filter((line) => line.length > 20 && !line.startsWith('-----')), writer, reader, ...github.issuedTokens]

t.test('codehost-github passes the pull-request conformance suite', async (t) => {
  await pullRequestConformance(t, await importPluginModule('codehost', 'codehost-github'), {
    settings: appSettings,
    tokenSettings: () => tokenSettings(),
    readOnlyTokenSettings: () => tokenSettings(reader),
    unreachableSettings: async (options) => ({ ...(options?.token ? tokenSettings() : appSettings()), apiUrl: `${await closedOrigin()}/api/v3` }),
    arrangeWritableRepository: () => arrangeWritable(),
    branchHead: (repo, branch) => revParse(bareDir(repo), `refs/heads/${branch}`),
    readCommit: (repo, commit) => readCommit(bareDir(repo), commit),
    pulls: (repo) => github.pulls(repo),
    comments: (repo, number) => github.comments(repo, number),
    setCi: setChecks,
    failing: (on) => github.failWith(on ? 500 : undefined),
    secrets,
  })
})

let clones = 0
/** A plugin with a token alone (writer unless said), and a fresh clone of arranged with a change in it. */
async function changedClone(arranged: WritableRepositoryArrangement, settings: Record<string, unknown> = {}): Promise<{ codehost: CodehostPlugin; dir: string }> {
  const codehost = await loadPlugin('codehost', 'codehost-github', { ...tokenSettings(), ...settings }, { log: capturingLogger().log })
  const dir = join(scratch, `clone-${clones++}`)
  await codehost.repositories!.clone(arranged.repo, '', dir)
  await writeFile(join(dir, 'src/index.js'), 'export const answer = 43\n')
  return { codehost, dir }
}

t.test("pushed commits are svc-bot's, with GitHub's noreply address, and symbolic links stay links", async (t) => {
  const arranged = await arrangeWritable({ link: true })
  const { codehost, dir } = await changedClone(arranged)
  const { commit } = await codehost.pullRequests!.pushBranch(arranged.repo, '', { dir, branch: 'svc/fix-1', message: 'Fix the answer' })
  const pushed = await readCommit(bareDir(arranged.repo), commit)
  t.equal(pushed?.author, 'svc-bot <svc-bot@users.noreply.github.com>', 'author')
  t.equal(pushed?.committer, 'svc-bot <svc-bot@users.noreply.github.com>', 'committer')
  t.equal(pushed?.modes['link.js'], '120000', 'the link the clone wrote as a plain file is pushed as a link')
  t.equal(pushed?.files['link.js'], 'src/index.js', 'to the same target')
  t.equal(pushed?.files['src/index.js'], 'export const answer = 43\n')
  t.notOk(existsSync(join(bareDir(arranged.repo), 'shallow')), "the push from a shallow clone left the host's history whole")
})

t.test('git is sent the token as the Basic password on push too: CODEHOST_TOKEN, or a minted installation token', async (t) => {
  const arranged = await arrangeWritable()
  const pushes = (from: number) => github.requests.slice(from).filter((r) => r.path.endsWith('/git-receive-pack') || r.path.endsWith('/access_tokens'))
  const { codehost, dir } = await changedClone(arranged)
  let before = github.requests.length
  await codehost.pullRequests!.pushBranch(arranged.repo, '', { dir, branch: 'svc/fix-token', message: 'Fix' })
  t.match(pushes(before), [{ method: 'POST', auth: 'personal', granted: true }], 'the pack, with the token')
  const app = await loadPlugin('codehost', 'codehost-github', appSettings(), { log: capturingLogger().log })
  const other = await changedClone(arranged)
  before = github.requests.length
  await app.pullRequests!.pushBranch(arranged.repo, arranged.installationId, { dir: other.dir, branch: 'svc/fix-app', message: 'Fix' })
  t.match(pushes(before), [{ auth: 'jwt' }, { method: 'POST', auth: 'installation', granted: true }], 'a token minted as the app, then sent to git')
})

t.test('git refusals, a declined branch, outages and a silent server during the push', async (t) => {
  const arranged = await arrangeWritable()
  // 3 s: a loaded machine took over a second for a real push, which then read as a silent server.
  const { codehost, dir } = await changedClone(arranged, { cloneTimeoutMs: 3000 })
  const push = (branch = 'svc/fix-failing') => codehost.pullRequests!.pushBranch(arranged.repo, '', { dir, branch, message: 'Fix' })
  const cases: Array<[Parameters<typeof github.failGit>[0], string, RegExp]> = [
    [401, 'RepositoryDenied', /refused to let CODEHOST_TOKEN push to .*\(Contents: read and write\)/],
    [403, 'RepositoryDenied', /Contents: read and write/],
    [502, 'CodehostUnreachable', /could not be reached to push/],
    ['reset', 'CodehostUnreachable', /could not be reached to push/],
    ['hang', 'CodehostUnreachable', /did not finish within 3 s/],
  ]
  try {
    for (const [mode, name, message] of cases) {
      github.failGit(mode)
      const error = (await t.rejects(push())) as Error
      t.equal(error.name, name, `git answering ${mode}: ${name}`)
      t.match(error.message, message)
      t.notMatch(error.message, writer)
    }
  } finally {
    github.failGit(undefined)
  }
  const hook = join(bareDir(arranged.repo), 'hooks', 'pre-receive')
  await mkdir(dirname(hook), { recursive: true })
  await writeFile(hook, '#!/bin/sh\necho "protected branch" >&2\nexit 1\n')
  await chmod(hook, 0o755)
  const declined = (await t.rejects(push('svc/fix-declined'))) as Error
  t.match(declined, { name: 'RepositoryDenied', message: /refused the push of svc\/fix-declined .*remote rejected.*branch protection rule or ruleset/ })
  await rm(hook)
  t.match(await push('svc/fix-after'), { commit: /^[0-9a-f]{40}$/ }, 'the same clone pushes once the host takes it')
})

t.test("GitHub's check conclusions and status states: neutral and skipped pass, cancelled, timed_out, action_required and error fail, queued runs", async (t) => {
  const arranged = await arrangeWritable()
  const pulls = (await changedClone(arranged)).codehost.pullRequests!
  const ci = (statuses: Parameters<typeof github.setCi>[2]['statuses'], checkRuns: Parameters<typeof github.setCi>[2]['checkRuns']) => {
    github.setCi(arranged.repo, arranged.head, { statuses, checkRuns })
    return pulls.ci(arranged.repo, '', arranged.head)
  }
  const done = (conclusion: 'neutral' | 'skipped' | 'cancelled' | 'timed_out' | 'action_required' | 'success') => ({ name: conclusion, status: 'completed' as const, conclusion })
  t.match(await ci([], [done('success'), done('neutral'), done('skipped')]), { state: 'success', checks: [{ state: 'success' }, { state: 'success' }, { state: 'success' }] })
  for (const conclusion of ['cancelled', 'timed_out', 'action_required'] as const) t.equal((await ci([], [done('success'), done(conclusion)])).state, 'failure', conclusion)
  t.equal((await ci([{ context: 'deploy', state: 'error' }], [])).state, 'failure', 'a status error')
  t.equal((await ci([], [{ name: 'waiting', status: 'queued' }])).state, 'pending', 'queued')
  t.match(await ci([{ context: 'ci/a', state: 'success', target_url: 'https://ci.example/a' }], []), { checks: [{ name: 'ci/a', state: 'success', url: 'https://ci.example/a' }] }, 'a status links to its target')
  t.equal((await ci([], [])).state, 'none', "GitHub's combined state for no status is pending; here it is none")
  await t.rejects(pulls.ci(arranged.repo, '', 'main'), /full 40-character sha/, 'a branch name is not a commit')
})

t.test('ready for review is the GraphQL mutation; findOpen skips closed pull requests; GitHub explains a refused open', async (t) => {
  const arranged = await arrangeWritable()
  const { codehost, dir } = await changedClone(arranged)
  const pulls = codehost.pullRequests!
  await pulls.pushBranch(arranged.repo, '', { dir, branch: 'svc/fix-pr', message: 'Fix' })
  const request = { branch: 'svc/fix-pr', base: 'main', title: 'Fix', body: 'Body', draft: true }
  const opened = await pulls.open(arranged.repo, '', request)
  t.equal(opened.url, `${github.webUrl}/${arranged.repo}/pull/${opened.number}`, "the pull request's web address")
  const twice = (await t.rejects(pulls.open(arranged.repo, '', request))) as Error
  t.match(twice.message, /GitHub answered 422 \(A pull request already exists for .*:svc\/fix-pr\.\)/, "a second open is refused in GitHub's words")
  const before = github.requests.length
  await pulls.update(arranged.repo, '', opened.number, { title: 'Fix', body: 'Body', ready: true })
  t.same(github.requests.slice(before).map((r) => `${r.method} ${r.path}`), [`PATCH /api/v3/repos/${arranged.repo}/pulls/${opened.number}`, 'POST /api/graphql'])
  github.closePull(arranged.repo, opened.number)
  t.equal(await pulls.findOpen(arranged.repo, '', 'svc/fix-pr'), undefined, 'a closed pull request is not open')
  t.equal((await pulls.open(arranged.repo, '', request)).draft, true, 'a new one can be opened for the branch')
  github.closePull(arranged.repo, opened.number, { merged: true })
  t.equal((await pulls.update(arranged.repo, '', opened.number, { title: 'Fix', body: 'Body' })).state, 'merged', 'a merged pull request reads as merged')
  for (const branch of ['ünïcode', 'a'.repeat(201)]) await t.rejects(pulls.findOpen(arranged.repo, '', branch), /not a branch name svc pushes to/, 'refused')
  await t.rejects(pulls.comment(arranged.repo, '', 0, 'x'), /positive integer/)
})
