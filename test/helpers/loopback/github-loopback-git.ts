/**
 * The repository-contents part of the loopback GitHub: repositories served over git's smart HTTP
 * by the real git (git-http.ts), fetches and pushes, the REST answers that lead to them (default
 * branch and clone_url in GET /repos/{owner}/{repo}, GET /repos/{owner}/{repo}/commits/{ref}), the
 * file listing of GET /repos/{owner}/{repo}/git/trees/{tree}, and
 * the personal access tokens the host accepts besides the installation tokens it mints.
 */
import { execFile, execFileSync } from 'node:child_process'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { promisify } from 'node:util'
import { basicPassword, isPush, serveGitHttp } from './git-http.js'
import { revParse } from './git-repository.js'

/** Controls of the loopback's git hosting (part of GithubLoopback). */
export interface LoopbackGitControls {
  /**
   * Serves the bare repository bareDir as fullName (owner/name; created on the host if missing):
   * the REST API answers its default branch (bareDir's HEAD) and a clone_url on the loopback, or
   * options.cloneUrl instead, and git serves its contents to a credential that may read it, and
   * takes pushes (into bareDir itself) from one that may write it.
   */
  serveGit(fullName: string, bareDir: string, options?: { cloneUrl?: string }): void
  /**
   * Accepts token as a personal access token (as CODEHOST_TOKEN) that reads the repositories
   * listed (owner/name), or every one; and writes them (git push, pull requests, comments) unless
   * options.write is false, which answers 403 as GitHub does for a token granted Contents: read only.
   */
  acceptToken(token: string, repositories?: 'all' | readonly string[], options?: { write?: boolean }): void
  /** Makes every git request fail: with an HTTP status, by dropping the connection, or by never answering; undefined ends it. */
  failGit(mode: number | 'reset' | 'hang' | undefined): void
}

/** The kind of credential a request carried. */
export type RequestAuth = 'jwt' | 'installation' | 'personal' | 'user' | 'none' | 'bad'

/** A request the loopback saw. */
export interface LoopbackRequest {
  readonly method: string
  readonly path: string
  readonly auth: RequestAuth
  /** Git requests only: whether the credential (the Basic password) may read the repository (write it, for a push). */
  readonly granted?: boolean
}

/** What the git part needs from the rest of the loopback. */
export interface GitHost {
  readonly origin: string
  /** Creates fullName (owner/name) on the host unless it exists. */
  ensureRepository(fullName: string): void
  /** The kind of credential (a token, or a Basic password) and whether it may read and write fullName. */
  access(credential: string | undefined, fullName: string): { auth: RequestAuth; granted: boolean; writable: boolean }
  /** The status every request answers (failWith), if any. */
  failing(): number | undefined
  record(request: LoopbackRequest): void
}

type Reply = { status: number; body: unknown }

/** A personal access token the host accepts: what it reads, and whether it may write there too. */
export interface PersonalToken {
  readonly repositories: 'all' | ReadonlySet<string>
  readonly write: boolean
}

/** owner/name.git, then the smart-HTTP path. */
const GIT_PATH = /^\/([^/]+)\/([^/]+)\.git(\/.*)$/
const COMMIT_PATH = /^\/api\/v3\/repos\/([^/]+)\/([^/]+)\/commits\/(.+)$/
const TREE_PATH = /^\/api\/v3\/repos\/([^/]+)\/([^/]+)\/git\/trees\/(.+)$/

/** The git hosting of one loopback: controls, and the handlers the loopback's server calls. */
export function createLoopbackGit(host: GitHost) {
  const served = new Map<string, { bareDir: string; defaultBranch: string; cloneUrl: string }>()
  const personal = new Map<string, PersonalToken>()
  let failure: number | 'reset' | 'hang' | undefined

  const controls: LoopbackGitControls = {
    serveGit(fullName, bareDir, options = {}) {
      const key = fullName.toLowerCase()
      host.ensureRepository(key)
      const head = execFileSync('git', ['--git-dir', bareDir, 'symbolic-ref', '--short', 'HEAD'], { encoding: 'utf8' }).trim()
      served.set(key, { bareDir, defaultBranch: head, cloneUrl: options.cloneUrl ?? `${host.origin}/${key}.git` })
    },
    acceptToken(token, repositories = 'all', options = {}) {
      personal.set(token, { repositories: repositories === 'all' ? 'all' : new Set(repositories.map((r) => r.toLowerCase())), write: options.write ?? true })
    },
    failGit(mode) {
      failure = mode
    },
  }

  return {
    controls,
    /** The repositories a personal token reads and whether it writes them, or undefined when the host does not know it. */
    personalToken: (token: string): PersonalToken | undefined => personal.get(token),
    /** The bare repository served as fullName (lower case), if any. */
    bareDir: (fullName: string): string | undefined => served.get(fullName)?.bareDir,
    /** Whether the request is a git one (for serveGit), not REST or web. */
    isGit: (url: string | undefined): boolean => GIT_PATH.test(new URL(url ?? '/', host.origin).pathname),
    /** The fields GET /repos/{owner}/{repo} adds for fullName: where its contents are. */
    repositoryFields(fullName: string) {
      const repo = served.get(fullName)
      return { default_branch: repo?.defaultBranch ?? 'main', html_url: `${host.origin}/${fullName}`, clone_url: repo?.cloneUrl ?? `${host.origin}/${fullName}.git` }
    },
    /** owner/name and ref when pathname is GET /repos/{owner}/{repo}/commits/{ref} (ref may hold slashes). */
    commitRoute(method: string | undefined, pathname: string): { fullName: string; ref: string } | undefined {
      const match = method === 'GET' ? COMMIT_PATH.exec(pathname) : null
      return match ? { fullName: `${decodeURIComponent(match[1]!)}/${decodeURIComponent(match[2]!)}`.toLowerCase(), ref: decodeURIComponent(match[3]!) } : undefined
    },
    /** GitHub's answer to GET /repos/{owner}/{repo}/commits/{ref}, for a caller that may read the repository. */
    async commit(fullName: string, ref: string): Promise<Reply> {
      const repo = served.get(fullName)
      if (!repo) return { status: 409, body: { message: 'Git Repository is empty.' } }
      const sha = await revParse(repo.bareDir, ref)
      if (sha === undefined) return { status: 422, body: { message: `No commit found for SHA: ${ref}` } }
      return { status: 200, body: { sha, html_url: `${host.origin}/${fullName}/commit/${sha}`, commit: { message: 'loopback commit' }, files: [] } }
    },
    /** owner/name and tree when pathname is GET /repos/{owner}/{repo}/git/trees/{tree_sha} (a sha or a branch). */
    treeRoute(method: string | undefined, pathname: string): { fullName: string; tree: string } | undefined {
      const match = method === 'GET' ? TREE_PATH.exec(pathname) : null
      return match ? { fullName: `${decodeURIComponent(match[1]!)}/${decodeURIComponent(match[2]!)}`.toLowerCase(), tree: decodeURIComponent(match[3]!) } : undefined
    },
    /** GitHub's answer to GET /repos/{owner}/{repo}/git/trees/{tree}?recursive=1, from the bare repository. */
    async tree(fullName: string, tree: string): Promise<Reply> {
      const repo = served.get(fullName)
      const sha = repo && (await revParse(repo.bareDir, tree))
      if (!repo || !sha) return { status: 404, body: { message: 'Not Found' } }
      const listing = await gitOutput(repo.bareDir, ['ls-tree', '-r', '-t', '--full-tree', sha])
      const entries = listing.split('\n').filter(Boolean).map((line) => {
        const [meta, path] = line.split('\t') as [string, string]
        const [mode, type, object] = meta.split(' ') as [string, string, string]
        return { path, mode, type, sha: object, url: `${host.origin}/api/v3/repos/${fullName}/git/${type}s/${object}` }
      })
      return { status: 200, body: { sha: (await gitOutput(repo.bareDir, ['rev-parse', `${sha}^{tree}`])).trim(), url: '', tree: entries, truncated: false } }
    },
    /** Answers a git request: authentication as GitHub asks for it, then the real git http-backend. */
    serve(req: IncomingMessage, res: ServerResponse): void {
      const url = new URL(req.url ?? '/', host.origin)
      const [, owner, name, rest] = GIT_PATH.exec(url.pathname)!
      const fullName = `${decodeURIComponent(owner!)}/${decodeURIComponent(name!)}`.toLowerCase()
      const push = isPush(rest!, url.search)
      const { auth, granted, writable } = host.access(basicPassword(req.headers.authorization), fullName)
      host.record({ method: req.method ?? '', path: url.pathname, auth, granted: push ? writable : granted })
      const status = host.failing() ?? (typeof failure === 'number' ? failure : undefined)
      if (failure === 'reset') return void req.socket.destroy()
      // Never answered; the loopback's close() ends the connection.
      if (failure === 'hang') return
      if (status !== undefined) return void res.writeHead(status, { 'content-type': 'text/plain', ...challenge(status) }).end('failing\n')
      // Like GitHub: no or bad credentials ask for them (git then runs its askpass helper); a good
      // credential without access to the repository finds nothing there.
      if (auth === 'none' || auth === 'bad') return void res.writeHead(401, { 'content-type': 'text/plain', ...challenge(401) }).end('Invalid username or token.\n')
      const repo = served.get(fullName)
      if (!granted || !repo) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('Repository not found.\n')
      // A credential that reads but may not write: GitHub's answer to a push with Contents: read only.
      if (push && !writable) return void res.writeHead(403, { 'content-type': 'text/plain' }).end(`Permission to ${fullName}.git denied.\n`)
      serveGitHttp(req, res, repo.bareDir, rest!, { write: push })
    },
  }
}

function challenge(status: number): Record<string, string> {
  return status === 401 ? { 'www-authenticate': 'Basic realm="GitHub"' } : {}
}

/** What git prints for args in the bare repository gitDir. */
async function gitOutput(gitDir: string, args: string[]): Promise<string> {
  return (await promisify(execFile)('git', ['--git-dir', gitDir, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })).stdout
}
