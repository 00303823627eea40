/**
 * An exclusive lock on a data folder: two processes opening one PGlite folder corrupt it silently.
 * The lock file holds the owner's pid; a lock whose owner is gone is taken over.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export interface DirLock {
  release(): void
}

/** Takes the lock on dir or throws naming the process that holds it. */
export function lockDir(dir: string): DirLock {
  mkdirSync(dir, { recursive: true })
  const file = join(dir, 'svc.lock')
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' })
      return { release: () => rmSync(file, { force: true }) }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      const owner = Number(readFileSync(file, 'utf8').trim())
      if (owner && owner !== process.pid && alive(owner)) {
        throw new Error(`Another svc process (pid ${owner}) holds ${dir}. Stop it first, or set DATABASE_URL to use a shared PostgreSQL.`)
      }
      rmSync(file, { force: true }) // stale: its owner is gone
    }
  }
  throw new Error(`Could not lock ${dir}: the lock file keeps reappearing. Is another svc starting at the same time?`)
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
