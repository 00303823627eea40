/**
 * The repository part of the codehost conformance suite (codehost.ts runs it): info, resolving a
 * release to a commit, listing the default branch's files, shallow clones at the default head and at an older commit, with an app's
 * installation token and with a personal token alone, refusals and outages, cancelling, and that
 * the token reaches no process's command line, no file of the clone and no stored credential.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import type { Test } from 'tap'
import { CodehostUnreachable, RepositoryDenied, type CodehostPlugin } from '../../shared/plugins/types.js'
import { assertNoSecrets } from './leaks.js'

/** A repository with contents on the fake host, as the harness arranged it. */
export interface GitRepositoryArrangement {
  /** owner/repo as the host spells it; readable by installationId's token and by tokenSettings()' token. */
  readonly repo: string
  readonly installationId: string
  readonly defaultBranch: string
  /** The web address info() must answer. */
  readonly webUrl: string
  /** The default branch's head, and the commit before it. */
  readonly head: string
  readonly older: string
  /** A tag that names older. */
  readonly tag: string
  /** The paths of the files in each commit, relative, with / between folders. */
  readonly files: { readonly head: readonly string[]; readonly older: readonly string[] }
}

/** What the repository part needs from codehostConformance. */
export interface RepositoryContext {
  readonly harness: {
    settings(options: { oauth: boolean }): Record<string, unknown>
    tokenSettings(): Record<string, unknown>
    unreachableSettings(options?: { token: boolean }): Promise<Record<string, unknown>>
    arrangeGitRepository(): Promise<GitRepositoryArrangement>
    arrangeHiddenRepository(): Promise<{ repo: string; installationId: string }>
    failing(on: boolean): void
    secrets(): string[]
  }
  create(settings: Record<string, unknown>): Promise<CodehostPlugin>
  /** Awaits promise and answers what it threw (undefined if nothing), keeping the message for the leak check. */
  caught(promise: Promise<unknown>): Promise<unknown>
}

/** Runs the repository subtests as subtests of t. */
export async function repositoryConformance(t: Test, { harness, create, caught }: RepositoryContext): Promise<void> {
  const withApp = (await create(harness.settings({ oauth: false }))).repositories
  const tokenOnly = await create(harness.tokenSettings())
  const withToken = tokenOnly.repositories
  if (withApp === undefined || withToken === undefined) return void t.fail('repositories must be offered with an app and with a token')
  const scratch = await mkdtemp(join(tmpdir(), 'svc-conformance-'))
  t.teardown(() => rm(scratch, { recursive: true, force: true }))
  let clones = 0
  const dest = (): string => join(scratch, `clone-${clones++}`)
  const arranged = await harness.arrangeGitRepository()
  const { repo, installationId, head, older } = arranged

  await t.test('info answers the default branch and web address, with an installation or a token', async (t) => {
    const expected = { fullName: repo, defaultBranch: arranged.defaultBranch, webUrl: arranged.webUrl }
    t.same(await withApp.info(repo, installationId), expected, "with the app's installation")
    t.same(await withToken.info(repo, ''), expected, 'with the token alone')
  })

  await t.test('resolveCommit answers the commit a sha, tag or branch names, and undefined otherwise', async (t) => {
    t.equal(await withApp.resolveCommit(repo, installationId, head), head, 'a full sha')
    t.equal(await withToken.resolveCommit(repo, '', head.slice(0, 7)), head, 'a short sha')
    t.equal(await withToken.resolveCommit(repo, '', older), older, 'an older sha')
    t.equal(await withToken.resolveCommit(repo, '', arranged.tag), older, 'a tag')
    t.equal(await withToken.resolveCommit(repo, '', arranged.defaultBranch), head, 'a branch')
    for (const ref of ['no-such-release-1.2.3', 'f'.repeat(40), '', '--upload-pack=touch /tmp/x', '../../etc/passwd']) {
      t.equal(await withToken.resolveCommit(repo, '', ref), undefined, `nothing for ${JSON.stringify(ref)}`)
    }
  })

  await t.test('with a token alone there is no install link or sign-in, and attach checks use the token', async (t) => {
    t.equal(tokenOnly.installUrl(), '', 'no app, no install link')
    t.equal(tokenOnly.oauth, undefined, 'no app, no sign-in')
    t.match(await tokenOnly.checkRepository(repo, ''), { status: 'visible', installationId: '' })
    const hidden = await harness.arrangeHiddenRepository()
    t.not((await tokenOnly.checkRepository(hidden.repo, '')).status, 'visible', 'a repository the token cannot read is not visible')
  })

  await t.test("listFiles, when offered, lists the default branch's files without a clone", async (t) => {
    if (withApp.listFiles === undefined || withToken.listFiles === undefined) return void t.pass('not offered: admission leaves the check to the clone')
    const expected = { branch: arranged.defaultBranch, paths: [...arranged.files.head].sort(), truncated: false }
    const listed = await withApp.listFiles(repo, installationId)
    t.same({ ...listed, paths: [...listed.paths].sort() }, expected, "with the app's installation")
    t.same([...(await withToken.listFiles(repo, '')).paths].sort(), expected.paths, 'with the token alone')
    const hidden = await harness.arrangeHiddenRepository()
    t.type(await caught(withToken.listFiles(hidden.repo, '')), RepositoryDenied, 'a repository the token cannot read is RepositoryDenied')
    harness.failing(true)
    try {
      t.type(await caught(withToken.listFiles(repo, '')), CodehostUnreachable, 'server errors are CodehostUnreachable')
    } finally {
      harness.failing(false)
    }
  })

  await t.test("clone checks out the default branch's head with the app's installation token", async (t) => {
    const dir = dest()
    t.same(await withApp.clone(repo, installationId, dir), { commit: head, dir })
    t.same(await filesIn(dir), [...arranged.files.head].sort())
  })

  await t.test('clone checks out an older commit with the token alone', async (t) => {
    const dir = dest()
    t.same(await withToken.clone(repo, '', dir, { commit: older }), { commit: older, dir })
    t.same(await filesIn(dir), [...arranged.files.older].sort())
  })

  await t.test('a repository the credential cannot read is RepositoryDenied, saying what to grant', async (t) => {
    const hidden = await harness.arrangeHiddenRepository()
    // Started one at a time: a rejection nobody awaits yet would be reported as unhandled.
    for (const [what, attempt] of [
      ['info, installation', () => withApp.info(hidden.repo, hidden.installationId)],
      ['clone, installation', () => withApp.clone(hidden.repo, hidden.installationId, dest())],
      ['info, token', () => withToken.info(hidden.repo, '')],
      ['clone, token', () => withToken.clone(hidden.repo, '', dest())],
    ] as const) {
      const error = await caught(attempt())
      t.type(error, RepositoryDenied, what)
      t.match((error as Error).message, /contents/i, `${what}: names the permission`)
    }
    const none = await caught(withApp.info(repo, ''))
    t.type(none, RepositoryDenied, 'no token and no installation')
    t.match((none as Error).message, /CODEHOST_TOKEN/, 'says to set CODEHOST_TOKEN or attach through the app')
  })

  await t.test('an unreachable or failing host is CodehostUnreachable', async (t) => {
    const closedApp = (await create(await harness.unreachableSettings())).repositories!
    const closedToken = (await create(await harness.unreachableSettings({ token: true }))).repositories!
    t.type(await caught(closedApp.info(repo, installationId)), CodehostUnreachable, 'info, installation')
    t.type(await caught(closedApp.clone(repo, installationId, dest())), CodehostUnreachable, 'clone, installation')
    t.type(await caught(closedToken.info(repo, '')), CodehostUnreachable, 'info, token')
    t.type(await caught(closedToken.clone(repo, '', dest())), CodehostUnreachable, 'clone, token')
    harness.failing(true)
    try {
      t.type(await caught(withToken.info(repo, '')), CodehostUnreachable, 'info, server errors')
      t.type(await caught(withToken.resolveCommit(repo, '', arranged.tag)), CodehostUnreachable, 'resolveCommit, server errors')
      t.type(await caught(withToken.clone(repo, '', dest())), CodehostUnreachable, 'clone, server errors')
    } finally {
      harness.failing(false)
    }
  })

  await t.test("a cancelled clone rejects with the signal's reason", async (t) => {
    const controller = new AbortController()
    const reason = new Error('cancelled by the test')
    const clone = withToken.clone(repo, '', dest(), { signal: controller.signal })
    setTimeout(() => controller.abort(reason), 5)
    t.equal(await caught(clone), reason)
  })

  await t.test('the token reaches no command line, no file of the clone and no credential store', async (t) => {
    const dirs = [dest(), dest()]
    const commandLines = await commandLinesDuring(Promise.all([withToken.clone(repo, '', dirs[0]!), withApp.clone(repo, installationId, dirs[1]!)]))
    if (commandLines === undefined) {
      t.pass('command lines of other processes', { skip: 'no /proc here to watch them' })
    } else {
      t.ok(commandLines.length > 0, `${commandLines.length} command lines seen while cloning`)
      assertNoSecrets(t, commandLines.join('\n'), harness.secrets(), 'the command lines of every process')
    }
    for (const dir of dirs) {
      const gitFiles = await filesIn(join(dir, '.git'))
      const stored = await Promise.all(gitFiles.map((file) => readFile(join(dir, '.git', file), 'latin1')))
      assertNoSecrets(t, stored.join('\n'), harness.secrets(), `the ${gitFiles.length} files of ${relative(scratch, dir)}/.git`)
      const config = await readFile(join(dir, '.git', 'config'), 'utf8')
      t.notMatch(config, /\[credential|helper|:\/\/[^/\s]*@/i, '.git/config holds no credential helper and no URL with credentials')
      t.notOk((await filesIn(dir, true)).some((file) => /credential/i.test(file)), 'no credentials file in the clone')
    }
  })
}

/** The files under dir (its .git too when withGit), relative with /, sorted. */
async function filesIn(dir: string, withGit = false): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true })
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath ?? entry.path, entry.name)).split('\\').join('/'))
    .filter((file) => withGit || (file !== '.git' && !file.startsWith('.git/')))
    .sort()
}

/** Every distinct command line (/proc/<pid>/cmdline) seen while work runs; undefined without /proc. */
export async function commandLinesDuring(work: Promise<unknown>): Promise<string[] | undefined> {
  try {
    readdirSync('/proc')
  } catch {
    await work
    return undefined
  }
  let done = false
  const finished = work.finally(() => (done = true))
  const seen = new Set<string>()
  while (!done) {
    // Synchronous reads make one sweep quick; yielding between sweeps lets the servers answer git.
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue
      try {
        const line = readFileSync(`/proc/${pid}/cmdline`, 'latin1').replaceAll('\0', ' ').trim()
        if (line !== '') seen.add(line)
      } catch {
        // Exited between the listing and the read.
      }
    }
    await new Promise((resolve) => setImmediate(resolve))
  }
  await finished
  return [...seen]
}
