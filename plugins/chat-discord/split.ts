/**
 * Discord takes at most 2,000 characters of content per message. A digest with several items is
 * longer than that, and cutting it short would drop items, so a long text is split into up to
 * MAX_PARTS posts at the best boundary that fits: a blank line between paragraphs, else a line
 * break, else a space outside inline code, else a space, else a hard cut. Beyond MAX_PARTS posts
 * the last one is shortened and says so: a runaway text must not flood a channel (Discord allows a
 * webhook about five posts per two seconds, so four stay within one burst).
 */

/** Discord's limit on a message's content, in characters (counted here in UTF-16 units, which never undercounts). */
export const DISCORD_CONTENT_LIMIT = 2000

/** The most posts one message becomes. */
export const MAX_PARTS = 4

/** Ends the last part when the text was longer than MAX_PARTS posts can carry. */
export const SHORTENED = '\n… (shortened: Discord takes 2,000 characters per post)'

/** The text as the posts to send, in order, each within limit characters; a text that fits is one post. */
export function splitForDiscord(text: string, limit = DISCORD_CONTENT_LIMIT, maxParts = MAX_PARTS): string[] {
  const parts: string[] = []
  let rest = text
  while (rest.length > limit) {
    if (parts.length === maxParts - 1) {
      const cut = cutPoint(rest, limit - SHORTENED.length)
      parts.push(rest.slice(0, cut).trimEnd() + SHORTENED)
      return parts
    }
    const cut = cutPoint(rest, limit)
    parts.push(rest.slice(0, cut).trimEnd())
    rest = rest.slice(cut).trimStart()
  }
  // An empty text stays one (empty) post: Discord's answer says what is wrong with it.
  if (rest.length > 0 || parts.length === 0) parts.push(rest)
  return parts
}

/** Where to cut text so that the first piece has at most limit characters (and at least one). */
function cutPoint(text: string, limit: number): number {
  const window = text.slice(0, limit + 1)
  const paragraph = window.lastIndexOf('\n\n')
  if (paragraph > 0) return paragraph
  const line = window.lastIndexOf('\n')
  if (line > 0) return line
  const outsideCode = lastSpaceOutsideCode(window)
  if (outsideCode > 0) return outsideCode
  const space = window.lastIndexOf(' ')
  if (space > 0) return space
  // No boundary at all: a hard cut, never between the halves of a surrogate pair (an emoji).
  const code = text.charCodeAt(limit - 1)
  return code >= 0xd800 && code <= 0xdbff ? limit - 1 : limit
}

/** The last space with an even number of backticks before it (so not inside inline code), or -1. */
function lastSpaceOutsideCode(window: string): number {
  let ticks = 0
  let found = -1
  for (let i = 0; i < window.length; i++) {
    const char = window[i]
    if (char === '`') ticks++
    else if (char === ' ' && ticks % 2 === 0) found = i
  }
  return found
}
