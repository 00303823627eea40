/**
 * Scripted models for the fix stage, for the scripted model server. The fixer builds a fix as an
 * honest model would: it reads the file the investigation cited, writes a test that reproduces the
 * bug, declares it, edits the code, runs the test with the template's command and submits. The
 * reviewer gives its verdict on the diff and the evidence. Like investigator-brain they keep no
 * state: every turn re-reads the conversation, and only the JSON of <fix_data> and the results of
 * their own tool calls steer them. Options make the fixer dishonest or unlucky in the ways the fix
 * stage must catch; serviceBrain routes each turn to the brain its tools call for.
 */
import type { ModelMessage } from '../../../shared/plugins/model-types.js'
import { investigatorBrain, type BrainOptions, type BrainStep } from './investigator-brain.js'
import { codeEdits, existingTestPath, formatEdit, regressionTestPath, sibling, testCommand, testSource, type Edit } from './fixer-brain-code.js'
import type { ModelTurn } from '../loopback/model-server.js'

/** Ways to make the fixer dishonest or unlucky, one per test of the fix stage. */
export interface FixerOptions {
  /** Declares a test that passes without the fix (it checks itemCount); still fixes the code. */
  alreadyPasses?: boolean
  /** The fix also makes formatPrice say "Free" for zero, which format.test.ts forbids. */
  breaksOther?: boolean
  /** Never writes or declares a test; fixes the code; submits with regression_test ''. */
  noTest?: boolean
  /** Its first run_command is `sleep 600`; then it goes on honestly. */
  hang?: boolean
  /** Its first run_command floods the output (`yes svc`); then it goes on honestly. */
  flood?: boolean
  /** Its edit of the failing line leaves a syntax error. */
  brokenBuild?: boolean
  /** Lists and reads files for ever, never submitting. */
  never?: boolean
}

/** The reviewer approves unless veto is set. */
export interface ReviewerOptions {
  veto?: boolean
}

/** Options of each stage's brain in serviceBrain. */
export interface ServiceBrainOptions {
  investigation?: BrainOptions
  fix?: FixerOptions
  review?: ReviewerOptions
}

/** What the fix conversation's first message carries between <fix_data> tags. */
interface FixData {
  error?: { type?: string; message?: string }
  summary?: string
  fix?: string
  citations?: Array<{ path?: string; line_start?: number; line_end?: number; quote?: string }>
  test_command?: string
}

interface ToolUse {
  name: string
  input: Readonly<Record<string, unknown>>
  result?: { content: string; isError: boolean }
}

/** One tool call the fixer plans, with what it says as it makes it. */
interface Step {
  text: string
  name: string
  input: Record<string, unknown>
}

type Brain = (turn: ModelTurn, index: number) => BrainStep

/** A Script for startModelServer that builds the fix the investigation proposed. */
export function fixerBrain(options: FixerOptions = {}): Brain {
  return (turn) => fixTurn(turn.messages, options)
}

/** A Script for startModelServer that reviews a fix: review_verdict, approving unless veto. */
export function reviewerBrain(options: ReviewerOptions = {}): Brain {
  return (turn) => reviewTurn(turn.messages, options)
}

/** One Script for the whole service: submit_answer → investigator, submit_fix → fixer, review_verdict → reviewer. */
export function serviceBrain(options: ServiceBrainOptions = {}): Brain {
  const investigate = investigatorBrain(options.investigation)
  const fix = fixerBrain(options.fix)
  const review = reviewerBrain(options.review)
  return (turn, index) => {
    if (turn.tools.includes('submit_answer')) return investigate(turn, index)
    if (turn.tools.includes('submit_fix')) return fix(turn, index)
    if (turn.tools.includes('review_verdict')) return review(turn, index)
    throw new Error(`serviceBrain: no stage offers these tools: ${turn.tools.join(', ') || 'none'}`)
  }
}

function fixTurn(messages: readonly ModelMessage[], options: FixerOptions): BrainStep {
  const uses = toolUses(messages)
  if (uses.some((use) => use.name === 'submit_fix')) return { text: 'The fix is submitted.', stop: 'end' }
  const data = tagged<FixData>(firstUserText(messages), 'fix_data')
  const citation = data?.citations?.find((cited) => typeof cited.path === 'string' && cited.path !== '')
  if (!data || !citation) return submitFix('The fix data could not be read, so there is nothing to fix here.', '')
  const path = citation.path!
  const line = citation.line_start ?? 1

  const first = options.hang ? 'sleep 600' : options.flood ? 'yes svc' : undefined
  if (first !== undefined && !uses.some((use) => use.name === 'run_command')) return call('Checking the sandbox before changing anything.', 'run_command', { command: first })
  if (options.never) return wander(uses, path)

  const read = [...uses].reverse().find((use) => use.name === 'read_file' && use.input.path === path && use.result)
  if (!read) return call(`Reading ${path}, where the investigation points (line ${line}).`, 'read_file', { path })
  if (read.result!.isError) return submitFix(`${path} could not be read (${read.result!.content.slice(0, 200)}), so no fix was made.`, '')

  const testPath = regressionTestPath(path)
  const command = testCommand(data.test_command, options.noTest ? existingTestPath(path) : testPath)
  const steps: Step[] = []
  if (!options.noTest) {
    const kind = options.alreadyPasses ? 'count' : 'gift'
    steps.push({ text: `A test with the cart the error came from: a gift line without a price.`, name: 'write_file', input: { path: testPath, content: testSource(kind, path) } })
    steps.push({ text: `${testPath} is the regression test.`, name: 'declare_test', input: { path: testPath } })
  }
  for (const edit of codeEdits(path, read.result!.content, line, citation.quote ?? '', options.brokenBuild === true)) steps.push(editStep(edit))
  if (options.breaksOther) {
    const formatPath = sibling(path, 'format.ts')
    const formatRead = { text: `Reading ${formatPath}, which formats the total.`, name: 'read_file', input: { path: formatPath } }
    steps.push(formatRead)
    const result = resultOf(uses, formatRead)
    const edit = result && !result.isError ? formatEdit(formatPath, result.content) : undefined
    if (edit) steps.push({ ...editStep(edit), text: 'A free line should read "Free", not "$0.00".' })
  }
  steps.push({ text: `Running ${options.noTest ? 'the existing tests' : 'the regression test'}.`, name: 'run_command', input: { command } })
  const next = steps.find((step) => !resultOf(uses, step))
  if (next) return call(next.text, next.name, next.input)

  const run = resultOf(uses, steps.at(-1)!)!
  const outcome = /^exit 0 /.test(run.content) ? 'passes' : `does not pass (${run.content.split('\n', 1)[0]})`
  const error = `${data.error?.type ?? 'Error'}: ${data.error?.message ?? ''}`
  const fixed = `${path}:${line} read a field that the server leaves null on promotional gift lines, so ${error}; a line without one now counts as 0 and the field is typed as nullable`
  if (options.noTest) return submitFix(`${fixed}. ${existingTestPath(path)} ${outcome} with the change.`, '')
  return submitFix(`${fixed}. ${testPath} reproduces it with a gift line in the cart and ${outcome} with the fix.`, testPath)
}

/** The never-ending fixer: the listing once, then every listed file in turn, for ever. */
function wander(uses: ToolUse[], path: string): BrainStep {
  const listing = uses.find((use) => use.name === 'list_files' && use.result)
  if (!uses.some((use) => use.name === 'list_files')) return call('First, the layout of the repository.', 'list_files', {})
  const listed = listing?.result?.isError ? [] : (listing?.result?.content.split('\n').filter((entry) => /^[\w@.-]+(?:\/[\w@.-]+)*\.\w+$/.test(entry)) ?? [])
  const files = listed.length > 0 ? listed : [path]
  const reads = uses.filter((use) => use.name === 'read_file').length
  return call('Reading more of the code before changing anything.', 'read_file', { path: files[reads % files.length]! })
}

function reviewTurn(messages: readonly ModelMessage[], options: ReviewerOptions): BrainStep {
  if (toolUses(messages).some((use) => use.name === 'review_verdict')) return { text: 'The verdict is given.', stop: 'end' }
  const text = firstUserText(messages)
  const diff = block(text, 'diff') ?? ''
  const evidence = block(text, 'evidence') ?? ''
  const files = [...new Set([...diff.matchAll(/^\+\+\+ (?:b\/)?(\S+)/gm)].map((match) => match[1]!).filter((file) => file !== '/dev/null'))]
  const changed = files.length > 0 ? files.join(', ') : 'the repository'
  const read = evidence.trim() === '' ? 'no evidence came with it' : 'the evidence was read'
  if (options.veto) {
    return call('Not approving this one.', 'review_verdict', { approve: false, reason: `The change to ${changed} does not convince me that it fixes the cause rather than hiding it; ${read}, and a person should look at it before it is opened.` })
  }
  return call('The change can go.', 'review_verdict', { approve: true, reason: `The change to ${changed} handles the input the error showed and nothing else; ${read}.` })
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

/** The result of the last call made with exactly this step's name and input (an error result counts: it was tried). */
function resultOf(uses: ToolUse[], step: Pick<Step, 'name' | 'input'>): ToolUse['result'] {
  const input = inputKey(step.input)
  return [...uses].reverse().find((use) => use.name === step.name && inputKey(use.input) === input && use.result)?.result
}

/** An input's fields in name order, so the same call matches whatever order the wire kept. */
function inputKey(input: Readonly<Record<string, unknown>>): string {
  return JSON.stringify(Object.keys(input).sort().map((key) => [key, input[key]]))
}

function editStep(edit: Edit): Step {
  return { text: `Fixing ${edit.path}: ${edit.old_text.trim()}`, name: 'edit_file', input: { ...edit } }
}

function firstUserText(messages: readonly ModelMessage[]): string {
  const first = messages.find((message) => message.role === 'user')
  return first?.role === 'user' ? first.text : ''
}

/** The text between <tag> and </tag>, or undefined. */
function block(text: string, tag: string): string | undefined {
  const start = text.indexOf(`<${tag}>`)
  const end = text.lastIndexOf(`</${tag}>`)
  return start < 0 || end < start ? undefined : text.slice(start + tag.length + 2, end)
}

/** The JSON object between <tag> and </tag>; anything around it is not obeyed. */
function tagged<T>(text: string, tag: string): T | undefined {
  const inner = block(text, tag)
  if (inner === undefined) return undefined
  try {
    const value = JSON.parse(inner) as unknown
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as T) : undefined
  } catch {
    return undefined
  }
}

function call(text: string, name: string, input: Record<string, unknown>): BrainStep {
  return { text, toolCalls: [{ name, input }], stop: 'tool_use' }
}

function submitFix(summary: string, regressionTest: string): BrainStep {
  return call('Submitting the fix.', 'submit_fix', { summary, regression_test: regressionTest })
}
