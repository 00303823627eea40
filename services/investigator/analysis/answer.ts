/**
 * The investigation's final answer, as the model submits it through the submit_answer tool: the
 * schema (also the tool's input schema) checked with ajv, then the rules a schema cannot say
 * well (what each outcome needs, filler text). Problems go back to the model and to operators.
 */
import { Ajv, type ErrorObject } from 'ajv'

/** Size caps of an answer, in characters or items. */
export const ANSWER_LIMITS = Object.freeze({
  summary: 2000,
  chainSteps: 12,
  chainStep: 500,
  fix: 4000,
  causeName: 200,
  causeEvidence: 2000,
  citations: 20,
  citationPath: 500,
  quote: 2000,
})

/** Shortest summary that can say anything; "Unclear." or "Bug." is filler. */
export const MIN_SUMMARY_CHARS = 20

/** Where the evidence points: the user's code, something outside it, or nowhere yet. */
export type Outcome = 'in_code' | 'outside_code' | 'undetermined'

/** What an outside_code answer blames, and why. */
export interface Cause {
  kind: 'third_party_script' | 'browser_extension' | 'network' | 'backend' | 'browser' | 'other'
  name: string
  evidence: string
}

/** A line of the repository the answer rests on, with the text quoted from it. */
export interface Citation {
  path: string
  line: number
  quote: string
}

interface AnswerBase {
  confidence: number
  summary: string
  /** From the user's action to the throw. */
  chain: string[]
  citations: Citation[]
}

/** A validated answer: in_code has a fix and citations; outside_code has a cause. */
export type Answer =
  | (AnswerBase & { outcome: 'in_code'; fix: string })
  | (AnswerBase & { outcome: 'outside_code'; cause: Cause; fix?: string })
  | (AnswerBase & { outcome: 'undetermined'; fix?: string; cause?: Cause })

const L = ANSWER_LIMITS

/** JSON schema of the submit_answer input; kept to keywords every provider's tool schema accepts. */
export const ANSWER_SCHEMA = Object.freeze({
  type: 'object',
  additionalProperties: false,
  required: ['outcome', 'confidence', 'summary'],
  properties: {
    outcome: {
      type: 'string',
      enum: ['in_code', 'outside_code', 'undetermined'],
      description: 'in_code: a defect in this repository; outside_code: a third-party script, browser extension, network, backend or browser; undetermined: the evidence does not settle it.',
    },
    confidence: { type: 'number', minimum: 0, maximum: 1, description: 'How sure you are, from 0 to 1.' },
    summary: { type: 'string', maxLength: L.summary, description: 'What happens and why, in plain words.' },
    chain: {
      type: 'array',
      maxItems: L.chainSteps,
      items: { type: 'string', maxLength: L.chainStep },
      description: "Steps from the user's action to the throw, in order.",
    },
    fix: { type: 'string', maxLength: L.fix, description: 'What a fix must change, and where. Required for in_code.' },
    cause: {
      type: 'object',
      additionalProperties: false,
      required: ['kind', 'name', 'evidence'],
      properties: {
        kind: { type: 'string', enum: ['third_party_script', 'browser_extension', 'network', 'backend', 'browser', 'other'] },
        name: { type: 'string', maxLength: L.causeName, description: 'The script, extension, service or browser at fault.' },
        evidence: { type: 'string', maxLength: L.causeEvidence, description: 'What in the event or the code shows it.' },
      },
      description: 'Required for outside_code.',
    },
    citations: {
      type: 'array',
      maxItems: L.citations,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['path', 'line', 'quote'],
        properties: {
          path: { type: 'string', maxLength: L.citationPath, description: 'Repository path, as read with read_file.' },
          line: { type: 'integer', minimum: 1, description: 'Line where the quote starts.' },
          quote: { type: 'string', maxLength: L.quote, description: 'Exact consecutive lines copied from read_file, without the line numbers.' },
        },
      },
      description: 'Lines you read with read_file that support the answer. At least one for in_code.',
    },
  },
})

const validate = new Ajv({ allErrors: true, strict: true }).compile(ANSWER_SCHEMA)

// Answers models write when they have nothing to say; compared after lower-casing and dropping
// trailing punctuation.
const FILLER = new Set(['', 'n/a', 'na', 'none', 'null', 'undefined', 'unknown', 'tbd', 'todo', 'nothing', 'no summary', 'see above', 'see below', 'same as above', 'not applicable', 'placeholder', '-', '...', '…', '?'])

/** Checks a submit_answer input; the answer comes back with its strings trimmed. */
export function parseAnswer(input: unknown): { ok: true; answer: Answer } | { ok: false; problems: string[] } {
  if (!validate(input)) return { ok: false, problems: (validate.errors ?? []).map(describe) }
  const raw = input as Record<string, unknown>
  const problems: string[] = []
  // Prose is checked for filler; paths and quotes are code, where "null" or "}" is real text.
  const text = (field: string, value: unknown, code = false): string => {
    const trimmed = typeof value === 'string' ? value.trim() : ''
    if (code ? trimmed === '' : isFiller(trimmed)) problems.push(`${field}: empty${code ? '' : ' or filler'}`)
    return trimmed
  }
  const outcome = raw.outcome as Outcome
  const summary = text('summary', raw.summary)
  if (!isFiller(summary) && summary.length < MIN_SUMMARY_CHARS) problems.push(`summary: shorter than ${MIN_SUMMARY_CHARS} characters`)
  const chain = ((raw.chain as string[] | undefined) ?? []).map((step, i) => text(`chain.${i}`, step))
  const citations = ((raw.citations as Citation[] | undefined) ?? []).map((c, i) => ({
    path: text(`citations.${i}.path`, c.path, true),
    line: c.line,
    // Only the ends: the quote's inner lines are compared with the file as they are.
    quote: text(`citations.${i}.quote`, c.quote, true),
  }))
  const fix = raw.fix === undefined ? undefined : text('fix', raw.fix)
  const rawCause = raw.cause as Cause | undefined
  const cause = rawCause && { kind: rawCause.kind, name: text('cause.name', rawCause.name), evidence: text('cause.evidence', rawCause.evidence) }
  const base = { confidence: raw.confidence as number, summary, chain, citations }

  let answer: Answer | undefined
  if (outcome === 'in_code') {
    if (fix === undefined) problems.push('fix: required for in_code')
    if (citations.length === 0) problems.push('citations: in_code needs at least one')
    if (chain.length === 0) problems.push('chain: in_code needs at least one step')
    answer = { ...base, outcome, fix: fix ?? '' }
  } else if (outcome === 'outside_code') {
    if (!cause) problems.push('cause: required for outside_code')
    else answer = { ...base, outcome, cause, ...(fix === undefined ? {} : { fix }) }
  } else {
    answer = { ...base, outcome, ...(fix === undefined ? {} : { fix }), ...(cause ? { cause } : {}) }
  }
  return problems.length > 0 || !answer ? { ok: false, problems } : { ok: true, answer }
}

function isFiller(text: string): boolean {
  return FILLER.has(text.toLowerCase().replace(/[.!\s]+$/u, '')) || !/\p{L}|\p{N}/u.test(text)
}

function describe(error: ErrorObject): string {
  const field = error.instancePath.slice(1).replaceAll('/', '.') || 'answer'
  if (error.keyword === 'additionalProperties') return `${field}: unknown property ${(error.params as { additionalProperty: string }).additionalProperty}`
  if (error.keyword === 'required') return `${field}: missing ${(error.params as { missingProperty: string }).missingProperty}`
  if (error.keyword === 'enum') return `${field}: must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`
  return `${field}: ${error.message ?? 'invalid'}`
}
