/**
 * What a model plugin offers the core: one turn of a conversation with tool use. Plugins translate
 * this neutral shape to their provider's wire format (Anthropic Messages, OpenAI Chat Completions)
 * and back; the investigator's agent loop never sees a provider's types.
 */

/** A tool the model may call: a name, what it does, and a JSON schema of its input object. */
export interface ModelTool {
  readonly name: string
  readonly description: string
  readonly inputSchema: Readonly<Record<string, unknown>>
}

/**
 * A tool call the model asked for. input is the parsed argument object; when the provider sent
 * arguments that are not a JSON object, input is undefined and malformed says why (the loop then
 * answers the call with an error result instead of running it).
 */
export interface ModelToolCall {
  readonly id: string
  readonly name: string
  readonly input: Readonly<Record<string, unknown>> | undefined
  readonly malformed?: string
}

export type ModelMessage =
  | { readonly role: 'user'; readonly text: string }
  | { readonly role: 'assistant'; readonly text: string; readonly toolCalls: readonly ModelToolCall[] }
  /** The results of the previous assistant turn's tool calls, one per call id, in order. */
  | { readonly role: 'tool'; readonly results: ReadonlyArray<{ readonly callId: string; readonly content: string; readonly isError: boolean }> }

export interface ModelRequest {
  /** Instructions; never contains event text (that goes in a user message, as delimited data). */
  readonly system: string
  readonly messages: readonly ModelMessage[]
  readonly tools: readonly ModelTool[]
  /** Output tokens this turn may use. */
  readonly maxTokens: number
  /** Aborts the request (the run's wall-time budget, or the lease was lost). */
  readonly signal?: AbortSignal
}

export interface ModelUsage {
  readonly inputTokens: number
  readonly outputTokens: number
}

export interface ModelReply {
  readonly text: string
  readonly toolCalls: readonly ModelToolCall[]
  /** end: the model finished; tool_use: it wants tool results; max_tokens: cut off. */
  readonly stop: 'end' | 'tool_use' | 'max_tokens'
  readonly usage: ModelUsage
}

export interface ModelPlugin {
  /** Provider and model, for records and the issue page (e.g. "anthropic/claude-sonnet-4-5"). */
  readonly label: string
  /** One model turn. Throws ModelUnavailable or ModelRejected; never a provider's own error. */
  complete(request: ModelRequest): Promise<ModelReply>
}

/**
 * The model could not answer now: no answer in time, refused connection, 429, 5xx, or a reply
 * that is not the provider's format. A later run may succeed. The message never holds the key.
 */
export class ModelUnavailable extends Error {
  override name = 'ModelUnavailable'
  constructor(
    message: string,
    /** timeout, rate_limited, server_error, unreachable, bad_reply */
    readonly cause_: 'timeout' | 'rate_limited' | 'server_error' | 'unreachable' | 'bad_reply',
  ) {
    super(message)
  }
}

/** The provider refused the request itself (401/403: the key; 400/404: model name or request). A person must act. */
export class ModelRejected extends Error {
  override name = 'ModelRejected'
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message)
  }
}
