/**
 * Write access to a repository through the code host: what fix delivery needs. A branch pushed
 * from a local work tree, a pull request opened (draft or ready for review) or updated, a comment
 * with the evidence, and the repository CI's verdict on the pushed commit read back. The service
 * never merges. The token (CODEHOST_TOKEN or the app's installation token) never reaches a command
 * line, a log line or an error message. Needs: contents and pull requests write, checks and commit
 * statuses read.
 */

export interface PullRequestRef {
  readonly number: number
  /** The pull request's web address. */
  readonly url: string
  readonly draft: boolean
  readonly state: 'open' | 'closed' | 'merged'
  /** The head branch's commit the code host knows. */
  readonly headSha: string
}

/** One pull request as the code host has it now: whether and when it was merged or closed. */
export interface PullRequestStatus extends PullRequestRef {
  /** When it was merged; null unless state is merged. */
  readonly mergedAt: Date | null
  /** When it was closed (merged ones too); null while open. */
  readonly closedAt: Date | null
  /** The commit its merge made on the base branch; '' unless merged. */
  readonly mergeSha: string
}

/** Repository CI on one commit: commit statuses and check runs combined. */
export interface CiResult {
  /** none: no status and no check run at all (never counts as green); pending while any runs. */
  readonly state: 'none' | 'pending' | 'success' | 'failure'
  readonly checks: ReadonlyArray<{ readonly name: string; readonly state: 'pending' | 'success' | 'failure'; readonly url: string }>
}

export interface PullRequestAccess {
  /**
   * Commits every change in dir's work tree (a clone made by RepositoryAccess.clone) on top of its
   * checked-out commit, with message and the service's author name, and force-pushes it to branch
   * (a rerun replaces the branch's fix). Answers the pushed commit. Throws RepositoryDenied when
   * the token may not push, CodehostUnreachable on an outage.
   */
  pushBranch(repo: string, installationId: string, request: { readonly dir: string; readonly branch: string; readonly message: string; readonly signal?: AbortSignal }): Promise<{ readonly commit: string }>
  /** The open pull request whose head is branch (in repo itself), if any. */
  findOpen(repo: string, installationId: string, branch: string): Promise<PullRequestRef | undefined>
  /** Opens a pull request of branch into base. */
  open(repo: string, installationId: string, request: { readonly branch: string; readonly base: string; readonly title: string; readonly body: string; readonly draft: boolean }): Promise<PullRequestRef>
  /** Replaces an open pull request's title and body; ready: true marks a draft ready for review (convertToDraft is the reverse). */
  update(repo: string, installationId: string, number: number, request: { readonly title: string; readonly body: string; readonly ready?: boolean }): Promise<PullRequestRef>
  /**
   * Turns an open pull request that is ready for review back into a draft (a draft stays one): the
   * service does so before it pushes a head that may not stand ready for review.
   */
  convertToDraft(repo: string, installationId: string, number: number): Promise<PullRequestRef>
  /** Adds a comment to the pull request's conversation. */
  comment(repo: string, installationId: string, number: number, body: string): Promise<void>
  /**
   * Pull request number of repo as it is now, for following it to its end (merged or closed).
   * Optional: a plugin without it leaves delivered pull requests to the webhook alone.
   */
  read?(repo: string, installationId: string, number: number): Promise<PullRequestStatus>
  /** The combined commit statuses and check runs of commit. */
  ci(repo: string, installationId: string, commit: string): Promise<CiResult>
}
