/**
 * Normalises what goes into a fingerprint, so one bug keeps one issue across deploys, hosts and
 * values: origins, hashed asset names and variable parts of messages are replaced by placeholders.
 */

const MAX_MESSAGE = 500

/** A file reference without origin, query, fragment or build hash. */
export function normalizeFile(file: string): string {
  let path = file.trim()
  path = path.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '') // scheme://host:port
  path = path.replace(/[?#].*$/, '')
  // Build hashes: index-4f3a9c2b.js, main.8a7f6e5d.chunk.js, chunk-ABCD1234.js, index-BkJ2n_3x.js.
  path = path.replace(/([.-])(?=[A-Za-z0-9_]*\d)(?=[A-Za-z0-9_]*[A-Za-z])[A-Za-z0-9_]{8,}(?=\.(?:chunk\.)?m?[jt]sx?$|\.css$|\.)/g, '$1<hash>')
  path = path.replace(/([.-])[a-f0-9]{8,}(?=\.)/gi, '$1<hash>')
  return path
}

/** A message with variable parts replaced: URLs, UUIDs, hex, numbers, quoted values. */
export function normalizeMessage(message: string): string {
  return message
    .replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, '<url>')
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<uuid>')
    .replace(/\b0x[0-9a-f]+\b/gi, '<hex>')
    .replace(/\b[0-9a-f]{12,}\b/gi, '<hex>')
    .replace(/'[^']*'|"[^"]*"|`[^`]*`/g, '<value>')
    .replace(/\d+(\.\d+)?/g, '<n>')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, MAX_MESSAGE)
}
