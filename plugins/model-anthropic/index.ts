/**
 * model-anthropic: one investigation turn at a time through Anthropic's Messages API, with the
 * official @anthropic-ai/sdk (non-streaming, tool use). The SDK never retries: the investigator
 * decides about retries from the ModelUnavailable cause, and a hidden retry would spend its budget.
 */
import Anthropic from '@anthropic-ai/sdk'
import type { ModelPlugin, PluginModule } from '../../shared/plugins/types.js'
import { modelTurn } from '../../shared/plugins/model-turn.js'
import { anthropicErrors } from './failures.js'
import { fromAnthropicReply, toAnthropicBody } from './wire.js'

/** Settings after the loader applied the schema's defaults. */
interface AnthropicSettings {
  readonly apiKey: string
  readonly model: string
  readonly baseUrl: string | undefined
  readonly timeoutMs: number
}

const DEFAULT_BASE_URL = 'https://api.anthropic.com'

const configSchema = {
  type: 'object',
  properties: {
    apiKey: { type: 'string', minLength: 1, description: 'Anthropic API key (sent only in a request header, never in a body).' },
    model: { type: 'string', minLength: 1, default: 'claude-sonnet-4-5', description: 'Model name, e.g. claude-sonnet-4-5.' },
    baseUrl: { type: 'string', format: 'uri', description: `Origin of the Messages API (the SDK posts to <baseUrl>/v1/messages); default ${DEFAULT_BASE_URL}.` },
    // Two minutes: a long tool-using turn takes tens of seconds; past this the run had better give up.
    timeoutMs: { type: 'integer', minimum: 1, maximum: 3_600_000, default: 120_000, description: 'How long one turn may take, answer included, in milliseconds.' },
  },
  required: ['apiKey'],
  additionalProperties: false,
} as const

/** The plugin module the loader imports: manifest plus factory. */
const plugin: PluginModule<'model'> = {
  manifest: { name: 'model-anthropic', kind: 'model', version: '1.0.0', configSchema },
  create(settings, context): ModelPlugin {
    const { apiKey, model, baseUrl, timeoutMs } = settings as unknown as AnthropicSettings
    const label = `anthropic/${model}`
    const origin = new URL(baseUrl ?? DEFAULT_BASE_URL).origin
    const client = new Anthropic({
      apiKey,
      // Always explicit, so ANTHROPIC_BASE_URL in the environment cannot redirect the key.
      baseURL: baseUrl ?? DEFAULT_BASE_URL,
      maxRetries: 0,
      timeout: timeoutMs,
      // The SDK's log lines may show request details; ours say what matters and nothing secret.
      logLevel: 'off',
    })
    const turn = { plugin: 'model-anthropic', label, origin: origin, timeoutMs, log: context.log, errors: anthropicErrors }
    return {
      label,
      complete: (request) => modelTurn(turn, request, (signal) => client.messages.create(toAnthropicBody(request, model), { signal }).then((body) => fromAnthropicReply(body, label))),
    }
  },
}

export default plugin
