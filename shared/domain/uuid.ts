/** Row ids as PostgreSQL's uuid type takes them. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** True when text can be a row id (anything else would make PostgreSQL refuse the query). */
export function isUuid(text: string): boolean {
  return UUID.test(text)
}
