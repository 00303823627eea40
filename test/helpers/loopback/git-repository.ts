/**
 * Bare git repositories built from folders, for test git servers. Commits are deterministic
 * (fixed author, committer and dates), so the same folders always give the same commit ids.
 */
import { execFile } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

const exec = promisify(execFile)

/** Where a commit goes: the branch (main unless said) and an annotated tag to name it, if any. */
export interface CommitOptions {
  readonly branch?: string
  readonly tag?: string
}

/** makeRepository's options: CommitOptions, and the folder to create the repository in (default: a fresh temp folder). */
export interface RepositoryOptions extends CommitOptions {
  readonly parentDir?: string
}

const IDENTITY = {
  GIT_AUTHOR_NAME: 'Svc Test',
  GIT_AUTHOR_EMAIL: 'test@svc.example',
  GIT_AUTHOR_DATE: '2024-01-01T00:00:00Z',
  GIT_COMMITTER_NAME: 'Svc Test',
  GIT_COMMITTER_EMAIL: 'test@svc.example',
  GIT_COMMITTER_DATE: '2024-01-01T00:00:00Z',
}

/** Runs git on the bare repository gitDir with the fixed identity and no user or system settings. */
async function git(gitDir: string, args: string[], extra: NodeJS.ProcessEnv = {}): Promise<string> {
  const env = { PATH: process.env.PATH, HOME: gitDir, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_DIR: gitDir, ...IDENTITY, ...extra }
  // Inside the work tree when there is one: pathspecs are relative to it.
  const { stdout } = await exec('git', args, { env, cwd: extra.GIT_WORK_TREE ?? gitDir })
  return stdout.trim()
}

/** A new bare repository whose branch holds one commit of fromDir's files; HEAD names that branch. */
export async function makeRepository(fromDir: string, options: RepositoryOptions = {}): Promise<{ bareDir: string; commit: string }> {
  const bareDir = join(await mkdtemp(join(options.parentDir ?? tmpdir(), 'svc-git-repo-')), 'repo.git')
  await exec('git', ['init', '--quiet', '--bare', '--template=', bareDir], { env: { PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } })
  const branch = options.branch ?? 'main'
  await git(bareDir, ['symbolic-ref', 'HEAD', `refs/heads/${branch}`])
  const commit = await addCommit(bareDir, fromDir, { tag: options.tag, branch })
  return { bareDir, commit }
}

/** Commits fromDir's files (the whole tree, replacing the last commit's) on top of branch in bareDir; answers the commit. */
export async function addCommit(bareDir: string, fromDir: string, options: CommitOptions = {}): Promise<string> {
  const ref = `refs/heads/${options.branch ?? 'main'}`
  // A throwaway index: the bare repository has none, and the folder is only read.
  const scratch = await mkdtemp(join(tmpdir(), 'svc-git-index-'))
  try {
    const env = { GIT_WORK_TREE: fromDir, GIT_INDEX_FILE: join(scratch, 'index') }
    await git(bareDir, ['add', '--all', '.'], env)
    const tree = await git(bareDir, ['write-tree'], env)
    const parent = await git(bareDir, ['rev-parse', '--verify', '--quiet', ref]).catch(() => '')
    const commit = await git(bareDir, ['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-m', parent ? 'next' : 'first'])
    await git(bareDir, ['update-ref', ref, commit])
    if (options.tag !== undefined) await git(bareDir, ['tag', '--annotate', '--message', options.tag, options.tag, commit])
    return commit
  } finally {
    await rm(scratch, { recursive: true, force: true })
  }
}

/** The commit ref names in bareDir (peeling tags), or undefined when it names none. */
export async function revParse(bareDir: string, ref: string): Promise<string | undefined> {
  try {
    return await git(bareDir, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`])
  } catch {
    return undefined
  }
}

/** What a commit in bareDir holds, for tests to compare: parents, author, message, and every file's mode and text. */
export interface CommitContents {
  readonly parents: readonly string[]
  /** "Name <email>", author then committer. */
  readonly author: string
  readonly committer: string
  readonly message: string
  /** path → text (a symbolic link's: its target). */
  readonly files: Readonly<Record<string, string>>
  /** path → git's mode (100644, 100755, 120000). */
  readonly modes: Readonly<Record<string, string>>
}

/** The contents of commit in bareDir, or undefined when bareDir has no such commit. */
export async function readCommit(bareDir: string, commit: string): Promise<CommitContents | undefined> {
  const sha = await revParse(bareDir, commit)
  if (sha === undefined) return undefined
  const [parents = '', author = '', committer = '', ...message] = (await git(bareDir, ['show', '--no-patch', '--format=%P%n%an <%ae>%n%cn <%ce>%n%B', sha])).split('\n')
  const files: Record<string, string> = {}
  const modes: Record<string, string> = {}
  for (const line of (await git(bareDir, ['ls-tree', '-r', '--full-tree', sha])).split('\n').filter(Boolean)) {
    const [meta = '', path = ''] = line.split('\t')
    const [mode = '', , object = ''] = meta.split(' ')
    modes[path] = mode
    // Not through git(), which trims: the text exactly as committed.
    files[path] = (await exec('git', ['--git-dir', bareDir, 'cat-file', 'blob', object], { env: { PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } })).stdout
  }
  return { parents: parents.split(' ').filter(Boolean), author, committer, message: message.join('\n').trim(), files, modes }
}
