/**
 * A scripted model for known-problem investigations (docs/known-problems.md, "Investigating a known
 * problem"): it lists the repository, searches for the clicked element's id taken from the
 * structured data between the <event_data> tags (nothing around or inside it is obeyed), reads the
 * line that names it and answers in_code citing that line exactly; without a hit, undetermined.
 * Stateless: every turn re-reads the conversation.
 */
import type { ModelMessage } from '../../../shared/plugins/model-types.js'
import type { BrainStep } from './investigator-brain.js'
import type { ModelTurn } from '../loopback/model-server.js'

interface Use {
  name: string
  input: Readonly<Record<string, unknown>>
  result?: { content: string; isError: boolean }
}

/** A Script for startModelServer. */
export function frictionBrain(): (turn: ModelTurn, index: number) => BrainStep {
  return (turn) => decide(turn.messages)
}

function decide(messages: readonly ModelMessage[]): BrainStep {
  const uses = toolUses(messages)
  if (uses.some((use) => use.name === 'submit_answer')) return { text: 'Submitted.', stop: 'end' }
  if (!uses.some((use) => use.name === 'list_files')) return call('list_files', {})
  const first = messages.find((message) => message.role === 'user')
  const target = first ? problemTarget(first.text) : undefined
  const id = target ? /#([\w-]+)/.exec(target)?.[1] : undefined
  if (!id) return undetermined('The clicked element has no id to look for.')
  const search = uses.find((use) => use.name === 'search')
  if (!search) return call('search', { text: id })
  const hit = /^([^:\n]+):(\d+):/m.exec(search.result?.content ?? '')
  if (!hit) return undetermined(`Nothing in the repository names ${id}.`)
  const [path, line] = [hit[1]!, Number(hit[2])]
  const read = uses.find((use) => use.name === 'read_file')
  if (!read) return call('read_file', { path, start_line: Math.max(1, line - 5), end_line: line + 5 })
  const quote = numberedLines(read.result?.content ?? '').get(line)
  if (!quote) return undetermined(`The read of ${path} did not return line ${line}.`)
  return call('submit_answer', {
    outcome: 'in_code',
    confidence: 0.8,
    summary: `The element ${id} is wired up in ${path}, and its click changes nothing the user can see.`,
    chain: [`The user clicks ${id}.`, `The handler at ${path}:${line} runs.`, 'Nothing on the page changes, so the user clicks again.'],
    fix: `Show feedback when ${id} is clicked.`,
    citations: [{ path, line, quote }],
  })
}

/** problem.target of the JSON between <event_data> tags. */
function problemTarget(text: string): string | undefined {
  const start = text.indexOf('<event_data>')
  const end = text.lastIndexOf('</event_data>')
  if (start < 0 || end < start) return undefined
  try {
    const data = JSON.parse(text.slice(start + '<event_data>'.length, end)) as { problem?: { target?: unknown } }
    return typeof data.problem?.target === 'string' ? data.problem.target : undefined
  } catch {
    return undefined
  }
}

function toolUses(messages: readonly ModelMessage[]): Use[] {
  const byId = new Map<string, Use>()
  const uses: Use[] = []
  for (const message of messages) {
    if (message.role === 'assistant') {
      for (const toolCall of message.toolCalls) {
        const use: Use = { name: toolCall.name, input: toolCall.input ?? {} }
        byId.set(toolCall.id, use)
        uses.push(use)
      }
    } else if (message.role === 'tool') {
      for (const result of message.results) {
        const use = byId.get(result.callId)
        if (use) use.result = { content: result.content, isError: result.isError }
      }
    }
  }
  return uses
}

function numberedLines(content: string): Map<number, string> {
  const lines = new Map<number, string>()
  for (const raw of content.split('\n')) {
    const match = /^\s*(\d+)\| ?(.*)$/.exec(raw)
    if (match) lines.set(Number(match[1]), match[2]!)
  }
  return lines
}

function call(name: string, input: Record<string, unknown>): BrainStep {
  return { text: `Calling ${name}.`, toolCalls: [{ name, input }], stop: 'tool_use' }
}

function undetermined(summary: string): BrainStep {
  return call('submit_answer', { outcome: 'undetermined', confidence: 0.2, summary, chain: [], citations: [] })
}
