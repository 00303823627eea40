/** svc create-project: a project and its three keys, for scripts; the keys are printed once on stdout. */
import { Command, Option } from 'clipanion'
import { checkNewProject, createProjectWithKeys, type CreatedProject } from '../../services/web/projects/create-project.js'
import { sentryDsn } from '../../services/web/projects/dsn.js'
import { projectSnippets } from '../../services/web/projects/snippets.js'
import { withCommandDb } from '../command-db.js'
import { loadContext } from '../context.js'
import { CommandStop } from '../friction/target.js'

export class CreateProjectCommand extends Command {
  static override paths = [['create-project']]
  static override usage = Command.Usage({
    description:
      'Create a project with an ingest, a source-map and an api key. The keys are printed once on stdout (with the Sentry DSN, the SDK snippets, the source-map command and the tool server entry filled in; --json: one JSON object) and only their hashes are stored. --owner-email gives it to that account, whose dashboard then lists it. A refusal exits 2 for a flag to fix and 1 for an unknown owner or a database that cannot answer; with --json it is {"code", "message"} on stderr.',
    examples: [
      ['For a person', 'svc create-project --name Shop --repo acme/shop --owner-email me@example.com'],
      ['For a script', 'umask 077; svc create-project --name Shop --json > .svc/keys.json'],
    ],
  })

  name = Option.String('--name', { description: 'Project name (1 to 200 characters)' })
  repo = Option.String('--repo', '', { description: 'Repository as owner/name (stored unchecked; with a code host app, attach it in the project settings instead)' })
  ownerEmail = Option.String('--owner-email', { description: 'Email of the account that owns the project' })
  json = Option.Boolean('--json', false, { description: 'Print one JSON object instead of text' })

  async execute(): Promise<number> {
    const { config, log } = loadContext('create-project')
    const { stdout, stderr } = this.context
    try {
      if (this.name === undefined) throw new CommandStop(2, '--name is required: the project name, such as the app\'s name.', 'missing_flag')
      const checked = checkNewProject({ name: this.name, repo: this.repo })
      if (!checked.ok) throw new CommandStop(2, `--${checked.field}: ${checked.message}`, checked.code)
      // The code host must see a repository before it is attached; only the settings page asks it.
      if (checked.repo !== '' && config.plugins.codehost) {
        throw new CommandStop(2, '--repo cannot be checked from here: this service has a code host app, which must confirm the repository. Create the project without --repo and attach it in the project settings.', 'repo_needs_codehost_check')
      }
      const created = await withCommandDb(config, log, async (db) => {
        let ownerId: string | null = null
        if (this.ownerEmail !== undefined) {
          const { rows } = await db.query<{ id: string }>('SELECT id FROM users WHERE lower(email) = lower($1)', [this.ownerEmail.trim()])
          if (!rows[0]) throw new CommandStop(1, `no account has the email ${JSON.stringify(this.ownerEmail.trim())}. Sign up on the dashboard first, or leave --owner-email out.`, 'owner_not_found')
          ownerId = rows[0].id
        }
        return createProjectWithKeys(db, { name: checked.name, repo: checked.repo, ownerId, keyLabel: 'svc create-project' })
      })
      // Logged without the keys: this line and stdout are the only traces of the command.
      log.info('project created', { project_id: created.projectId, via: 'svc create-project' })
      stdout.write(this.json ? `${JSON.stringify(asJson(config.baseUrl, created))}\n` : asText(config.baseUrl, created))
      if (!this.json) stderr.write(`The keys are shown once; store them now.${this.ownerEmail === undefined ? ' The project has no owner: no dashboard lists it until it gets one (--owner-email).' : ''}\n`)
      return 0
    } catch (error) {
      const stop = error instanceof CommandStop ? error : new CommandStop(1, (error as Error).message, 'failed')
      stderr.write(this.json ? `${JSON.stringify({ code: stop.code, message: stop.message })}\n` : `svc create-project: ${stop.message}\n`)
      return stop.exitCode
    }
  }
}

function asJson(baseUrl: string, created: CreatedProject): Record<string, unknown> {
  return { project_id: created.projectId, name: created.name, repo: created.repo, dashboard_url: `${baseUrl}/projects/${created.projectId}`, ...created.keys, sentry_dsn: sentryDsn(baseUrl, created.keys.ingest_key, created.dsnNumber) }
}

function asText(baseUrl: string, created: CreatedProject): string {
  const lines = [
    `project ${created.projectId} ${JSON.stringify(created.name)}${created.repo ? ` (repository ${created.repo})` : ''}`,
    `dashboard: ${baseUrl}/projects/${created.projectId}`,
    `ingest key:     ${created.keys.ingest_key}`,
    `source-map key: ${created.keys.sourcemap_key}`,
    `api key:        ${created.keys.api_key}`,
    `sentry dsn:     ${sentryDsn(baseUrl, created.keys.ingest_key, created.dsnNumber)}`,
  ]
  for (const snippet of projectSnippets(baseUrl, created.keys, created.dsnNumber)) lines.push('', `# ${snippet.title}: ${snippet.hint}`, snippet.text)
  return `${lines.join('\n')}\n`
}
