/** What every embedded service takes and returns. */
import type { Logger } from '../log.js'

export interface EmbeddedService {
  /** Connection URL for the service's client. */
  readonly url: string
  /** Stops the service and releases its data folder; safe to call twice. */
  stop(): Promise<void>
}

export interface EmbeddedOptions {
  /** The data folder; each service keeps its files in its own subfolder of it. */
  dataDir: string
  log: Logger
  /** Where a socket goes when the data folder's path is too long for one (default os.tmpdir()). */
  tmpDir?: string
}
