/** Text of a source line as compared across builds: whitespace runs folded, ends trimmed. */
export function normalizeSourceLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim()
}
