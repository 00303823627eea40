/**
 * Parses and validates setup-session bodies with schemas from schemas/, compiled once at load. A
 * failure names the field at fault; a chat webhook URL is never echoed back, only its field name.
 * A field holding text PostgreSQL cannot hold (\u0000, a lone surrogate) is refused first
 * (shared/http/request-text.ts).
 */
import { Ajv, type ValidateFunction } from 'ajv'
import { readFileSync } from 'node:fs'
import { unstorableField } from '../../../shared/http/request-text.js'
import { AgentError } from './errors.js'

export interface SetupBody { project_name: string; agent_name: string; git_remote: string }
export interface ProgressBody { step: string; status: string; note?: string }
export interface CodehostBody { repo: string }
export interface ChatBody { webhook_url: string }

const ajv = new Ajv({ allErrors: false, strict: true })

function compile<T>(file: string): ValidateFunction<T> {
  return ajv.compile<T>(JSON.parse(readFileSync(new URL(`../../../schemas/${file}`, import.meta.url), 'utf8')) as object)
}

export const BODIES = {
  setup: compile<SetupBody>('agent-setup.json'),
  progress: compile<ProgressBody>('agent-progress.json'),
  codehost: compile<CodehostBody>('agent-codehost.json'),
  chat: compile<ChatBody>('agent-chat.json'),
  complete: compile<Record<string, never>>('agent-complete.json'),
}

const HINTS: Record<string, string> = {
  git_remote: 'git_remote must be owner/repo as on the code host, or an empty string.',
  repo: 'repo must be owner/repo as on the code host.',
}

/** Returns the body, or throws AgentError invalid_json / invalid_request naming the field. */
export function parseBody<T>(text: string, validate: ValidateFunction<T>): T {
  let value: unknown
  try {
    value = text.trim() === '' ? {} : JSON.parse(text)
  } catch {
    throw new AgentError('invalid_json')
  }
  const unstorable = unstorableField(value)
  if (unstorable !== undefined) {
    throw new AgentError('invalid_request', { field: unstorable || undefined, message: `${unstorable || 'The body'} holds text that cannot be stored (\\u0000 or a lone surrogate such as \\ud800). Remove it and send again.` })
  }
  if (validate(value)) return value
  const error = validate.errors?.[0]
  const field = error?.keyword === 'required' ? String((error.params as { missingProperty: string }).missingProperty) : (error?.instancePath ?? '').replace(/^\//, '').replaceAll('/', '.')
  const hint = HINTS[field] ?? (field ? `${field} ${error?.message ?? 'is invalid'}; fix it and send again.` : `The body ${error?.message ?? 'is invalid'}; send a JSON object.`)
  throw new AgentError('invalid_request', { field: field || undefined, message: hint })
}
