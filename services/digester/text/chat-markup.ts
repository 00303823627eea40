/**
 * How text reaches the team's chat inert. Slack's mrkdwn gives meaning to &, < and > (mentions such
 * as <!channel>, links <url|label>) and, at the edges of words, to *, _, ~ and ` (bold, italic,
 * strike, code). Only &, < and > have escapes (entities); the formatting characters have none, and a
 * zero-width space beside one is no escape either: Slack formats only at word edges, and a
 * zero-width space makes an edge (that is how formatting is forced mid-word). What Slack does not
 * touch is inline code: nothing inside it is formatted, linked or mentioned. So text of events
 * (titles, messages, addresses) goes out as inline code, in mechanical lines and in a model's
 * paragraphs alike, and a paragraph that still carries formatting outside inline code is refused.
 */

/** Escapes the three characters Slack gives meaning to as entities (mentions and links). */
export function escapeChat(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

/**
 * Text as inline code. A backtick would close the code early and let the rest format, and a line
 * break would end it, so they become ' and a space.
 */
export function inlineCode(text: string): string {
  return `\`${text.replace(/`/g, "'").replace(/[\r\n]+/g, ' ')}\``
}

/** The characters that format in Slack (besides & < >, which are escaped everywhere). */
const FORMATTING = /[*_~`]/

/**
 * A model's paragraph with every occurrence of eventText outside inline code put inside it, as in
 * the mechanical line: a title the model repeated in quotes or bare cannot format. Only text that
 * could format is quoted; the rest reads better as it was written.
 */
export function quoteEventText(paragraph: string, eventText: string): string {
  const forms = [...new Set([eventText, eventText.replace(/`/g, "'")])].filter((form) => form.trim() !== '' && FORMATTING.test(form))
  if (forms.length === 0) return paragraph
  forms.sort((a, b) => b.length - a.length)
  let out = ''
  let inCode = false
  for (let i = 0; i < paragraph.length; ) {
    const form = inCode ? undefined : forms.find((candidate) => paragraph.startsWith(candidate, i))
    if (form !== undefined) {
      out += inlineCode(form)
      i += form.length
      continue
    }
    if (paragraph[i] === '`') inCode = !inCode
    out += paragraph[i]
    i += 1
  }
  return out
}

/** An address as the check reads it (the links it checks are its own, and Slack does not format inside one). */
const URL_PATTERN = /https?:\/\/[^\s<>()"']+/g
/** An underscore at a word's edge: where Slack starts or ends italics (snake_case inside a word stays). */
const EDGE_UNDERSCORE = /(?:^|[^\p{L}\p{N}])_|_(?:$|[^\p{L}\p{N}])/u

/**
 * What in a paragraph would format in Slack outside inline code and addresses, in words, or
 * undefined when nothing would: an unpaired backtick (the rest would be code, or close a span
 * early), an empty pair (a code block's fence), an asterisk or a tilde, an underscore at a word's
 * edge. Stricter than Slack, which formats only pairs at word edges: what passes renders literally.
 */
export function liveMarkup(paragraph: string): string | undefined {
  const parts = paragraph.split('`')
  if (parts.length % 2 === 0) return 'an unpaired backtick'
  for (let i = 0; i < parts.length; i++) {
    if (i % 2 === 1) {
      if (parts[i] === '') return 'an empty code span'
      continue
    }
    const prose = parts[i]!.replace(URL_PATTERN, ' ')
    if (prose.includes('*')) return 'an asterisk'
    if (prose.includes('~')) return 'a tilde'
    if (EDGE_UNDERSCORE.test(prose)) return 'an underscore at the edge of a word'
  }
  return undefined
}
