/**
 * Octokit clients for one configured GitHub App, and the one place GitHub's failures are sorted
 * into what callers act on: 404 is an answer (the caller decides what it means), an outage is
 * CodehostUnreachable (503, retry), and anything else is a plain Error whose message names the
 * status but never a token, key or secret.
 */
import { createAppAuth } from '@octokit/auth-app'
import { Octokit } from '@octokit/rest'
import type { Logger } from '../../shared/log.js'
import { CodehostUnreachable } from '../../shared/plugins/types.js'
import { withoutTrailingSlash, type GithubAppSettings, type GithubSettings } from './settings.js'

/** Clients that need no app: with a token (a user's OAuth token or CODEHOST_TOKEN), or none. */
export interface GithubApi {
  /** Authenticated with token (a user's OAuth token or a personal access token), or not at all. */
  user(token?: string): Octokit
  /** The settings' API root, for messages. */
  readonly apiUrl: string
}

/** Clients for the app (JWT), for one installation (its access token), and unauthenticated. */
export interface GithubClients extends GithubApi {
  /** Authenticated as the app: the /app, /repos/…/installation and /users|orgs/…/installation routes. */
  readonly app: Octokit
  /** Authenticated as an installation, with a token auth-app creates and caches until it expires. */
  installation(installationId: number): Promise<Octokit>
  /** The installation's access token itself, for git; the same cached token installation() uses. */
  installationToken(installationId: number): Promise<string>
}

/** Creates the token and anonymous clients; nothing is requested until a method is called. */
export function createGithubApi(settings: GithubSettings, log: Logger): GithubApi {
  const base = baseOptions(settings, log)
  return { apiUrl: base.baseUrl, user: (token) => new Octokit(token === undefined ? base : { ...base, auth: token }) }
}

/** Creates the app's clients; nothing is requested until a method is called. */
export function createGithubClients(settings: GithubAppSettings, log: Logger): GithubClients {
  const base = baseOptions(settings, log)
  const app = new Octokit({ ...base, authStrategy: createAppAuth, auth: { appId: settings.appId, privateKey: settings.privateKey } })
  const installationToken = async (installationId: number): Promise<string> =>
    ((await app.auth({ type: 'installation', installationId })) as { token: string }).token
  return {
    ...createGithubApi(settings, log),
    app,
    installationToken,
    installation: async (installationId) => new Octokit({ ...base, auth: await installationToken(installationId) }),
  }
}

function baseOptions(settings: GithubSettings, log: Logger) {
  return {
    baseUrl: withoutTrailingSlash(settings.apiUrl),
    userAgent: 'svc-codehost-github',
    request: { fetch: timedFetch(settings.timeoutMs) },
    // Octokit's deprecation notices are warnings. Its request log reports every failed request
    // as an error, but a 404 is an answer here and an outage is the caller's to report: debug.
    log: { debug: () => {}, info: () => {}, warn: (msg: string) => log.warn(msg), error: (msg: string) => log.debug(msg) },
  }
}

/** global fetch with a deadline, so a host that accepts and never answers counts as unreachable. */
function timedFetch(timeoutMs: number): typeof fetch {
  return (input, init) => {
    const timeout = AbortSignal.timeout(timeoutMs)
    return fetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout })
  }
}

/** What Octokit's errors carry that classify reads. */
export interface GithubFailure {
  readonly status?: number
  readonly response?: { readonly headers?: Record<string, string | undefined> }
}

/** Runs a GitHub call and answers undefined for 404; every other failure is thrown through classify. */
export async function unlessNotFound<T>(clients: Pick<GithubClients, 'apiUrl'>, call: () => Promise<T>): Promise<T | undefined> {
  try {
    return await call()
  } catch (error) {
    if ((error as GithubFailure).status === 404) return undefined
    throw classify(clients, error)
  }
}

/** Runs a GitHub call; failures are thrown through classify. */
export async function github<T>(clients: Pick<GithubClients, 'apiUrl'>, call: () => Promise<T>): Promise<T> {
  try {
    return await call()
  } catch (error) {
    throw classify(clients, error)
  }
}

/**
 * Sorts a failure: no answer, 5xx, or a rate limit is CodehostUnreachable (the caller retries
 * later); 401 means the app's credentials are wrong; anything else is reported by status. The
 * original error is never passed on: Octokit's carries the request, headers included.
 */
export function classify(clients: Pick<GithubClients, 'apiUrl'>, error: unknown): Error {
  if (error instanceof CodehostUnreachable) return error
  const failure = error as GithubFailure
  const status = typeof failure.status === 'number' ? failure.status : undefined
  const answered = failure.response !== undefined
  const rateLimited = status === 429 || (status === 403 && failure.response?.headers?.['x-ratelimit-remaining'] === '0')
  // Octokit reports a request that got no answer (refused, reset, timed out) as status 500 with no response.
  const noAnswer = !answered && (status === 500 || (error as Error).name === 'AbortError')
  if (noAnswer || (answered && status !== undefined && (status >= 500 || rateLimited))) {
    const why = noAnswer ? 'did not answer' : rateLimited ? 'is rate limiting the app' : `answered ${status}`
    return new CodehostUnreachable(`GitHub at ${clients.apiUrl} ${why}. Try again in a minute.`)
  }
  // Not a GitHub answer at all (e.g. signing the app's token failed): the name only, messages may quote input.
  if (status === undefined) return new Error(`The GitHub request failed before it was sent (${(error as Error).name ?? 'error'}).`)
  if (status === 401) {
    return new Error(`GitHub refused the app's credentials (401): check the app id and that the private key is the app's current one.`)
  }
  return new Error(`GitHub answered ${status} where it should not have; check the app's permissions (metadata: read).`)
}
