/**
 * An exclusive lock on a data folder: two processes opening one PGlite folder (or appending to one
 * Redis AOF) corrupt it silently. The lock file holds the owner's pid and host name and is created
 * with O_EXCL; a lock whose owner is gone (killed, crashed, or a container that restarted) is taken
 * over. A lock written under another host name (another machine, or a container with its own pid
 * namespace sharing the folder) cannot be checked, so it is respected until someone deletes it.
 */
import { randomBytes } from 'node:crypto'
import { linkSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { join, resolve } from 'node:path'
// A referenced timer: waiting must keep the process alive (time.ts's sleep does not).
import { setTimeout as delay } from 'node:timers/promises'
import { SECOND } from '../time.js'

export const LOCK_FILE = 'svc.lock'

/** O_EXCL creates the file before the pid is written: a fresh empty lock is being written, an old one is debris. */
const EMPTY_LOCK_GRACE_MS = 5 * SECOND

export interface DirLock {
  /** Absolute path of the lock file. */
  readonly file: string
  /** Removes the lock file if this process still owns it; safe to call twice. */
  release(): void
}

/** Thrown when a live process holds the folder. */
export class DirLockedError extends Error {
  constructor(
    readonly dir: string,
    readonly pid: number,
    /** Set when the owner wrote the lock under another host name. */
    readonly host: string | undefined,
    hint: string,
  ) {
    const owner = host === undefined ? `pid ${pid}` : `pid ${pid} on host ${host}`
    const escape = host === undefined ? `If pid ${pid} is not svc` : 'If it no longer runs'
    super(`Another svc process (${owner}) holds ${dir}. Stop it, or ${hint}. (${escape}, delete ${join(dir, LOCK_FILE)}.)`)
    this.name = 'DirLockedError'
  }
}

/**
 * Lock files this process holds. A lock naming our own pid that is not in here was left by an
 * earlier process that had the same pid (containers restart with the same small pids): stale.
 */
const held = new Set<string>()

/** Takes the lock on dir (creating dir) or throws DirLockedError; `hint` completes "Stop it, or …". */
export async function lockDir(dir: string, hint = 'use another data folder'): Promise<DirLock> {
  const root = resolve(dir)
  mkdirSync(root, { recursive: true })
  const file = join(root, LOCK_FILE)
  // Each turn either takes the lock, throws, or sees it change hands; an empty lock past its grace is debris.
  const deadline = Date.now() + EMPTY_LOCK_GRACE_MS + SECOND
  while (Date.now() < deadline) {
    if (tryCreate(file)) {
      held.add(file)
      return { file, release: () => release(file) }
    }
    const owner = readOwner(file)
    if (owner === 'gone') continue // released between our attempt and the read
    if (owner === 'being-written') {
      await delay(20)
      continue
    }
    if (typeof owner === 'object') {
      if (owner.host !== hostname()) throw new DirLockedError(root, owner.pid, owner.host, hint)
      if (isHeld(owner.pid, file)) throw new DirLockedError(root, owner.pid, undefined, hint)
    }
    takeOver(file, owner)
  }
  throw new Error(`Could not lock ${root}: its lock file keeps changing. Is another svc starting in the same folder?`)
}

function tryCreate(file: string): boolean {
  try {
    writeFileSync(file, `${process.pid}\n${hostname()}\n`, { flag: 'wx' })
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw error
  }
}

/** A lock without a host line (written by hand, or by an older svc) is taken as this host's. */
type Owner = { pid: number; host: string } | 'gone' | 'being-written' | 'unreadable'

function readOwner(file: string): Owner {
  let text: string
  try {
    text = readFileSync(file, 'utf8').trim()
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'gone'
    throw error
  }
  if (text === '') {
    const age = Date.now() - statMtime(file)
    return age < EMPTY_LOCK_GRACE_MS ? 'being-written' : 'unreadable'
  }
  const [first, second] = text.split('\n')
  const pid = Number(first)
  if (!Number.isSafeInteger(pid) || pid <= 0) return 'unreadable'
  return { pid, host: second?.trim() || hostname() }
}

function statMtime(file: string): number {
  try {
    return statSync(file).mtimeMs
  } catch {
    return 0
  }
}

function isHeld(pid: number, file: string): boolean {
  if (pid === process.pid) return held.has(file)
  try {
    process.kill(pid, 0)
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
  return !isZombie(pid)
}

/** A killed process lingers as a zombie until its parent reaps it; it holds nothing any more. */
function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z'
  } catch {
    return false // no /proc (macOS) or already gone
  }
}

/**
 * Moves a stale lock aside atomically, so two processes taking over the same stale lock cannot
 * delete each other's fresh one: whoever renamed a lock that was no longer the stale one puts it back.
 */
function takeOver(file: string, stale: Exclude<Owner, 'gone' | 'being-written'>): void {
  const aside = `${file}.stale-${process.pid}-${randomBytes(4).toString('hex')}`
  try {
    renameSync(file, aside)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
    throw error
  }
  if (!sameOwner(readOwner(aside), stale)) {
    try {
      linkSync(aside, file)
    } catch {
      // Someone locked in the meantime; their lock stands.
    }
  }
  rmSync(aside, { force: true })
}

function sameOwner(a: Owner, b: Owner): boolean {
  return typeof a === 'object' && typeof b === 'object' ? a.pid === b.pid && a.host === b.host : a === b
}

function release(file: string): void {
  if (!held.delete(file)) return
  if (sameOwner(readOwner(file), { pid: process.pid, host: hostname() })) rmSync(file, { force: true })
}
