/**
 * Read access to a repository's contents through the code host: what the investigator needs to
 * look at the code an error came from. The token used (CODEHOST_TOKEN, or the app's installation
 * token) never reaches a command line, a log line, an error message or a model.
 */

export interface RepositoryInfo {
  /** owner/repo as the code host spells it. */
  readonly fullName: string
  readonly defaultBranch: string
  /** Web address of the repository, for links to files at a commit: <webUrl>/blob/<commit>/<path>#L<line>. */
  readonly webUrl: string
}

export interface ClonedRepository {
  /** The commit checked out (40 hex digits). */
  readonly commit: string
  /** The folder holding the work tree (the caller's dest). */
  readonly dir: string
}

/** The files of a repository's default branch, as the code host lists them without a clone. */
export interface RepositoryFiles {
  /** The branch listed: the default branch, at its head when listed. */
  readonly branch: string
  /** Repository paths of the files (blobs), 'apps/shop/src/cart.ts'. */
  readonly paths: readonly string[]
  /** True when the code host cut the listing short (a very large repository). */
  readonly truncated: boolean
}

export interface RepositoryAccess {
  /**
   * The repository's default branch and web address. installationId is the project's app
   * installation ('' when none; a token from CODEHOST_TOKEN is used then). Throws RepositoryDenied
   * when the code host refuses or does not know the repository, CodehostUnreachable on an outage.
   */
  info(repo: string, installationId: string): Promise<RepositoryInfo>
  /**
   * The commit a release names: the release itself when it is a commit sha the repository has, a
   * tag or branch of that name, else undefined. Throws RepositoryDenied when no credential can read
   * the repository, CodehostUnreachable on an outage.
   */
  resolveCommit(repo: string, installationId: string, ref: string): Promise<string | undefined>
  /**
   * A shallow clone of repo into dest (an empty folder), checked out at commit, or at the default
   * branch's head when commit is undefined. Over the code host's git smart HTTP; the token goes to
   * git through an askpass helper's environment, never argv. Throws RepositoryDenied,
   * CodehostUnreachable (an outage, or the clone's time limit), or an Error whose message says what
   * failed; when signal aborts, git is stopped and the promise rejects with the signal's reason.
   */
  clone(repo: string, installationId: string, dest: string, options?: { commit?: string; signal?: AbortSignal }): Promise<ClonedRepository>
  /**
   * The files at the default branch's head, listed by the code host's API (no clone): admission's
   * check that a stack comes from the repository before an investigation is queued. Optional: a
   * plugin without it leaves that check to the investigation's clone. Throws as info does.
   */
  listFiles?(repo: string, installationId: string): Promise<RepositoryFiles>
}

/** The code host refused access to the repository (401/403/404): a person must grant it. */
export class RepositoryDenied extends Error {
  override name = 'RepositoryDenied'
}
