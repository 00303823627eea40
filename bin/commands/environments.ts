/** svc environments: a project's environments with the UUIDs svc backfill-tickets and svc reset-friction-tickets take. */
import { Command, Option } from 'clipanion'
import { getEnvironmentFacts, type EnvironmentFacts } from '../../services/grouper/read/environments.js'
import { CommandStop, noProject, parseProject, printable, projectExists, withStackDb } from '../friction/target.js'
import { loadContext } from '../context.js'

export class EnvironmentsCommand extends Command {
  static override paths = [['environments']]
  static override usage = Command.Usage({
    description:
      "List a project's environments by name: each one's UUID (what --environment of svc backfill-tickets and svc reset-friction-tickets takes), when an event or recording first named it, its recordings (closed ones: what a backfill looks at) and their latest activity, and its known problems that are not archived (what a reset archives). --json prints the same as JSON; a refusal is then a JSON object with a code on stderr. Exit 2 for a flag to fix, 1 for an unknown project or a database that cannot answer. Needs DATABASE_URL when run from a host checkout (docs/upgrade-078.md).",
    examples: [
      ['As a table', 'svc environments --project <project uuid>'],
      ['For a script', 'svc environments --project <project uuid> --json'],
    ],
  })

  project = Option.String('--project', { description: 'Project UUID' })
  json = Option.Boolean('--json', false, { description: 'Print JSON instead of a table' })

  async execute(): Promise<number> {
    const { config, log } = loadContext('environments')
    const { stdout, stderr } = this.context
    try {
      const projectId = parseProject(this.project)
      const environments = await withStackDb(config, log, async (db) => {
        if (!(await projectExists(db, projectId))) throw new CommandStop(1, noProject(projectId), 'project_not_found')
        return getEnvironmentFacts(db, projectId)
      })
      stdout.write(this.json ? `${JSON.stringify({ project_id: projectId, environments: environments.map(asJson) })}\n` : table(projectId, environments))
      return 0
    } catch (error) {
      const stop = error instanceof CommandStop ? error : new CommandStop(1, (error as Error).message, 'failed')
      stderr.write(this.json ? `${JSON.stringify({ code: stop.code, message: stop.message })}\n` : `svc environments: ${stop.message}\n`)
      return stop.exitCode
    }
  }
}

function asJson(environment: EnvironmentFacts): Record<string, unknown> {
  return {
    id: environment.id,
    name: environment.name,
    created_at: environment.created_at.toISOString(),
    recordings: environment.recordings,
    closed_recordings: environment.closed_recordings,
    last_recording_at: environment.last_recording_at?.toISOString() ?? null,
    known_problems: environment.known_problems,
  }
}

/** To the second, in UTC, as the column says. */
function when(at: Date | null): string {
  return at ? at.toISOString().slice(0, 19).replace('T', ' ') : '-'
}

function table(projectId: string, environments: EnvironmentFacts[]): string {
  if (environments.length === 0) return `Project ${projectId} has no environment yet: one is made when the first event or recording naming it is stored.\n`
  const rows = [
    ['UUID', 'NAME', 'FIRST NAMED (UTC)', 'RECORDINGS', 'CLOSED', 'LAST RECORDING (UTC)', 'KNOWN PROBLEMS'],
    ...environments.map((e) => [e.id, printable(e.name), when(e.created_at), String(e.recordings), String(e.closed_recordings), when(e.last_recording_at), String(e.known_problems)]),
  ]
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)))
  return rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd()).join('\n') + '\n'
}
