/**
 * What a tool of the tool server is: a name, a description, its input schema from schemas/
 * (compiled once by ajv), and a function of the caller's project. A tool answers a plain object;
 * recorded text goes under members named `untrusted` (untrusted.ts) and a refusal is a ToolError.
 */
import { Ajv, type ValidateFunction } from 'ajv'
import { readFileSync } from 'node:fs'
import type { Redis } from 'ioredis'
import type { Db } from '../../../shared/db/index.js'
import type { Logger } from '../../../shared/log.js'
import type { Orm } from '../../../shared/db/orm.js'
import type { StreamKeys } from '../../../shared/redis.js'

/** What every tool may use; the project is the api key's, and nothing else is reachable. */
export interface ToolContext {
  db: Db
  orm: Orm
  redis: Redis
  keys: StreamKeys
  log: Logger
  /** The service's public address: links in answers start with it. */
  baseUrl: string
  /** config.investigations.leaseMs, for the fixes and investigations an agent asks for. */
  investigationLeaseMs: number
  /** The api key's project. */
  projectId: string
  /** The api key's id segment (never its secret): logged with actions and stored with linked pull requests. */
  keyId: string
}

export interface ToolDefinition {
  name: string
  title: string
  description: string
  /** The input schema as listed to clients (from schemas/). */
  inputSchema: Record<string, unknown>
  /** ajv's compiled check of the same schema. */
  validate: ValidateFunction
  /** Whether the tool changes anything (MCP annotations: readOnlyHint). */
  readOnly: boolean
  run(ctx: ToolContext, args: Record<string, unknown>): Promise<Record<string, unknown>>
}

/** Codes a tool refuses with; docs/mcp.md lists them. */
export type ToolErrorCode = 'invalid_arguments' | 'assignee_not_member' | 'assignee_me_needs_person' | 'invalid_cursor' | 'issue_not_found' | 'issue_merged' | 'not_an_error' | 'noise_issue' | 'in_flight' | 'invalid_url' | 'unavailable' | 'internal_error'

/** A tool's refusal: answered as a tool result with isError, so the agent can read it and act. */
export class ToolError extends Error {
  override name = 'ToolError'
  constructor(
    readonly code: ToolErrorCode,
    message: string,
  ) {
    super(message)
  }
}

const ajv = new Ajv({ allErrors: false, strict: true })

/** Defines a tool whose input schema is schemas/<file>. */
export function defineTool(file: string, tool: Omit<ToolDefinition, 'inputSchema' | 'validate'>): ToolDefinition {
  const schema = JSON.parse(readFileSync(new URL(`../../../schemas/${file}`, import.meta.url), 'utf8')) as Record<string, unknown>
  const validate = ajv.compile(schema)
  // $schema and description are for readers of the file; clients get the description with the tool.
  const { $schema: _dialect, description: _description, ...inputSchema } = schema
  return { ...tool, inputSchema, validate }
}

/** The link to an issue's page in the dashboard. */
export function issueUrl(ctx: Pick<ToolContext, 'baseUrl' | 'projectId'>, issueId: string): string {
  return `${ctx.baseUrl}/projects/${ctx.projectId}/issues/${issueId}`
}
