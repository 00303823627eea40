/** What every command starts from: validated config, a logger, and orderly shutdown on signals. */
import { ConfigError, loadConfig, type Config } from '../shared/config.js'
import { createLogger, type Logger } from '../shared/log.js'

export interface Context {
  config: Config
  log: Logger
}

/** Loads config or ends the process with the config error's one-line explanation. */
export function loadContext(component: string): Context {
  try {
    const config = loadConfig()
    return { config, log: createLogger(config.logLevel, { component }) }
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`svc: configuration error: ${error.message}\n`)
      process.exit(2)
    }
    throw error
  }
}

/** The external database and Redis a separately run process needs; exits with the fix if missing. */
export function requireExternal(config: Config, command: string): { databaseUrl: string; redisUrl: string } {
  for (const [name, value] of [['DATABASE_URL', config.databaseUrl], ['REDIS_URL', config.redisUrl]] as const) {
    if (!value) {
      process.stderr.write(`svc ${command}: ${name} is not set. A separate ${command} process needs a shared database and Redis; set ${name}, or run "svc up" for the single-process embedded mode.\n`)
      process.exit(2)
    }
  }
  return { databaseUrl: config.databaseUrl!, redisUrl: config.redisUrl! }
}

/** Resolves on the first SIGINT or SIGTERM; a second one forces exit. */
export function untilSignal(log: Logger): Promise<string> {
  return new Promise((resolve) => {
    let stopping = false
    const onSignal = (signal: string): void => {
      if (stopping) {
        log.warn('second signal: exiting now', { signal })
        process.exit(130)
      }
      stopping = true
      resolve(signal)
    }
    process.on('SIGINT', onSignal)
    process.on('SIGTERM', onSignal)
  })
}
