/** What every command starts from: validated config, a logger, and orderly shutdown on signals. */
import { ConfigError, loadConfig, type Config } from '../shared/config/index.js'
import { createLogger, type Logger } from '../shared/log.js'
import { SECOND } from '../shared/time.js'

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

/** How long a part whose supervisor died may take to stop before it exits anyway. */
const SUPERVISOR_GONE_GRACE = 10 * SECOND

/**
 * Tells the supervisor (svc up), when there is one, that this process serves. The IPC channel is
 * then unreferenced, so it does not keep a stopping process alive.
 */
export function tellReady(): void {
  if (!process.send || !process.connected) return
  process.send({ type: 'ready' })
  process.channel?.unref()
}

/**
 * Resolves on the first SIGINT or SIGTERM, or when the supervisor that started this process is gone
 * (its IPC channel closed: killed with -9, say), so no part outlives svc up. A second signal forces exit.
 */
export function untilSignal(log: Logger): Promise<string> {
  return new Promise((resolve) => {
    if (process.connected) {
      process.once('disconnect', () => {
        log.warn('supervisor gone: stopping, so that no part serves without it')
        // The supervisor took what it started with it (the embedded Redis): stop, but not for long.
        setTimeout(() => {
          log.warn('supervisor gone and stopping takes too long: exiting now')
          process.exit(1)
        }, SUPERVISOR_GONE_GRACE).unref()
        resolve('supervisor gone')
      })
    }
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
