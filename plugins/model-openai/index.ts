/**
 * model-openai: one investigation turn at a time through the Chat Completions API (tools and
 * tool_calls, non-streaming), with the official openai SDK. With baseUrl it talks to any
 * OpenAI-compatible server, a local one included. The SDK never retries: the investigator decides
 * about retries from the ModelUnavailable cause, and a hidden retry would spend its budget.
 */
import OpenAI from 'openai'
import type { ModelPlugin, PluginModule } from '../../shared/plugins/types.js'
import { modelTurn } from '../../shared/plugins/model-turn.js'
import { openAiErrors } from './failures.js'
import { fromOpenAiReply, toOpenAiBody } from './wire.js'

/** Settings after the loader applied the schema's defaults. */
interface OpenAiSettings {
  readonly apiKey: string
  readonly model: string
  readonly baseUrl: string | undefined
  readonly timeoutMs: number
}

const DEFAULT_BASE_URL = 'https://api.openai.com/v1'

const configSchema = {
  type: 'object',
  properties: {
    apiKey: { type: 'string', minLength: 1, description: 'API key (sent only in the Authorization header). A local server that needs none takes any value.' },
    model: { type: 'string', minLength: 1, default: 'gpt-4.1', description: 'Model name, e.g. gpt-4.1, or the name a compatible server knows.' },
    baseUrl: {
      type: 'string',
      format: 'uri',
      description: `The API root the SDK appends /chat/completions to, usually ending in /v1 (http://localhost:11434/v1 for Ollama); default ${DEFAULT_BASE_URL}.`,
    },
    // Two minutes: a long tool-using turn takes tens of seconds; past this the run had better give up.
    timeoutMs: { type: 'integer', minimum: 1, maximum: 3_600_000, default: 120_000, description: 'How long one turn may take, answer included, in milliseconds.' },
  },
  required: ['apiKey'],
  additionalProperties: false,
} as const

/** The plugin module the loader imports: manifest plus factory. */
const plugin: PluginModule<'model'> = {
  manifest: { name: 'model-openai', kind: 'model', version: '1.0.0', configSchema },
  create(settings, context): ModelPlugin {
    const { apiKey, model, baseUrl, timeoutMs } = settings as unknown as OpenAiSettings
    const label = `openai/${model}`
    const root = new URL(baseUrl ?? DEFAULT_BASE_URL)
    const officialApi = root.hostname === 'api.openai.com'
    const client = new OpenAI({
      apiKey,
      // All explicit (null where unused), so OPENAI_BASE_URL, OPENAI_ORG_ID and the like in the
      // environment can neither redirect the key nor add headers.
      baseURL: baseUrl ?? DEFAULT_BASE_URL,
      organization: null,
      project: null,
      adminAPIKey: null,
      maxRetries: 0,
      timeout: timeoutMs,
      // The SDK's log lines may show request details; ours say what matters and nothing secret.
      logLevel: 'off',
    })
    const turn = { plugin: 'model-openai', label, origin: root.origin, timeoutMs, log: context.log, errors: openAiErrors }
    return {
      label,
      complete: (request) => modelTurn(turn, request, (signal) => client.chat.completions.create(toOpenAiBody(request, model, officialApi), { signal }).then((body: unknown) => fromOpenAiReply(body, label))),
    }
  },
}

export default plugin
