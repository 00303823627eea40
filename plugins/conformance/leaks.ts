/**
 * What the conformance suites use to prove secrets stay put: a logger that keeps its lines, and a
 * check that text contains none of a list of secrets.
 */
import type { Test } from 'tap'
import { createLogger, type Logger } from '../../shared/log.js'

/** A debug-level logger whose lines (after the logger's own redaction) are kept in lines. */
export function capturingLogger(): { log: Logger; lines: string[] } {
  const lines: string[] = []
  return { log: createLogger('debug', {}, (line) => lines.push(line)), lines }
}

/** Asserts that text contains none of secrets (empty strings are ignored). */
export function assertNoSecrets(t: Test, text: string, secrets: readonly string[], what: string): void {
  const leaked = secrets.filter((secret) => secret !== '' && text.includes(secret))
  // The secret itself is not printed: the assertion names how many leaked, the test names where.
  t.equal(leaked.length, 0, `${what} contains no secret (${leaked.length} found)`)
}

/** The parts of a webhook URL that must never be shown: the URL, its path, and every path segment that carries an id or secret. */
export function webhookSecrets(url: string): string[] {
  if (!URL.canParse(url)) return [url]
  const parsed = new URL(url)
  const segments = parsed.pathname.split('/').filter((s) => s.length >= 6 && /\d/.test(s))
  return [url, parsed.pathname, ...segments]
}
