/**
 * Typed readers of single environment values for the config modules: each returns the value or
 * its default, or throws ConfigError naming the variable and the fix. They read the environment
 * object they are given; only shared/config/index.ts decides what that object is.
 */

/** The environment as config reads it: process variables over `.env`. */
export type Env = Readonly<Record<string, string | undefined>>

/** Thrown when the environment cannot make a valid configuration. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`)
    this.name = 'ConfigError'
  }
}

/** The trimmed value, or undefined when unset or blank. */
export function text(env: Env, name: string): string | undefined {
  const value = env[name]?.trim()
  return value === undefined || value === '' ? undefined : value
}

/** A whole number within [min, max]. */
export function int(env: Env, name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = text(env, name)
  if (raw === undefined) return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(name, `must be a whole number from ${min} to ${max}, got "${raw}". Fix or unset it (default ${fallback}).`)
  }
  return value
}

/** A TCP port (0 picks a free one). */
export function port(env: Env, name: string, fallback: number): number {
  return int(env, name, fallback, 0, 65535)
}

/** An http(s) URL without trailing slashes. */
export function url(env: Env, name: string): string | undefined {
  const raw = text(env, name)
  if (raw === undefined) return undefined
  try {
    const parsed = new URL(raw)
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('scheme')
    return raw.replace(/\/+$/, '')
  } catch {
    throw new ConfigError(name, `must be an http(s) URL such as http://localhost:8082. Fix or unset it.`)
  }
}

/** A connection URL of one of the schemes; never echoed, since it may carry a password. */
export function connectionUrl(env: Env, name: string, schemes: readonly string[]): string | undefined {
  const raw = text(env, name)
  if (raw === undefined) return undefined
  let scheme: string
  try {
    scheme = new URL(raw).protocol
  } catch {
    // Never echo the value: connection URLs carry passwords.
    throw new ConfigError(name, `is not a valid URL. Expected ${schemes.map((s) => `${s}//…`).join(' or ')}; unset it to use the embedded default.`)
  }
  if (!schemes.includes(scheme)) {
    throw new ConfigError(name, `has scheme ${scheme} but must start with ${schemes.join(' or ')}; unset it to use the embedded default.`)
  }
  return raw
}

/** One of the allowed words. */
export function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = text(env, name)
  if (raw === undefined) return fallback
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `must be one of ${allowed.join(', ')}, got "${raw}".`)
  }
  return raw as T
}

/** Freezes a value and everything inside it. */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner)
    Object.freeze(value)
  }
  return value
}
