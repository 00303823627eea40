/** One retention pass in its own process, for the kill test: node --import tsx retention-pass-child.ts <database url>. */
import { runRetentionPass } from '../../services/grouper/retention/pass.js'
import { createDb } from '../../shared/db/index.js'

const db = createDb(process.argv[2]!, { max: 2 })
const done = await runRetentionPass(db, { retentionDays: 90 })
process.stdout.write(`${JSON.stringify({ ran: done.ran, dropped: done.dropped.length, rows: done.rowsDeleted })}\n`)
await db.close()
