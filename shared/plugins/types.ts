/**
 * What a plugin is and what each kind of plugin offers the core. A plugin is a module whose
 * default export is a PluginModule: a manifest (name, kind, version, a JSON schema of its
 * settings) and a factory. The core never imports a plugin by path; the loader imports the ones
 * configured and checks manifest and settings first.
 */
import type { Logger } from '../log.js'
import type { EmbeddingsPlugin } from './embeddings-types.js'
import type { ModelPlugin } from './model-types.js'
import type { PullRequestAccess } from './pull-request-types.js'
import type { RepositoryAccess } from './repository-types.js'
import type { SandboxPlugin } from './sandbox-types.js'

export type PluginKind = 'codehost' | 'chat' | 'model' | 'embeddings' | 'sandbox' | 'objectstore'

export interface PluginManifest {
  /** e.g. codehost-github */
  readonly name: string
  readonly kind: PluginKind
  readonly version: string
  /** JSON schema (draft 2020-12 subset ajv understands) of the settings object the factory takes. */
  readonly configSchema: Readonly<Record<string, unknown>>
}

export interface PluginContext {
  readonly log: Logger
}

export interface PluginModule<K extends PluginKind = PluginKind> {
  readonly manifest: PluginManifest & { readonly kind: K }
  create(settings: Readonly<Record<string, unknown>>, context: PluginContext): PluginInstance<K> | Promise<PluginInstance<K>>
}

export type PluginInstance<K extends PluginKind> = K extends 'codehost'
  ? CodehostPlugin
  : K extends 'chat'
    ? ChatPlugin
    : K extends 'objectstore'
      ? ObjectStorePlugin
      : K extends 'model'
        ? ModelPlugin
        : K extends 'sandbox'
          ? SandboxPlugin
          : K extends 'embeddings'
            ? EmbeddingsPlugin
            : object

export type { ModelPlugin, ModelRequest, ModelReply, ModelMessage, ModelTool, ModelToolCall, ModelUsage } from './model-types.js'
export { ModelUnavailable, ModelRejected } from './model-types.js'
export type { RepositoryAccess, ClonedRepository, RepositoryFiles, RepositoryInfo } from './repository-types.js'
export { RepositoryDenied } from './repository-types.js'
export type { PullRequestAccess, PullRequestRef, CiResult } from './pull-request-types.js'
export type { SandboxPlugin, Sandbox, SandboxTemplate, CommandTemplate, DetectingTemplate, TestReport, CommandResult, RunOptions } from './sandbox-types.js'
export { SandboxTemplateMissing, SandboxUnavailable, SandboxPathRefused } from './sandbox-types.js'
export type { EmbeddingsPlugin } from './embeddings-types.js'
export { EmbeddingsUnavailable, EMBEDDING_DIMENSIONS } from './embeddings-types.js'

/** Thrown by a codehost plugin when the code host cannot be reached or answers 5xx: callers answer 503. */
export class CodehostUnreachable extends Error {
  override name = 'CodehostUnreachable'
}

/** What the code host says about one repository, as seen by the installed app. */
export type RepoAccess =
  /** The app can see it: attaching needs no human action. */
  | { readonly status: 'visible'; readonly installationId: string; readonly private: boolean }
  /** The app is not installed on the repository's owner. */
  | { readonly status: 'not_installed'; readonly installUrl: string }
  /** Installed on the owner, but the installation does not include this repository. */
  | { readonly status: 'not_in_installation'; readonly installationId: string; readonly addRepoUrl: string }
  /** The installation the project used was removed on the code host. */
  | { readonly status: 'installation_gone'; readonly installationId: string }
  | { readonly status: 'suspended'; readonly installationId: string }
  /** Anything else a person must fix (e.g. malformed owner/repo); message says what. */
  | { readonly status: 'invalid'; readonly message: string }

export interface CodehostIdentity {
  /** Stable numeric or opaque id on the code host. */
  readonly id: string
  readonly login: string
  readonly email: string | undefined
  readonly name: string | undefined
}

export interface CodehostPlugin {
  /** Where a person installs the app; empty when no app is configured. */
  installUrl(): string
  /**
   * Whether the app can see owner/repo. knownInstallationId is the installation the project used
   * before (empty when none): if the code host no longer has it, the answer is installation_gone.
   * Without an app (a token alone) it answers whether the token can read the repository: visible
   * with installationId '', or invalid saying what to grant.
   * Throws CodehostUnreachable when the code host cannot be reached.
   */
  checkRepository(repo: string, knownInstallationId: string): Promise<RepoAccess>
  /** OAuth sign-in; undefined when client id and secret are not configured. */
  readonly oauth:
    | {
        authorizeUrl(state: string, redirectUri: string): string
        /** Exchanges the callback's code for the signed-in person; throws on a bad code. */
        exchange(code: string, redirectUri: string): Promise<CodehostIdentity>
      }
    | undefined
  /**
   * Read access to repositories' contents (clone at a commit, resolve a release to a commit), with
   * CODEHOST_TOKEN or the app's installation token; undefined when neither is configured.
   */
  readonly repositories: RepositoryAccess | undefined
  /**
   * Pushing fix branches, pull requests, their comments and CI, with the same credential as
   * repositories; undefined when neither is configured.
   */
  readonly pullRequests?: PullRequestAccess | undefined
}

/**
 * The result of a chat delivery. error is safe to show and log: it never contains the webhook URL.
 * rejected: the chat refused the webhook itself (revoked, unknown, not a webhook), so trying again
 * cannot help and a person must connect chat again; absent or false, a later try may succeed.
 */
export type ChatResult = { readonly ok: true } | { readonly ok: false; readonly error: string; readonly rejected?: boolean }

export interface ChatPlugin {
  /**
   * Posts text to an incoming webhook. Never throws for a refused, unreachable or private
   * address: it answers ok false with a redacted error. The text is written for Slack's mrkdwn:
   * &, < and > come as &amp;, &lt; and &gt;, and event text sits in inline code; a plugin for a
   * tool that reads no such entities decodes them (decodeChatEntities in chat-text.ts).
   */
  send(webhookUrl: string, message: { readonly text: string }): Promise<ChatResult>
}

/**
 * Thrown by codehost oauth.exchange when the code host refuses the callback's code (expired, used
 * already, or for another redirect URI): the person should sign in again, so callers answer 400.
 */
export class CodehostOAuthRejected extends Error {
  override name = 'CodehostOAuthRejected'
}

/**
 * Why an object store cannot be used: down (unreachable, 5xx, throttled; it may come back by
 * itself) or misconfigured (no such bucket or folder, credentials refused; a person must act).
 */
export type ObjectStoreFault = 'down' | 'misconfigured'

/**
 * Thrown by an objectstore plugin when the store cannot be used: callers answer 503 and a later
 * try may work. The message says what to check and never contains a secret.
 */
export class ObjectStoreUnavailable extends Error {
  override name = 'ObjectStoreUnavailable'
  constructor(
    message: string,
    /** Start-up stops on misconfigured and only warns on down: an outage must not stop ingestion. */
    readonly fault: ObjectStoreFault = 'down',
  ) {
    super(message)
  }
}

/**
 * The shape of every object key: slash-separated segments of letters, digits, dot, dash and
 * underscore, each starting with a letter or digit. Keys stay portable (file names, S3 keys without
 * encoding) and can never climb out of a folder (no "..", no leading slash).
 */
export const OBJECT_KEY = /^[a-z0-9][a-z0-9._-]*(\/[a-z0-9][a-z0-9._-]*)*$/i

/** Where large blobs (source maps, recording chunks) are kept: put, get and delete by key. */
export interface ObjectStorePlugin {
  /** Stores body under key, replacing any object there; a reader never sees half an object. Throws ObjectStoreUnavailable when the store cannot be used. */
  put(key: string, body: Buffer): Promise<void>
  /** The object under key, or undefined when there is none. Throws ObjectStoreUnavailable when the store cannot be used. */
  get(key: string): Promise<Buffer | undefined>
  /**
   * Removes the objects under keys (any number; a store batches them as it needs). A key with no
   * object is no error, so a delete can be repeated. Every key is checked before any is removed.
   * Throws ObjectStoreUnavailable when the store cannot be used.
   */
  delete(keys: readonly string[]): Promise<void>
  /** Proves the store can be used now (reachable, bucket or folder there, writable); throws ObjectStoreUnavailable saying what to fix. */
  check(): Promise<void>
  /**
   * Makes the store ready where the store itself can (an S3 bucket that does not exist yet is
   * created), then proves it as check() does. Safe to repeat and to run twice at once. Optional:
   * a store without it is made ready by its operator, and check() alone is run.
   */
  prepare?(): Promise<void>
}
