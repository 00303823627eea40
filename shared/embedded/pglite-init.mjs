// node pglite-init.mjs <folder> <start parameters as JSON>: creates a PGlite database (with
// pgvector) in an empty folder, then exits. startEmbeddedPostgres runs this in a process of its
// own: creating a database runs initdb in a second PGlite instance and copies its files over,
// about 300 MB of WebAssembly memory that a long-running process would otherwise keep until a
// garbage collection, which an idle process may never run.
import { PGlite } from '@electric-sql/pglite'
import { vector } from '@electric-sql/pglite-pgvector'

const [dataDir, startParams] = process.argv.slice(2)
const db = await PGlite.create({ dataDir, extensions: { vector }, startParams: JSON.parse(startParams) })
await db.close()
