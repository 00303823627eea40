/** Reading a sender's JSON values: what the translation and the envelope reader both ask of one. */

export type Json = Record<string, unknown>

/** A JSON object (not an array, not null). */
export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** A string field cut to max characters; '' for anything else. */
export function str(value: unknown, max: number): string {
  return typeof value === 'string' ? value.slice(0, max) : ''
}
