/**
 * npm run eval:investigate: runs the investigator over the fixture app's three bugs (app,
 * third_party, not_in_repo; test/helpers/investigation/investigate-fixture.ts) on the real stack and prints, per
 * bug, the expected and the actual outcome, whether they match, and turns, tokens, wall time and
 * (for a real model with EVAL_PRICE_IN_PER_MTOK / EVAL_PRICE_OUT_PER_MTOK set) a cost estimate;
 * the last line is "N of 3 bugs matched".
 *
 * The model: with MODEL_API_KEY in the environment, the configured one (SVC_MODEL_PLUGIN,
 * SVC_MODEL_NAME, SVC_MODEL_BASE_URL, as `svc` reads them, .env included); without it, the
 * scripted model server driven by investigatorBrain(), as CI runs it. The first line says which.
 * The databases: TEST_DATABASE_URL / TEST_REDIS_URL when set, else throwaway ones.
 *
 * Exit code 0 when the eval ran, whatever matched; 1 when it could not run (databases, stack,
 * model configuration). No printed line carries the model key or the harness's tokens.
 */
import { ConfigError, loadConfig } from '../shared/config/index.js'
import { createLogger } from '../shared/log.js'
import { loadModelPlugin } from '../shared/plugins/loader.js'
import type { ModelPlugin } from '../shared/plugins/model-types.js'
import { PluginError } from '../shared/plugins/plugin-error.js'
import { ProvisionError } from '../scripts/throwaway-services.mjs'
import { bugLines, PriceError, readPrices, summaryLines } from './eval/report.js'
import { provideDatabases, Teardowns } from './eval/services.js'

const teardowns = new Teardowns()
const secrets = new Set<string>()
const apiKey = process.env.MODEL_API_KEY?.trim() || undefined
if (apiKey) secrets.add(apiKey)

/** Replaces every known secret in text, whatever printed it. */
function redact(text: string): string {
  let out = text
  for (const secret of secrets) if (secret.length >= 4) out = out.replaceAll(secret, '[redacted]')
  return out
}

const print = (line: string): void => console.log(redact(line))

async function main(): Promise<void> {
  const prices = readPrices(process.env)
  let model: ModelPlugin | undefined
  if (apiKey) {
    const config = loadConfig()
    model = await loadModelPlugin(config, createLogger('silent'))
    print(`model: ${config.plugins.model?.name} (${model?.label}), the configured real model; MODEL_API_KEY is set (not shown)`)
  } else {
    print('model: scripted model server driven by investigatorBrain() (what CI runs); MODEL_API_KEY is unset')
  }
  print(`databases: ${await provideDatabases(teardowns)}`)
  // Only now: test/helpers/env.ts reads TEST_DATABASE_URL / TEST_REDIS_URL when first imported.
  const { runEval } = await import('./eval/run.js')
  const run = await runEval(teardowns, model, (secret) => secrets.add(secret))
  const scripted = model === undefined
  for (const result of run.results) for (const line of bugLines(result, prices, scripted)) print(line)
  print(`investigation invariants: ${run.violations.length === 0 ? 'hold' : `VIOLATED: ${run.violations.join('; ')}`}`)
  for (const line of summaryLines(run.results, prices, scripted)) print(line)
}

/** Errors whose message says what to fix; anything else is shown with its stack. */
function describe(error: unknown): string {
  const known = [ProvisionError, ConfigError, PluginError, PriceError].some((kind) => error instanceof kind)
  return known ? (error as Error).message : ((error as Error).stack ?? String(error))
}

let finishing: Promise<never> | undefined

/** Runs the teardowns once and exits; a second caller (a signal during a run) waits for the first. */
function finish(code: number): Promise<never> {
  finishing ??= (async () => {
    for (const failure of await teardowns.run()) {
      console.error(redact(`eval: cleanup step failed: ${failure}`))
      code ||= 1
    }
    process.exit(code)
  })()
  return finishing
}

// Interrupted: stop the stack and any throwaway servers before leaving. The run goes on meanwhile
// and fails as its folders, servers and connections go away: those failures are not reported.
const ignore = (): void => {}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    process.on('uncaughtException', ignore).on('unhandledRejection', ignore)
    void finish(130)
  })
}

try {
  await main()
} catch (error) {
  if (!finishing) console.error(redact(`eval: could not run: ${describe(error)}`))
  await finish(1)
}
await finish(0)
