/**
 * Admission's repository-origin check (spec, Events 1: "the error's stack must originate from code
 * in the attached repository"), made before an investigation is queued so that a stack without the
 * app's own code stays new instead of spending a run. A stack qualifies by one in-app frame of its
 * latest events that is either symbolicated to a source path in the repository (listed by the code
 * host, no clone), or, without a source map, served from the page's own origin (the run then asks
 * for the maps). When the
 * repository cannot be listed (none attached, no code host, an outage, a listing cut short), a
 * symbolicated frame outside node_modules is taken on trust and the run's clone decides.
 */
import type { Db } from '../../shared/db/index.js'
import type { Logger } from '../../shared/log.js'
import type { CodehostPlugin } from '../../shared/plugins/types.js'
import { normalizeSourcePath } from '../../shared/domain/source-path.js'
import { pageOrigin } from '../grouper/read/frames.js'
import { indexPaths, repoPathOf, type RepoIndex } from './analysis/repo-paths.js'
import { loadRecentFrames } from './investigation/subject.js'

export type AppCodeVerdict = { ok: true } | { ok: false; message: string }

/** How long a repository's listing and an issue's verdict are kept: a push or an attach shows within it. */
const KEEP_MS = 10 * 60_000
const MAX_KEPT = 5000

export class AppCodeCheck {
  readonly #listings = new Map<string, { at: number; index: Promise<RepoIndex | undefined> }>()
  readonly #verdicts = new Map<string, { at: number; verdict: AppCodeVerdict }>()

  constructor(private readonly deps: { db: Db; codehost: CodehostPlugin | undefined; log: Logger }) {}

  /** Whether the issue's best-told recent event has a frame of the app's own code; kept for a while per issue. */
  async check(issueId: string): Promise<AppCodeVerdict> {
    const kept = this.#verdicts.get(issueId)
    if (kept && Date.now() - kept.at < KEEP_MS) return kept.verdict
    const verdict = await this.#decide(issueId)
    if (this.#verdicts.size >= MAX_KEPT) this.#verdicts.clear()
    this.#verdicts.set(issueId, { at: Date.now(), verdict })
    return verdict
  }

  async #decide(issueId: string): Promise<AppCodeVerdict> {
    const recent = await loadRecentFrames(this.deps.db, issueId)
    if (!recent || recent.events.length === 0) return { ok: false, message: 'no frame in your code: its events carry no stack' }
    const { repo, installationId } = recent.project
    const inApp = recent.events.flatMap((event) => event.frames.filter((frame) => frame.inApp).map((frame) => ({ frame, page: pageOrigin(event.url) })))
    if (inApp.some(({ frame, page }) => !frame.original && page !== undefined && pageOrigin(frame.file) === page)) return { ok: true }
    const mapped = [...new Set(inApp.filter(({ frame }) => frame.original).map(({ frame }) => normalizeSourcePath(frame.original!.file)))]
    const index = mapped.length > 0 ? await this.#index(repo, installationId) : undefined
    if (index ? mapped.some((file) => repoPathOf(index, file) !== undefined) : mapped.some((file) => !file.split('/').includes('node_modules'))) return { ok: true }
    if (mapped.length > 0) return { ok: false, message: `no frame in your code: its source files (${mapped.slice(0, 3).join(', ')}) are not in ${repo}` }
    const origins = [...new Set(inApp.map(({ frame }) => pageOrigin(frame.file) ?? frame.file))].slice(0, 3)
    return { ok: false, message: origins.length > 0 ? `no frame in your code: the stack runs only in scripts from other sites (${origins.join(', ')}) and has no source map` : 'no frame in your code: the stack has only browser, extension and library frames' }
  }

  /** The repository's files as the code host lists them, or undefined when they cannot be had. */
  #index(repo: string, installationId: string): Promise<RepoIndex | undefined> {
    const list = this.deps.codehost?.repositories?.listFiles
    if (!repo || !list) return Promise.resolve(undefined)
    const key = `${repo}|${installationId}`
    const kept = this.#listings.get(key)
    if (kept && Date.now() - kept.at < KEEP_MS) return kept.index
    const index = list
      .call(this.deps.codehost!.repositories, repo, installationId)
      .then((files) => (files.truncated ? undefined : indexPaths(files.paths, false)))
      .catch((error: unknown) => {
        this.deps.log.warn('listing the repository failed; admission takes symbolicated frames on trust', { repo, error })
        this.#listings.delete(key)
        return undefined
      })
    if (this.#listings.size >= 100) this.#listings.clear()
    this.#listings.set(key, { at: Date.now(), index })
    return index
  }
}
