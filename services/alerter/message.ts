/**
 * An alert message as the chat gets it: one line per firing with the issue's title, the rule and
 * its numbers, and the link to the issue. A title is event text, so it is flattened to one short
 * line and sent as inline code with &, < and > escaped, as the digest sends titles: no mention, no
 * link and no formatting can ride in it (services/digester/text/chat-markup.ts says why).
 */
import { cleanText } from '../../shared/domain/untrusted-text.js'
import type { AlertKind } from './rules.js'

/** A firing as the message names it. */
export interface FiringLine {
  projectId: string
  issueId: string
  title: string
  kind: AlertKind
  detail: { events?: number; users?: number; spikeEvents?: number; spikeUsers?: number; spikeMinutes?: number }
}

/** Titles are cut to this many characters: a line a person reads at a glance. */
const TITLE_CHARS = 120

/** Escapes what Slack-style chats give meaning to as entities (mentions and links). */
function escapeChat(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

/** Event text as escaped inline code: a backtick would close it early, so it becomes '. */
export function inertTitle(title: string): string {
  const flat = cleanText(title, TITLE_CHARS) || '(no title)'
  return `\`${escapeChat(flat.replace(/`/g, "'"))}\``
}

/** What fired, in words, with the numbers of a spike. */
export function ruleWords(line: Pick<FiringLine, 'kind' | 'detail'>): string {
  if (line.kind === 'new_issue') return 'new issue'
  if (line.kind === 'regression') return 'regression: it came back after it was resolved'
  const { events = 0, users = 0, spikeEvents = 0, spikeUsers = 0, spikeMinutes = 0 } = line.detail
  const parts: string[] = []
  if (spikeEvents > 0 && events > spikeEvents) parts.push(`more than ${spikeEvents} events`)
  if (spikeUsers > 0 && users > spikeUsers) parts.push(`more than ${spikeUsers} users`)
  return `spike: ${parts.join(' and ') || 'past its numbers'} in ${spikeMinutes} minutes`
}

/**
 * Lines one message lists at most: a burst (a deploy that breaks everything) still makes a message
 * a person reads, and stays within what chats take (Slack cuts at 40,000 characters, Discord 2,000
 * a message); the rest are counted with a link to the project's alerts page.
 */
export const MAX_LINES = 10

/** The message folding lines, for the project named projectName, linking into the dashboard at baseUrl. */
export function composeAlert(projectName: string, baseUrl: string, lines: readonly FiringLine[]): string {
  const base = baseUrl.replace(/\/+$/, '')
  const heading = lines.length === 1 ? `Alert for ${escapeChat(cleanText(projectName, 80))}:` : `${lines.length} alerts for ${escapeChat(cleanText(projectName, 80))}:`
  const items = lines.slice(0, MAX_LINES).map((line) => `• ${inertTitle(line.title)}: ${ruleWords(line)}. ${base}/projects/${line.projectId}/issues/${line.issueId}`)
  const more = lines.length - items.length
  if (more > 0) items.push(`…and ${more} more: ${base}/projects/${lines[0]!.projectId}/alerts`)
  return [heading, ...items].join('\n')
}
