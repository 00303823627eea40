/**
 * The pull-request part of the loopback GitHub: the REST routes fix delivery uses (pulls listed,
 * opened, read and edited; issue comments; a commit's combined status and check runs), the
 * GraphQL mutations markPullRequestReadyForReview and convertPullRequestToDraft, and the controls tests arrange and inspect them
 * with. Field names and errors are GitHub's, so Octokit reads the answers as it reads GitHub's.
 */
import { createHash } from 'node:crypto'
import { revParse } from './git-repository.js'
import { NOT_FOUND, routeOf, type Reply } from './github-loopback-http.js'

/** A commit status as tests set it (GitHub's field names). */
export interface LoopbackStatus {
  readonly context: string
  readonly state: 'pending' | 'success' | 'failure' | 'error'
  readonly target_url?: string
}

/** A check run as tests set it (GitHub's field names); conclusion only once completed. */
export interface LoopbackCheckRun {
  readonly name: string
  readonly status: 'queued' | 'in_progress' | 'completed'
  readonly conclusion?: 'success' | 'failure' | 'neutral' | 'cancelled' | 'skipped' | 'timed_out' | 'action_required' | null
  readonly html_url?: string
}

/** A pull request as the host holds it, for tests to inspect. */
export interface LoopbackPull {
  readonly number: number
  /** Branch names, without owner. */
  readonly head: string
  readonly base: string
  readonly title: string
  readonly body: string
  readonly draft: boolean
  readonly state: 'open' | 'closed' | 'merged'
}

/** Controls of the loopback's pull requests and CI (part of GithubLoopback). */
export interface LoopbackPullControls {
  /** The pull requests of repo (owner/name), oldest first. */
  pulls(repo: string): LoopbackPull[]
  /** The bodies of the comments on pull request number of repo, oldest first. */
  comments(repo: string, number: number): string[]
  /** Sets the commit statuses and check runs of commit sha in repo, replacing any set before; unset means none of either. */
  setCi(repo: string, sha: string, ci: { statuses?: readonly LoopbackStatus[]; checkRuns?: readonly LoopbackCheckRun[] }): void
  /** Closes pull request number of repo, as a person closing or merging it on GitHub does; answers GitHub's JSON of it then (undefined when none). */
  closePull(repo: string, number: number, options?: { merged?: boolean }): Promise<Record<string, unknown> | undefined>
  /** Marks pull request number of repo ready for review, as a person pressing the button on GitHub does. */
  markReady(repo: string, number: number): void
}

/** What the asker may do, as the rest of the loopback decided from its credential. */
export interface PullAccess {
  readonly authenticated: boolean
  read(fullName: string): boolean
  write(fullName: string): boolean
}

interface Pull {
  number: number
  nodeId: string
  head: string
  base: string
  title: string
  body: string
  draft: boolean
  state: 'open' | 'closed' | 'merged'
  headSha: string
  /** Set when closed (merged ones too), as GitHub's closed_at and merged_at. */
  closedAt: string | null
  mergedAt: string | null
  /** The merge's commit on the base branch (made up: the loopback does not merge the branches). */
  mergeSha: string | null
  readonly comments: string[]
}

const ROUTES = [
  'GET repos/:/:/pulls',
  'POST repos/:/:/pulls',
  'GET repos/:/:/pulls/:',
  'PATCH repos/:/:/pulls/:',
  'POST repos/:/:/issues/:/comments',
  'GET repos/:/:/commits/:/status',
  'GET repos/:/:/commits/:/check-runs',
] as const

const FORBIDDEN: Reply = { status: 403, body: { message: 'Resource not accessible by personal access token', documentation_url: 'https://docs.github.com/rest' } }
const invalid = (errors: unknown[]): Reply => ({ status: 422, body: { message: 'Validation Failed', errors } })

/** The pull requests of one loopback: controls, and the handler its server calls first. */
export function createLoopbackPulls(host: { readonly origin: string; bareDir(fullName: string): string | undefined }) {
  const pulls = new Map<string, Pull[]>()
  const nodes = new Map<string, { fullName: string; number: number }>()
  const ci = new Map<string, { statuses: readonly LoopbackStatus[]; checkRuns: readonly LoopbackCheckRun[] }>()
  const of = (repo: string): Pull[] => pulls.get(repo.toLowerCase()) ?? pulls.set(repo.toLowerCase(), []).get(repo.toLowerCase())!
  const find = (repo: string, number: number): Pull | undefined => of(repo).find((pull) => pull.number === number)
  const branchSha = async (fullName: string, branch: string): Promise<string | undefined> => {
    const bareDir = host.bareDir(fullName)
    return bareDir === undefined ? undefined : revParse(bareDir, `refs/heads/${branch}`)
  }

  const controls: LoopbackPullControls = {
    pulls: (repo) => of(repo).map(({ number, head, base, title, body, draft, state }) => ({ number, head, base, title, body, draft, state })),
    comments: (repo, number) => [...(find(repo, number)?.comments ?? [])],
    setCi(repo, sha, set) {
      ci.set(`${repo.toLowerCase()}@${sha.toLowerCase()}`, { statuses: set.statuses ?? [], checkRuns: set.checkRuns ?? [] })
    },
    async closePull(repo, number, options = {}) {
      const pull = find(repo, number)
      if (!pull) return undefined
      pull.state = options.merged ? 'merged' : 'closed'
      pull.closedAt = new Date().toISOString()
      pull.mergedAt = options.merged ? pull.closedAt : null
      pull.mergeSha = options.merged ? createHash('sha1').update(`merge ${repo}#${number}`).digest('hex') : null
      return pullJson(repo.toLowerCase(), pull)
    },
    markReady(repo, number) {
      const pull = find(repo, number)
      if (pull) pull.draft = false
    },
  }

  /** GitHub's JSON for a pull request; its head sha follows the branch, as GitHub's does. */
  async function pullJson(fullName: string, pull: Pull) {
    pull.headSha = (await branchSha(fullName, pull.head)) ?? pull.headSha
    const owner = fullName.split('/')[0]!
    const repo = { full_name: fullName, name: fullName.split('/')[1], owner: { login: owner } }
    return {
      number: pull.number,
      node_id: pull.nodeId,
      html_url: `${host.origin}/${fullName}/pull/${pull.number}`,
      state: pull.state === 'open' ? 'open' : 'closed',
      merged: pull.state === 'merged',
      merged_at: pull.state === 'merged' ? pull.mergedAt : null,
      closed_at: pull.state === 'open' ? null : pull.closedAt,
      merge_commit_sha: pull.state === 'merged' ? pull.mergeSha : null,
      title: pull.title,
      body: pull.body,
      draft: pull.draft,
      user: { login: 'svc-bot[bot]' },
      head: { label: `${owner}:${pull.head}`, ref: pull.head, sha: pull.headSha, repo },
      base: { label: `${owner}:${pull.base}`, ref: pull.base, sha: (await branchSha(fullName, pull.base)) ?? '', repo },
    }
  }

  async function create(fullName: string, body: Record<string, unknown>): Promise<Reply> {
    const owner = fullName.split('/')[0]!
    const head = String(body.head ?? '').replace(new RegExp(`^${owner}:`, 'i'), '')
    const base = String(body.base ?? '')
    if (typeof body.title !== 'string' || body.title === '') return invalid([{ resource: 'PullRequest', code: 'missing_field', field: 'title' }])
    const headSha = await branchSha(fullName, head)
    const baseSha = await branchSha(fullName, base)
    if (headSha === undefined) return invalid([{ resource: 'PullRequest', code: 'invalid', field: 'head' }])
    if (baseSha === undefined) return invalid([{ resource: 'PullRequest', code: 'invalid', field: 'base' }])
    if (of(fullName).some((pull) => pull.state === 'open' && pull.head === head && pull.base === base)) {
      return invalid([{ resource: 'PullRequest', code: 'custom', message: `A pull request already exists for ${owner}:${head}.` }])
    }
    if (headSha === baseSha) return invalid([{ resource: 'PullRequest', code: 'custom', message: `No commits between ${base} and ${head}` }])
    const number = of(fullName).length + 1
    const nodeId = `PR_${Buffer.from(`${fullName}#${number}`).toString('base64url')}`
    const pull: Pull = { number, nodeId, head, base, title: body.title, body: String(body.body ?? ''), draft: body.draft === true, state: 'open', headSha, closedAt: null, mergedAt: null, mergeSha: null, comments: [] }
    of(fullName).push(pull)
    nodes.set(nodeId, { fullName, number })
    return { status: 201, body: await pullJson(fullName, pull) }
  }

  async function list(fullName: string, query: URLSearchParams): Promise<Reply> {
    const state = query.get('state') ?? 'open'
    const head = query.get('head')
    const base = query.get('base')
    const owner = fullName.split('/')[0]!
    const found = of(fullName).filter(
      (pull) =>
        (state === 'all' || (state === 'open') === (pull.state === 'open')) &&
        (head === null || head.toLowerCase() === `${owner}:${pull.head}`.toLowerCase()) &&
        (base === null || base === pull.base),
    )
    return { status: 200, body: await Promise.all(found.reverse().map((pull) => pullJson(fullName, pull))) }
  }

  async function commitCi(fullName: string, sha: string, what: 'status' | 'check-runs'): Promise<Reply> {
    const bareDir = host.bareDir(fullName)
    const commit = bareDir === undefined ? undefined : await revParse(bareDir, sha)
    if (commit === undefined) return { status: 422, body: { message: `No commit found for SHA: ${sha}` } }
    const { statuses, checkRuns } = ci.get(`${fullName}@${commit}`) ?? { statuses: [], checkRuns: [] }
    if (what === 'check-runs') {
      const runs = checkRuns.map((run, i) => ({ id: i + 1, head_sha: commit, details_url: run.html_url ?? null, ...run, html_url: run.html_url ?? null, conclusion: run.conclusion ?? null }))
      return { status: 200, body: { total_count: runs.length, check_runs: runs } }
    }
    const states = statuses.map((s) => s.state)
    // GitHub's combined state: pending also when nothing reported.
    const state = states.some((s) => s === 'failure' || s === 'error') ? 'failure' : states.length === 0 || states.includes('pending') ? 'pending' : 'success'
    const listed = statuses.map((s, i) => ({ id: i + 1, description: null, ...s, target_url: s.target_url ?? null }))
    return { status: 200, body: { state, sha: commit, total_count: listed.length, statuses: listed, repository: { full_name: fullName } } }
  }

  /**
   * markPullRequestReadyForReview and convertPullRequestToDraft, the GraphQL operations the loopback
   * answers; errors as GitHub's GraphQL gives them (200 with errors).
   */
  function graphql(body: Record<string, unknown>, access: PullAccess): Reply {
    if (!access.authenticated) return { status: 401, body: { message: 'This endpoint requires you to be authenticated.' } }
    const query = String(body.query ?? '')
    const mutation = /\bmarkPullRequestReadyForReview\b/.test(query) ? 'markPullRequestReadyForReview' : /\bconvertPullRequestToDraft\b/.test(query) ? 'convertPullRequestToDraft' : undefined
    if (!mutation) return { status: 200, body: { errors: [{ message: 'the loopback answers markPullRequestReadyForReview and convertPullRequestToDraft only' }] } }
    const id = String((body.variables as Record<string, unknown> | undefined)?.pullRequestId ?? '')
    const node = nodes.get(id)
    const path = [mutation]
    if (!node || !access.read(node.fullName)) {
      return { status: 200, body: { data: { [mutation]: null }, errors: [{ type: 'NOT_FOUND', path, message: `Could not resolve to a node with the global id of '${id}'` }] } }
    }
    if (!access.write(node.fullName)) {
      return { status: 200, body: { data: { [mutation]: null }, errors: [{ type: 'FORBIDDEN', path, message: 'Resource not accessible by personal access token' }] } }
    }
    const pull = find(node.fullName, node.number)!
    pull.draft = mutation === 'convertPullRequestToDraft'
    return { status: 200, body: { data: { [mutation]: { pullRequest: { isDraft: pull.draft, number: pull.number } } } } }
  }

  return {
    controls,
    /** Answers the request when it is one of this part's routes; undefined otherwise. */
    async handle(method: string, url: URL, body: Record<string, unknown>, access: PullAccess): Promise<Reply | undefined> {
      if (method === 'POST' && (url.pathname === '/api/graphql' || url.pathname === '/graphql')) return graphql(body, access)
      if (!url.pathname.startsWith('/api/v3/')) return undefined
      const parts = url.pathname.slice('/api/v3/'.length).split('/').map((p) => decodeURIComponent(p))
      const route = routeOf(ROUTES, method, parts)
      if (route === undefined) return undefined
      const fullName = `${parts[1]}/${parts[2]}`.toLowerCase()
      if (!access.read(fullName)) return NOT_FOUND
      if (method !== 'GET' && !access.write(fullName)) return FORBIDDEN
      const pull = route.includes('/:/:/pulls/') || route.includes('/issues/') ? find(fullName, Number(parts[4])) : undefined
      switch (route) {
        case 'GET repos/:/:/pulls':
          return list(fullName, url.searchParams)
        case 'POST repos/:/:/pulls':
          return create(fullName, body)
        case 'GET repos/:/:/pulls/:':
          return pull ? { status: 200, body: await pullJson(fullName, pull) } : NOT_FOUND
        case 'PATCH repos/:/:/pulls/:':
          if (!pull) return NOT_FOUND
          if (body.title !== undefined && (typeof body.title !== 'string' || body.title === '')) return invalid([{ resource: 'PullRequest', code: 'missing_field', field: 'title' }])
          if (typeof body.title === 'string') pull.title = body.title
          if (typeof body.body === 'string') pull.body = body.body
          if (body.state === 'closed' && pull.state === 'open') Object.assign(pull, { state: 'closed', closedAt: new Date().toISOString() })
          if (body.state === 'open' && pull.state === 'closed') Object.assign(pull, { state: 'open', closedAt: null })
          return { status: 200, body: await pullJson(fullName, pull) }
        case 'POST repos/:/:/issues/:/comments':
          if (!pull) return NOT_FOUND
          if (typeof body.body !== 'string' || body.body === '') return invalid([{ resource: 'IssueComment', code: 'missing_field', field: 'body' }])
          pull.comments.push(body.body)
          return { status: 201, body: { id: pull.comments.length, body: body.body, html_url: `${host.origin}/${fullName}/pull/${pull.number}#issuecomment-${pull.comments.length}` } }
        case 'GET repos/:/:/commits/:/status':
          return commitCi(fullName, parts[4]!, 'status')
        case 'GET repos/:/:/commits/:/check-runs':
          return commitCi(fullName, parts[4]!, 'check-runs')
      }
    },
  }
}
