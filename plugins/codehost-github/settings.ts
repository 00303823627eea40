/** The settings of codehost-github: its JSON schema (the manifest's configSchema) and their type. */
import { SECOND } from '../../shared/time.js'

/** Settings after the loader validated them and applied the defaults. */
export interface GithubSettings {
  /** appId, privateKey and appSlug come together (the GitHub App), or not at all (token only). */
  readonly appId?: string
  /** PEM; never logged, never in an error. */
  readonly privateKey?: string
  readonly appSlug?: string
  /** A fine-grained personal access token (CODEHOST_TOKEN) for reading repositories and delivering fixes; never logged, never in argv or an error. */
  readonly token?: string
  readonly apiUrl: string
  readonly webUrl: string
  readonly clientId?: string
  readonly clientSecret?: string
  readonly timeoutMs: number
  readonly cloneTimeoutMs: number
}

/** The settings when a GitHub App is configured. */
export type GithubAppSettings = GithubSettings & { readonly appId: string; readonly privateKey: string; readonly appSlug: string }

const APP = ['appId', 'privateKey', 'appSlug'] as const

/** JSON schema of the settings object (draft 2020-12). */
export const configSchema = {
  type: 'object',
  properties: {
    appId: { type: 'string', pattern: '^[A-Za-z0-9.]+$', description: "The GitHub App's id (or client id), used as the JWT issuer." },
    privateKey: { type: 'string', pattern: '-----BEGIN [A-Z ]*PRIVATE KEY-----', description: "The app's private key, PEM text." },
    appSlug: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]*$', description: 'The app\'s URL name: <webUrl>/apps/<appSlug>.' },
    // No whitespace: the askpass helper prints it as one line.
    token: { type: 'string', pattern: '^\\S+$', description: 'A fine-grained personal access token, used instead of the app: Contents: read on the repositories to read them; to deliver fixes also Contents and Pull requests: read and write, Checks and Commit statuses: read.' },
    apiUrl: { type: 'string', format: 'uri', default: 'https://api.github.com', description: 'REST API root; GitHub Enterprise Server: https://<host>/api/v3.' },
    webUrl: { type: 'string', format: 'uri', default: 'https://github.com', description: 'Web root, for install links and OAuth sign-in.' },
    clientId: { type: 'string', minLength: 1, description: "The app's OAuth client id; with clientSecret (and the app) enables sign-in." },
    clientSecret: { type: 'string', minLength: 1, description: "The app's OAuth client secret." },
    // A setup step waits on this; GitHub answers in well under a second when it is up.
    timeoutMs: { type: 'integer', minimum: 100, default: 10 * SECOND, description: 'Per-request timeout in milliseconds.' },
    // A shallow fetch of a large monorepo takes tens of seconds; past two minutes the host is stuck.
    cloneTimeoutMs: { type: 'integer', minimum: 1 * SECOND, default: 120 * SECOND, description: 'Time limit of one clone (git fetch and checkout), or of one push of a fix (commit and git push), in milliseconds.' },
  },
  // Either the app or a token: the app alone reads through installation tokens, a token alone
  // reads repositories but offers no install link, attach checks by the app, or sign-in.
  anyOf: [{ required: ['appId'] }, { required: ['token'] }],
  dependentRequired: {
    appId: ['privateKey', 'appSlug'],
    privateKey: ['appId', 'appSlug'],
    appSlug: ['appId', 'privateKey'],
    // Sign-in is the app's: its client id and secret mean nothing without it.
    clientId: ['clientSecret', 'appId'],
    clientSecret: ['clientId'],
  },
  additionalProperties: false,
} as const

/** The settings narrowed to an app configuration, or undefined when only a token is configured. */
export function appSettings(settings: GithubSettings): GithubAppSettings | undefined {
  return APP.every((key) => typeof settings[key] === 'string') ? (settings as GithubAppSettings) : undefined
}

/** Strips trailing slashes so paths can be appended. */
export function withoutTrailingSlash(url: string): string {
  return url.replace(/\/+$/, '')
}
