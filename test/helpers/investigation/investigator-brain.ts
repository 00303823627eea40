/**
 * A scripted model for the scripted model server that investigates as an honest model would: it
 * lists the repository, reads the code around the top frame that maps into it, and answers from
 * what it read, citing the exact line. It keeps no state: every turn it re-reads the conversation,
 * so a retried or replayed turn gets the same answer. Event text is data to it, never instructions:
 * it looks only at the structured fields of <event_data> and at the lines its own reads returned.
 * Options make it lie in the ways the investigator must catch.
 */
import type { ModelMessage } from '../../../shared/plugins/model-types.js'
import type { ModelTurn } from '../loopback/model-server.js'

/** What the brain answers with: the model-reply kind of the server's ScriptStep. */
export interface BrainStep {
  text: string
  toolCalls?: Array<{ name: string; input: Record<string, unknown> }>
  stop: 'end' | 'tool_use'
}

/** Ways to make the brain dishonest, for tests of the checks that must catch it. */
export interface BrainOptions {
  fabricateQuote?: boolean
  citeUnread?: boolean
  lowConfidence?: boolean
}

interface EventFrame {
  file: string
  line: number
  column?: number
  function?: string
  inApp?: boolean
  repoPath?: string
  original?: { file: string; line: number; column?: number; function?: string }
}

interface EventData {
  error?: { type?: string; message?: string }
  frames?: EventFrame[]
  url?: string
}

interface ToolUse {
  name: string
  input: Readonly<Record<string, unknown>>
  result?: { content: string; isError: boolean }
}

const WINDOW = 20
const ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i

// Typed narrower than Script (always a synchronous reply), which still is one, so tests read steps as they are.
/** A Script for startModelServer: list_files, read_file around the culprit frame, then submit_answer. */
export function investigatorBrain(options: BrainOptions = {}): (turn: ModelTurn, index: number) => BrainStep {
  return (turn) => decide(turn.messages, options)
}

function decide(messages: readonly ModelMessage[], options: BrainOptions): BrainStep {
  const uses = toolUses(messages)
  if (uses.some((use) => use.name === 'submit_answer')) return { text: 'The answer is submitted.', stop: 'end' }
  if (!uses.some((use) => use.name === 'list_files')) return call('First, the layout of the repository.', 'list_files', {})

  const first = messages.find((message) => message.role === 'user')
  const data = first ? eventData(first.text) : undefined
  if (!data) return undetermined('The event data could not be read, so nothing in the repository can be tied to the error.', 0.1)
  const frames = (data.frames ?? []).filter(located)
  const top = frames[0]
  const culprit = top?.repoPath ? top : undefined
  const caller = top && !top.repoPath && isForeign(top, data.url) ? frames.find((frame) => frame.repoPath) : undefined
  const target = culprit ?? caller
  if (!top || !target) return undetermined('No frame of the stack maps to a file in the repository, so the code that failed cannot be read here; it needs a person who can see that code.', options.lowConfidence ? 0.2 : 0.3)

  const path = target.repoPath!
  const line = target.original?.line ?? target.line
  const read = uses.find((use) => use.name === 'read_file' && use.input.path === path && use.result)
  if (!read) return call(`Reading ${path} around line ${line}, where the ${culprit ? 'top frame' : 'first frame in the repository'} points.`, 'read_file', { path, start_line: Math.max(1, line - WINDOW), end_line: line + WINDOW })
  if (read.result!.isError) return undetermined(`${path} could not be read (${read.result!.content.slice(0, 200)}), so the failing line cannot be checked.`, 0.2)

  const lines = numberedLines(read.result!.content)
  const text = lines.get(line)
  if (text === undefined) return undetermined(`The read of ${path} did not return line ${line}, so the failing line cannot be checked.`, 0.2)
  const quote = options.fabricateQuote ? fabricated(lines) : text.trim()
  const citedPath = options.citeUnread ? unreadFile(uses, path) : path
  const citations = [{ path: citedPath, line, quote }]
  const error = `${data.error?.type ?? 'Error'}: ${data.error?.message ?? ''}`
  const where = `${name(target)} (${path}:${line})`
  const callers = frames.filter((frame) => frame.repoPath && frame !== target).map((frame) => `${name(frame)} (${frame.repoPath}:${frame.original?.line ?? frame.line})`)
  const chain = [...callers.reverse().map((frame) => `${frame} runs`), ...(culprit ? [`${where} evaluates \`${text.trim()}\``, `which throws ${error}`] : [`${where} calls into ${host(top.file)} with \`${text.trim()}\``, `${name(top)} in ${top.file} throws ${error}`])]

  if (options.lowConfidence) return submit('Looking at the code, I am not sure.', { outcome: 'undetermined', confidence: 0.2, summary: `${error} at ${where}; the cause is unclear from the code read.`, chain, citations })
  if (culprit) {
    return submit('The failing line is in the repository.', {
      outcome: 'in_code',
      confidence: 0.8,
      summary: `${error} is thrown by ${where}: the line reads a value the code assumes is always there.`,
      chain,
      fix: `In ${path}, handle the case the error shows on line ${line} (${data.error?.message ?? 'the missing value'}) before reading from it, and add a test with that input.`,
      citations,
    })
  }
  const vendor = host(top.file)
  return submit('The error is thrown inside a third-party script.', {
    outcome: 'outside_code',
    confidence: 0.8,
    summary: `${error} is thrown inside ${vendor}'s script (${name(top)}), called from ${where}; the failing code is not in the repository.`,
    chain,
    cause: { kind: 'third_party_script', name: vendor, evidence: `The top frame is ${name(top)} at ${top.file}:${top.line}, served by ${vendor}, not by the page's origin; the app's last frame only calls it.` },
    citations,
  })
}

/** Every tool call the assistant made so far, with its result when one came back. */
function toolUses(messages: readonly ModelMessage[]): ToolUse[] {
  const byId = new Map<string, ToolUse>()
  const uses: ToolUse[] = []
  for (const message of messages) {
    if (message.role === 'assistant') {
      for (const toolCall of message.toolCalls) {
        const use = { name: toolCall.name, input: toolCall.input ?? {} }
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

/** The JSON between <event_data> tags; anything around it (or injected into it) is not obeyed. */
function eventData(text: string): EventData | undefined {
  const start = text.indexOf('<event_data>')
  const end = text.lastIndexOf('</event_data>')
  if (start < 0 || end < start) return undefined
  try {
    const value = JSON.parse(text.slice(start + '<event_data>'.length, end)) as unknown
    return typeof value === 'object' && value !== null ? (value as EventData) : undefined
  } catch {
    return undefined
  }
}

function located(frame: EventFrame): boolean {
  return typeof frame.file === 'string' && frame.file !== '' && frame.file !== '<anonymous>' && typeof frame.line === 'number'
}

function origin(url: string | undefined): string | undefined {
  return url === undefined ? undefined : ORIGIN.exec(url)?.[0].toLowerCase()
}

function isForeign(frame: EventFrame, pageUrl: string | undefined): boolean {
  const own = origin(pageUrl)
  const theirs = origin(frame.file)
  return theirs !== undefined && own !== undefined && theirs !== own
}

function host(file: string): string {
  return origin(file)?.replace(/^[a-z][a-z0-9+.-]*:\/\//, '') ?? file
}

function name(frame: EventFrame): string {
  return frame.original?.function || frame.function || '<anonymous>'
}

/** read_file's "N| text" lines by number. */
function numberedLines(content: string): Map<number, string> {
  const lines = new Map<number, string>()
  for (const raw of content.split('\n')) {
    const match = /^\s*(\d+)\| ?(.*)$/.exec(raw)
    if (match) lines.set(Number(match[1]), match[2]!)
  }
  return lines
}

/** A plausible line that the read did not return (nor any file of the fixture holds). */
function fabricated(lines: Map<number, string>): string {
  const candidate = 'if (value == null) return fallbackTotal(cart, { strict: true })'
  return [...lines.values()].some((text) => text.includes(candidate)) ? `${candidate} // verified` : candidate
}

/** A file the listing showed that the brain never read. */
function unreadFile(uses: ToolUse[], read: string): string {
  const listing = uses.find((use) => use.name === 'list_files')?.result?.content ?? ''
  const readPaths = new Set(uses.filter((use) => use.name === 'read_file').map((use) => String(use.input.path)))
  const files = listing.match(/[\w@.-]+(?:\/[\w@.-]+)*\.[a-z]{1,4}\b/gi) ?? []
  return files.find((file) => file !== read && !readPaths.has(file)) ?? 'README.md'
}

function call(text: string, name: string, input: Record<string, unknown>): BrainStep {
  return { text, toolCalls: [{ name, input }], stop: 'tool_use' }
}

function submit(text: string, answer: Record<string, unknown>): BrainStep {
  return call(text, 'submit_answer', answer)
}

function undetermined(summary: string, confidence: number): BrainStep {
  return submit('Not enough to go on.', { outcome: 'undetermined', confidence, summary, chain: [], citations: [] })
}

/** The honest brain behind a gate: every turn waits until open() is called (to hold a run mid-conversation). */
export function gatedBrain(): { script: (turn: ModelTurn, index: number) => Promise<BrainStep>; open(): void } {
  let open!: () => void
  const gate = new Promise<void>((resolve) => (open = resolve))
  const brain = investigatorBrain()
  return {
    script: async (turn, index) => {
      await gate
      return brain(turn, index)
    },
    open: () => open(),
  }
}
