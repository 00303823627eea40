/**
 * What a person pastes once a project has its keys: the SDK's init, the source-map upload and the
 * tool server's entry for a coding agent, filled in with the new keys and this service's address.
 * One copy, plain text: the New project page escapes it into HTML and `svc create-project`
 * prints it. The wording follows sdk/README.md and the README's "Connect a coding agent".
 */
import type { ProjectKeys } from './create-project.js'
import { sentryDsn, sentrySnippet } from './dsn.js'

export interface ProjectSnippet {
  title: string
  /** What it is for, in one sentence. */
  hint: string
  text: string
}

/** The snippets for a project's keys (dsnNumber: its number in a Sentry DSN), served at baseUrl. */
export function projectSnippets(baseUrl: string, keys: ProjectKeys, dsnNumber: string): ProjectSnippet[] {
  const toolServer = { mcpServers: { svc: { type: 'http', url: `${baseUrl}/mcp`, headers: { Authorization: 'Bearer ${SVC_API_KEY}' } } } }
  return [
    {
      title: 'Browser SDK',
      hint: 'npm install @svc/sdk, then call init once when the app starts. The ingest key is public by design: it can only send events.',
      text: `import { init } from '@svc/sdk'\n\ninit({\n  apiKey: '${keys.ingest_key}',\n  endpoint: '${baseUrl}',\n  environment: 'production',\n})`,
    },
    {
      title: 'Coming from Sentry',
      hint: 'An app that already ships @sentry/browser (or @sentry/react, @sentry/vue) changes only its DSN; its errors land in the same issues.',
      text: sentrySnippet(sentryDsn(baseUrl, keys.ingest_key, dsnNumber)),
    },
    {
      title: 'Source maps',
      hint: 'After each production build, in CI: keep the source-map key in a secret, never in the repository.',
      text: `SVC_SOURCEMAP_KEY=${keys.sourcemap_key} SVC_ENDPOINT=${baseUrl} \\\n  npx svc-sourcemaps dist`,
    },
    {
      title: 'Tool server for a coding agent',
      hint: "Put the api key in the agent's environment as SVC_API_KEY, and this entry in its MCP configuration: the file names the variable, never the key.",
      text: `export SVC_API_KEY=${keys.api_key}\n\n${JSON.stringify(toolServer)}`,
    },
  ]
}
