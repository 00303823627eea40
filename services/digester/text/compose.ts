/**
 * The digest's words that the digester writes itself: each item's mechanical line (the fallback
 * the check trusts, made only of frozen facts), the message around the items, and the test message
 * that connects a chat. Text that came from events or a model is made inert for chat markup
 * (chat-markup.ts), so it cannot mention a channel, hide a link or format the team's channel.
 */
import { escapeChat, inlineCode } from './chat-markup.js'
import { DIGEST_TIME } from '../schedule.js'
import type { ItemLink, ItemOutcome } from '../store/entities.js'

/** The frozen facts a line is made of. */
export interface ItemFacts {
  position: number
  subject: 'issue' | 'known_problem'
  title: string
  outcome: ItemOutcome
  users: number
  prUrl: string
  links: readonly ItemLink[]
}

/** Each outcome in plain words: never a state name or a reason code. */
export const OUTCOME_WORDS: Readonly<Record<ItemOutcome, string>> = Object.freeze({
  cause_found: 'the cause was found in your code',
  outside_code: 'the cause is outside your code',
  fix_draft: 'a fix is proposed in a draft pull request',
  fix_ready: 'a fix is ready for review',
  fix_held: 'its merged fix held in production',
  fix_came_back: 'it came back after its fix was merged',
})

/** One entry as a plain line from its facts alone. */
export function mechanicalLine(item: Omit<ItemFacts, 'position'>): string {
  const what = item.subject === 'known_problem' ? `Known problem ${inlineCode(item.title)}` : inlineCode(item.title)
  const users = `${item.users} ${item.users === 1 ? 'user' : 'users'} affected`
  const pr = item.prUrl ? ` Pull request: ${item.prUrl}` : ''
  const details = item.links.find((link) => link.url !== item.prUrl)
  return `${what}: ${OUTCOME_WORDS[item.outcome]}; ${users}.${pr}${details ? ` Details: ${details.url}` : ''}`
}

/** The message as sent: a heading, then each item's line (written or mechanical), one per paragraph. */
export function composeMessage(projectName: string, localDate: string, lines: readonly string[]): string {
  const heading = `Daily digest for ${escapeChat(projectName)}, ${localDate}: ${lines.length} ${lines.length === 1 ? 'update' : 'updates'} since the last digest.`
  return [heading, ...lines.map((line) => `• ${escapeChat(line)}`)].join('\n\n')
}

/** The message a new webhook is tested with: when the digest will come, its zone named (an IANA name, UTC by default). */
export function connectedMessage(projectName: string, zone: string): string {
  return `svc is connected to ${escapeChat(projectName)}: its daily digest will be posted here around ${DIGEST_TIME} ${zone}, the project's time zone (change it in the project's settings).`
}
