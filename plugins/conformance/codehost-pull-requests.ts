/**
 * The conformance suite for a codehost plugin's pullRequests (fix delivery), run by any plugin that
 * offers it against a fake code host its test provides: pushing the changes of a clone as a branch
 * (again: replaced, not stacked; from an older shallow clone too), refusing odd branch names and
 * the default branch, draft pull requests found, updated and marked ready, comments, the CI
 * verdict, refusals of a read-only credential, outages, and that the token reaches no command
 * line, no file of the clone, no log line and no error.
 */
import { mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Test } from 'tap'
import { checkPluginModule, instantiatePlugin } from '../../shared/plugins/loader.js'
import { CodehostUnreachable, RepositoryDenied, type CodehostPlugin, type PluginModule } from '../../shared/plugins/types.js'
import { commandLinesDuring } from './codehost-repositories.js'
import { assertNoSecrets, capturingLogger } from './leaks.js'

/** A fresh repository on the fake host that fix delivery may write to. */
export interface WritableRepositoryArrangement {
  /** owner/repo; written by installationId's token and by tokenSettings()' token, read (only) by readOnlyTokenSettings()' token. */
  readonly repo: string
  readonly installationId: string
  readonly defaultBranch: string
  /** The default branch's head, and an older commit with a parent of its own (a shallow clone there has a boundary the host does not advertise). */
  readonly head: string
  readonly older: string
  /** The files at head: path (with /) → text. At least two. */
  readonly files: Readonly<Record<string, string>>
}

/** One check of a commit as the harness arranges it: a commit status or a check run, in a state. */
export interface ArrangedCheck {
  readonly name: string
  readonly kind: 'status' | 'check_run'
  readonly state: 'pending' | 'success' | 'failure'
}

/** A fake code host on 127.0.0.1 with the controls this suite needs. */
export interface PullRequestHarness {
  /** Settings with the app (its installation tokens write arrangeWritableRepository's repositories). */
  settings(): Record<string, unknown>
  /** Settings with a token alone that reads and writes arrangeWritableRepository's repositories. */
  tokenSettings(): Record<string, unknown>
  /** Settings with a token alone that reads those repositories but may not write them. */
  readOnlyTokenSettings(): Record<string, unknown>
  /** settings() (or tokenSettings() when token) with the host's address replaced by one where nothing listens. */
  unreachableSettings(options?: { token: boolean }): Promise<Record<string, unknown>>
  arrangeWritableRepository(): Promise<WritableRepositoryArrangement>
  /** The commit branch points at on the host; undefined when there is no such branch. */
  branchHead(repo: string, branch: string): Promise<string | undefined>
  /** A commit on the host: its parents, message and files (path → text); undefined when the host does not have it. */
  readCommit(repo: string, commit: string): Promise<{ parents: readonly string[]; message: string; files: Readonly<Record<string, string>> } | undefined>
  /** The pull requests of repo as the host holds them, oldest first; head and base are branch names. */
  pulls(repo: string): ReadonlyArray<{ number: number; head: string; base: string; title: string; body: string; draft: boolean; state: string }>
  /** The bodies of the comments on pull request number, oldest first. */
  comments(repo: string, number: number): readonly string[]
  /** Replaces the CI of commit with checks (none: no status and no check run at all). */
  setCi(repo: string, commit: string, checks: readonly ArrangedCheck[]): void
  /** Makes the host (API and git) answer every request with a server error until called with false. */
  failing(on: boolean): void
  /** Values that must never appear in a command line, a log line or an error: keys, every token. */
  secrets(): string[]
}

/** Runs the pull-request conformance suite against module as subtests of t. */
export async function pullRequestConformance(t: Test, module: unknown, harness: PullRequestHarness): Promise<void> {
  const plugin = checkPluginModule('codehost', (module as PluginModule).manifest?.name ?? 'unknown', module, false)
  const { log, lines } = capturingLogger()
  const errors: string[] = []
  const create = async (settings: Record<string, unknown>): Promise<CodehostPlugin> => instantiatePlugin(plugin, 'codehost', settings, { log })
  const caught = async (promise: Promise<unknown>): Promise<unknown> => {
    try {
      await promise
      return undefined
    } catch (error) {
      errors.push(String((error as Error).message))
      return error
    }
  }
  const app = await create(harness.settings())
  const token = await create(harness.tokenSettings())
  const withApp = app.pullRequests
  const withToken = token.pullRequests
  if (withApp === undefined || withToken === undefined || app.repositories === undefined || token.repositories === undefined) {
    return void t.fail('pullRequests (and repositories) must be offered with an app and with a token')
  }
  const scratch = await mkdtemp(join(tmpdir(), 'svc-conformance-pulls-'))
  t.teardown(() => rm(scratch, { recursive: true, force: true }))
  let clones = 0
  /** A fresh clone of arranged (at commit, default: head) with plugin's repositories, and its dir. */
  const clone = async (via: CodehostPlugin, arranged: WritableRepositoryArrangement, commit?: string): Promise<string> => {
    const dir = join(scratch, `clone-${clones++}`)
    await via.repositories!.clone(arranged.repo, via === app ? arranged.installationId : '', dir, commit === undefined ? {} : { commit })
    return dir
  }
  const arranged = await harness.arrangeWritableRepository()
  const { repo, installationId, defaultBranch } = arranged
  const [changed, removed] = Object.keys(arranged.files).sort() as [string, string]
  const branch = 'svc/fix-conformance'

  await t.test('pushBranch commits every change of the clone on its commit, and the branch holds it', async (t) => {
    const dir = await clone(app, arranged)
    await writeFile(join(dir, changed), 'changed by the fix\n')
    await writeFile(join(dir, 'added-by-fix.txt'), 'new file\n')
    await unlink(join(dir, removed))
    const { commit } = await withApp.pushBranch(repo, installationId, { dir, branch, message: 'Fix the answer\n\nWith evidence.', signal: AbortSignal.timeout(60_000) })
    t.match(commit, /^[0-9a-f]{40}$/, 'answers the pushed commit')
    t.equal(await harness.branchHead(repo, branch), commit, 'the branch points at it on the host')
    const pushed = await harness.readCommit(repo, commit)
    t.same(pushed?.parents, [arranged.head], 'one commit on top of the checked-out one')
    t.match(pushed?.message, /^Fix the answer/, 'with the message')
    const expected: Record<string, string> = { ...arranged.files, [changed]: 'changed by the fix\n', 'added-by-fix.txt': 'new file\n' }
    delete expected[removed]
    t.same(pushed?.files, expected, 'changed, added and removed files, nothing else')
    t.equal(await harness.branchHead(repo, defaultBranch), arranged.head, 'the default branch is untouched')
  })

  await t.test('a second push to the branch replaces the first (forced), also from a shallow clone of an older commit', async (t) => {
    const dir = await clone(token, arranged, arranged.older)
    await writeFile(join(dir, 'second.txt'), 'second try\n')
    const { commit } = await withToken.pushBranch(repo, '', { dir, branch, message: 'Fix it differently' })
    t.equal(await harness.branchHead(repo, branch), commit, 'the branch points at the new commit')
    t.same((await harness.readCommit(repo, commit))?.parents, [arranged.older], 'on the older commit, not stacked on the first push')
  })

  await t.test('odd branch names, the default branch and a clean work tree are refused before anything is pushed', async (t) => {
    const dir = await clone(token, arranged)
    await writeFile(join(dir, changed), 'refused\n')
    const odd = ['', '-delete', 'a..b', 'a b', 'a~1', 'a^', 'a:b', 'a?', 'a*', 'a[b', 'a\\b', '/a', 'a/', 'a//b', 'a.', 'x.lock', 'a/.hidden', '@', 'a@{1}', 'HEAD', 'tab\tname', 'new\nline', 'nul\u0000']
    for (const name of [...odd, defaultBranch]) {
      const error = await caught(withToken.pushBranch(repo, '', { dir, branch: name, message: 'Fix' }))
      t.ok(error instanceof Error && !(error instanceof RepositoryDenied) && !(error instanceof CodehostUnreachable), `${JSON.stringify(name)} is refused with an Error`)
    }
    t.equal(await harness.branchHead(repo, defaultBranch), arranged.head, 'the default branch is untouched')
    const clean = await clone(token, arranged)
    t.type(await caught(withToken.pushBranch(repo, '', { dir: clean, branch: 'svc/clean', message: 'Fix' })), Error, 'no change, nothing to push')
    t.equal(await harness.branchHead(repo, 'svc/clean'), undefined, 'no branch made')
  })

  await t.test('open a draft, find it, update it, mark it ready, turn it back into a draft, comment on it', async (t) => {
    t.equal(await withToken.findOpen(repo, '', 'svc/no-such-branch'), undefined, 'no pull request for a branch without one')
    const head = await harness.branchHead(repo, branch)
    const opened = await withApp.open(repo, installationId, { branch, base: defaultBranch, title: 'Fix: the answer', body: 'First body', draft: true })
    t.match(opened, { number: Number, url: /^https?:\/\//, draft: true, state: 'open', headSha: head })
    t.match(harness.pulls(repo), [{ number: opened.number, head: branch, base: defaultBranch, title: 'Fix: the answer', body: 'First body', draft: true, state: 'open' }])
    t.same(await withToken.findOpen(repo, '', branch), opened, 'findOpen finds it, with the token too')
    const edited = await withToken.update(repo, '', opened.number, { title: 'Fix: the answer (v2)', body: 'Second body' })
    t.match(edited, { number: opened.number, draft: true, state: 'open' }, 'still a draft without ready')
    const ready = await withApp.update(repo, installationId, opened.number, { title: 'Fix: the answer (v3)', body: 'Third body', ready: true })
    t.match(ready, { number: opened.number, draft: false, state: 'open' }, 'ready for review')
    const again = await withToken.update(repo, '', opened.number, { title: 'Fix: the answer (v3)', body: 'Fourth body' })
    t.equal(again.draft, false, 'an update alone never turns it back into a draft')
    const back = await withToken.convertToDraft(repo, '', opened.number)
    t.match(back, { number: opened.number, draft: true, state: 'open' }, 'convertToDraft turns it back into a draft')
    t.match(harness.pulls(repo), [{ number: opened.number, draft: true }], 'the host holds it as a draft')
    t.equal((await withApp.convertToDraft(repo, installationId, opened.number)).draft, true, 'a draft stays a draft')
    t.equal((await withApp.update(repo, installationId, opened.number, { title: 'Fix: the answer (v3)', body: 'Fourth body', ready: true })).draft, false, 'and is marked ready again')
    t.match(harness.pulls(repo), [{ number: opened.number, title: 'Fix: the answer (v3)', body: 'Fourth body', draft: false }], 'the host holds the last title and body')
    await withToken.comment(repo, '', opened.number, 'The evidence: **it works**.')
    await withApp.comment(repo, installationId, opened.number, 'Second comment')
    t.same(harness.comments(repo, opened.number), ['The evidence: **it works**.', 'Second comment'])
    const dir = await clone(token, arranged)
    await writeFile(join(dir, 'third.txt'), 'third\n')
    const { commit } = await withToken.pushBranch(repo, '', { dir, branch, message: 'Fix again' })
    t.equal((await withToken.findOpen(repo, '', branch))?.headSha, commit, 'a later push moves the pull request head')
  })

  await t.test('ci combines commit statuses and check runs: none, pending, failure, success', async (t) => {
    const ci = (commit: string) => withToken.ci(repo, '', commit)
    const dir = await clone(token, arranged)
    await writeFile(join(dir, 'ci.txt'), 'ci\n')
    const { commit } = await withToken.pushBranch(repo, '', { dir, branch: 'svc/fix-ci', message: 'Fix for CI' })
    t.same(await ci(commit), { state: 'none', checks: [] }, 'nothing reported is none, never green')
    const set = (...checks: ArrangedCheck[]): void => harness.setCi(repo, commit, checks)
    const check = (name: string, kind: ArrangedCheck['kind'], state: ArrangedCheck['state']): ArrangedCheck => ({ name, kind, state })
    set(check('build', 'status', 'success'), check('test', 'check_run', 'pending'))
    t.match(await ci(commit), { state: 'pending', checks: [{ name: 'build', state: 'success' }, { name: 'test', state: 'pending' }] }, 'a check still running')
    set(check('build', 'status', 'pending'))
    t.equal((await ci(commit)).state, 'pending', 'a status still pending')
    set(check('build', 'status', 'failure'), check('test', 'check_run', 'pending'))
    t.equal((await ci(commit)).state, 'pending', 'pending while any runs, even after a failure')
    set(check('build', 'status', 'success'), check('test', 'check_run', 'failure'))
    t.match(await ci(commit), { state: 'failure', checks: [{ name: 'build', state: 'success', url: String }, { name: 'test', state: 'failure', url: String }] }, 'a check run failed')
    set(check('build', 'status', 'failure'))
    t.equal((await ci(commit)).state, 'failure', 'a status failed')
    set(check('build', 'status', 'success'), check('test', 'check_run', 'success'))
    t.equal((await withApp.ci(repo, installationId, commit)).state, 'success', 'all green, with the installation too')
    set(check('test', 'check_run', 'success'))
    t.equal((await ci(commit)).state, 'success', 'check runs alone')
  })

  await t.test('the token reaches no command line and no file of the clone while pushing', async (t) => {
    const dirs = [await clone(token, arranged), await clone(app, arranged)]
    for (const dir of dirs) await writeFile(join(dir, changed), `watched ${dir}\n`)
    const commandLines = await commandLinesDuring(
      Promise.all([
        withToken.pushBranch(repo, '', { dir: dirs[0]!, branch: 'svc/fix-watched-1', message: 'Watched' }),
        withApp.pushBranch(repo, installationId, { dir: dirs[1]!, branch: 'svc/fix-watched-2', message: 'Watched' }),
      ]),
    )
    if (commandLines === undefined) {
      t.pass('command lines of other processes', { skip: 'no /proc here to watch them' })
    } else {
      t.ok(commandLines.some((line) => / push /.test(line)), `git push was seen among ${commandLines.length} command lines`)
      assertNoSecrets(t, commandLines.join('\n'), harness.secrets(), 'the command lines of every process')
    }
    for (const dir of dirs) {
      const config = await readFile(join(dir, '.git', 'config'), 'utf8')
      t.notMatch(config, /\[credential|helper|\[remote|:\/\/[^/\s]*@/i, '.git/config holds no credential helper, no remote and no URL with credentials')
      assertNoSecrets(t, config, harness.secrets(), '.git/config')
    }
  })

  await t.test('a credential that may only read is refused with RepositoryDenied, saying what to grant', async (t) => {
    const readOnly = (await create(harness.readOnlyTokenSettings())).pullRequests!
    const dir = await clone(token, arranged)
    await writeFile(join(dir, changed), 'not allowed\n')
    const push = await caught(readOnly.pushBranch(repo, '', { dir, branch: 'svc/fix-read-only', message: 'Fix' }))
    t.type(push, RepositoryDenied, 'push')
    t.match((push as Error).message, /Contents: read and write/, 'push: names the permission')
    t.equal(await harness.branchHead(repo, 'svc/fix-read-only'), undefined, 'nothing was pushed')
    const open = await caught(readOnly.open(repo, '', { branch, base: defaultBranch, title: 'No', body: '', draft: true }))
    t.type(open, RepositoryDenied, 'open')
    t.match((open as Error).message, /Pull requests: read and write/, 'open: names the permission')
    const number = harness.pulls(repo)[0]!.number
    t.type(await caught(readOnly.comment(repo, '', number, 'No')), RepositoryDenied, 'comment')
    t.type(await caught(readOnly.update(repo, '', number, { title: 'No', body: '' })), RepositoryDenied, 'update')
    t.equal(harness.pulls(repo)[0]!.draft, false, 'the pull request is ready for review (as the earlier test left it)')
    t.type(await caught(readOnly.convertToDraft(repo, '', number)), RepositoryDenied, 'convertToDraft')
    t.equal(harness.pulls(repo)[0]!.draft, false, 'and it stays ready')
  })

  await t.test('an unreachable or failing host is CodehostUnreachable', async (t) => {
    const dir = await clone(token, arranged)
    await writeFile(join(dir, changed), 'during an outage\n')
    const head = await harness.branchHead(repo, branch)
    for (const [settings, id] of [[await harness.unreachableSettings(), installationId], [await harness.unreachableSettings({ token: true }), '']] as const) {
      const closed = (await create(settings)).pullRequests!
      t.type(await caught(closed.pushBranch(repo, id, { dir, branch, message: 'Fix' })), CodehostUnreachable, 'pushBranch, nothing listening')
      t.type(await caught(closed.findOpen(repo, id, branch)), CodehostUnreachable, 'findOpen, nothing listening')
      t.type(await caught(closed.ci(repo, id, arranged.head)), CodehostUnreachable, 'ci, nothing listening')
    }
    harness.failing(true)
    try {
      t.type(await caught(withToken.pushBranch(repo, '', { dir, branch, message: 'Fix' })), CodehostUnreachable, 'pushBranch, server errors')
      t.type(await caught(withToken.open(repo, '', { branch, base: defaultBranch, title: 'T', body: '', draft: true })), CodehostUnreachable, 'open, server errors')
      t.type(await caught(withToken.comment(repo, '', 1, 'c')), CodehostUnreachable, 'comment, server errors')
      t.type(await caught(withToken.ci(repo, '', arranged.head)), CodehostUnreachable, 'ci, server errors')
    } finally {
      harness.failing(false)
    }
    t.equal(await harness.branchHead(repo, branch), head, 'the branch is as it was')
  })

  await t.test("a cancelled push rejects with the signal's reason", async (t) => {
    const dir = await clone(token, arranged)
    await writeFile(join(dir, changed), 'cancelled\n')
    const controller = new AbortController()
    const reason = new Error('cancelled by the test')
    const push = withToken.pushBranch(repo, '', { dir, branch: 'svc/fix-cancelled', message: 'Fix', signal: controller.signal })
    setTimeout(() => controller.abort(reason), 5)
    t.equal(await caught(push), reason)
  })

  await t.test('no key, secret or token reaches the log or an error', async (t) => {
    t.ok(errors.length >= 20, `errors were collected from the subtests above (${errors.length})`)
    assertNoSecrets(t, [...errors, ...lines].join('\n'), harness.secrets(), `${errors.length} errors and ${lines.length} log lines`)
  })
}
