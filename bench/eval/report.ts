/**
 * How the investigation eval judges and prints a bug. A bug matches when the investigation ended in
 * the expected state and, where the fixture names them, with the expected reason code, citing the
 * culprit file (among any others it cites), and naming the third party as the cause.
 */
import type { BugResult } from './run.js'

/** US dollars per million input and output tokens, from EVAL_PRICE_IN_PER_MTOK / EVAL_PRICE_OUT_PER_MTOK. */
export interface Prices {
  inPerMtok: number
  outPerMtok: number
}

/** A price variable that is not a price, or one without the other. */
export class PriceError extends Error {}

/** The prices when both variables are set; undefined when neither is; an error for anything else. */
export function readPrices(env: NodeJS.ProcessEnv): Prices | undefined {
  const names = ['EVAL_PRICE_IN_PER_MTOK', 'EVAL_PRICE_OUT_PER_MTOK'] as const
  const raw = names.map((name) => env[name]?.trim() || undefined)
  if (raw.every((value) => value === undefined)) return undefined
  const values = raw.map((value, i) => {
    const number = value === undefined ? NaN : Number(value)
    if (!Number.isFinite(number) || number < 0) throw new PriceError(`${names[i]} must be a price in US dollars per million tokens (e.g. 3), and is needed with ${names[1 - i]}`)
    return number
  })
  return { inPerMtok: values[0]!, outPerMtok: values[1]! }
}

/** Why a result does not match what the fixture expects; empty when it matches. */
export function mismatches(result: BugResult): string[] {
  const { expected, actual } = result
  const problems: string[] = []
  if (!actual.finished) problems.push(`did not finish (left ${actual.state})`)
  if (actual.state !== expected.outcome) problems.push(`state ${actual.state}, expected ${expected.outcome}`)
  if (expected.reasonCode !== undefined && actual.reasonCode !== expected.reasonCode) problems.push(`reason ${actual.reasonCode || '-'}, expected ${expected.reasonCode}`)
  if (expected.file !== undefined && !actual.citations.some((citation) => citation.path === expected.file)) problems.push(`does not cite ${expected.file}`)
  const thirdParty = expected.thirdParty?.toLowerCase()
  if (thirdParty !== undefined && !actual.cause?.name.toLowerCase().includes(thirdParty)) problems.push(`cause ${actual.cause?.name ?? '-'}, expected ${expected.thirdParty}`)
  return problems
}

/** The cost of tokens at prices, in US dollars. */
export function cost(inputTokens: number, outputTokens: number, prices: Prices): number {
  return (inputTokens * prices.inPerMtok + outputTokens * prices.outPerMtok) / 1_000_000
}

const count = (n: number): string => n.toLocaleString('en-US')
const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`
const dollars = (usd: number): string => `$${usd.toFixed(4)}`

/** The cost part of a usage line: an estimate at the given prices, or why there is none. */
export function costText(inputTokens: number, outputTokens: number, prices: Prices | undefined, scripted: boolean): string {
  if (scripted) return 'cost n/a (scripted model; its token counts are estimates)'
  if (!prices) return 'cost n/a (set EVAL_PRICE_IN_PER_MTOK and EVAL_PRICE_OUT_PER_MTOK for an estimate)'
  return `cost ~${dollars(cost(inputTokens, outputTokens, prices))}`
}

/** The lines printed for one bug. */
export function bugLines(result: BugResult, prices: Prices | undefined, scripted: boolean): string[] {
  const { expected, actual } = result
  const problems = mismatches(result)
  const cited = actual.citations.length > 0 ? actual.citations.map((c) => `${c.path}:${c.line}`).join(', ') : '-'
  const cause = actual.cause ? `${actual.cause.kind} ${actual.cause.name}` : '-'
  return [
    `bug ${result.key}`,
    `  expected: ${expected.outcome}; reason ${expected.reasonCode ?? '-'}; culprit file ${expected.file ?? '-'}; third party ${expected.thirdParty ?? '-'}`,
    `  actual:   ${actual.state}${actual.finished ? '' : ' (did not finish in time)'}; reason ${actual.reasonCode || '-'}; cited ${cited}; cause ${cause}`,
    `  match:    ${problems.length === 0 ? 'yes' : `NO (${problems.join('; ')})`}`,
    `  usage:    ${result.turns} turns, ${count(result.inputTokens)} input + ${count(result.outputTokens)} output tokens, ${seconds(result.wallMs)} wall; ${costText(result.inputTokens, result.outputTokens, prices, scripted)}`,
  ]
}

/** The closing lines: totals, then "N of 3 bugs matched" last. */
export function summaryLines(results: BugResult[], prices: Prices | undefined, scripted: boolean): string[] {
  const sum = (pick: (r: BugResult) => number): number => results.reduce((total, r) => total + pick(r), 0)
  const input = sum((r) => r.inputTokens)
  const output = sum((r) => r.outputTokens)
  const matched = results.filter((r) => mismatches(r).length === 0).length
  return [
    `total: ${sum((r) => r.turns)} turns, ${count(input)} input + ${count(output)} output tokens, ${seconds(sum((r) => r.wallMs))} wall; ${costText(input, output, prices, scripted)}`,
    `${matched} of ${results.length} bugs matched`,
  ]
}
