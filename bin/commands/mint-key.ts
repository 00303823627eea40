/** svc mint-key: create a key for a project and print it exactly once. */
import { Command, Option } from 'clipanion'
import { mintKey, type KeyKind } from '../../shared/keys.js'
import { withCommandDb } from '../command-db.js'
import { loadContext } from '../context.js'

const KINDS: readonly KeyKind[] = ['ingest', 'sourcemap', 'api']
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export class MintKeyCommand extends Command {
  static override paths = [['mint-key']]
  static override usage = Command.Usage({
    description: 'Create a key for a project. The key is printed once on stdout and only its hash is stored.',
    examples: [['A source-map key for CI', 'svc mint-key --project 00000000-0000-4000-8000-00000000e2e0 --kind sourcemap --label ci > sourcemap.key']],
  })

  project = Option.String('--project', { required: true, description: 'Project UUID' })
  kind = Option.String('--kind', { required: true, description: 'ingest, sourcemap or api' })
  label = Option.String('--label', '', { description: 'A note on where the key is used' })

  async execute(): Promise<number> {
    const { config, log } = loadContext('mint-key')
    if (!KINDS.includes(this.kind as KeyKind)) {
      this.context.stderr.write(`svc mint-key: --kind must be one of ${KINDS.join(', ')}.\n`)
      return 2
    }
    if (!UUID.test(this.project)) {
      this.context.stderr.write('svc mint-key: --project must be a project UUID.\n')
      return 2
    }
    // Without DATABASE_URL the key goes into the embedded database.
    try {
      return await withCommandDb(config, log, async (db) => {
        const { rows } = await db.query('SELECT 1 FROM projects WHERE id = $1', [this.project])
        if (rows.length === 0) {
          this.context.stderr.write(`svc mint-key: no project ${this.project}. Check the id in the dashboard or with the setup session's project_id.\n`)
          return 1
        }
        const { token } = await mintKey(db, this.project, this.kind as KeyKind, this.label)
        // The only place the key ever appears: stdout of this command, for a file or a secret store.
        this.context.stdout.write(`${token}\n`)
        this.context.stderr.write('This key is shown once; store it now.\n')
        return 0
      })
    } catch (error) {
      this.context.stderr.write(`svc mint-key: ${(error as Error).message}\n`)
      return 1
    }
  }
}
