/** The settings of codehost-github: its JSON schema (the manifest's configSchema) and their type. */
import { SECOND } from '../../shared/time.js'

/** Settings after the loader validated them and applied the defaults. */
export interface GithubSettings {
  readonly appId: string
  /** PEM; never logged, never in an error. */
  readonly privateKey: string
  readonly appSlug: string
  readonly apiUrl: string
  readonly webUrl: string
  readonly clientId?: string
  readonly clientSecret?: string
  readonly timeoutMs: number
}

/** JSON schema of the settings object (draft 2020-12). */
export const configSchema = {
  type: 'object',
  properties: {
    appId: { type: 'string', pattern: '^[A-Za-z0-9.]+$', description: "The GitHub App's id (or client id), used as the JWT issuer." },
    privateKey: { type: 'string', pattern: '-----BEGIN [A-Z ]*PRIVATE KEY-----', description: "The app's private key, PEM text." },
    appSlug: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]*$', description: 'The app\'s URL name: <webUrl>/apps/<appSlug>.' },
    apiUrl: { type: 'string', format: 'uri', default: 'https://api.github.com', description: 'REST API root; GitHub Enterprise Server: https://<host>/api/v3.' },
    webUrl: { type: 'string', format: 'uri', default: 'https://github.com', description: 'Web root, for install links and OAuth sign-in.' },
    clientId: { type: 'string', minLength: 1, description: "The app's OAuth client id; with clientSecret enables sign-in." },
    clientSecret: { type: 'string', minLength: 1, description: "The app's OAuth client secret." },
    // A setup step waits on this; GitHub answers in well under a second when it is up.
    timeoutMs: { type: 'integer', minimum: 100, default: 10 * SECOND, description: 'Per-request timeout in milliseconds.' },
  },
  required: ['appId', 'privateKey', 'appSlug'],
  dependentRequired: { clientId: ['clientSecret'], clientSecret: ['clientId'] },
  additionalProperties: false,
} as const

/** Strips trailing slashes so paths can be appended. */
export function withoutTrailingSlash(url: string): string {
  return url.replace(/\/+$/, '')
}
