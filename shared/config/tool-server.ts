/** The tool server's limits (docs/mcp.md, "Limits"). */
import { int, type Env } from './values.js'

/** What one api key may send to /mcp. */
export interface ToolServerLimits {
  /** Requests per api key per fixed one-minute window before 429 (reference product: 120). */
  readonly callsPerKeyPerMinute: number
  /** Largest request body; a tool call's arguments are a few hundred bytes (control bodies: 64 KiB). */
  readonly maxBodyBytes: number
}

/** Reads SVC_MCP_CALLS_PER_MINUTE. */
export function toolServerConfig(env: Env): ToolServerLimits {
  return {
    callsPerKeyPerMinute: int(env, 'SVC_MCP_CALLS_PER_MINUTE', 120, 1),
    maxBodyBytes: 64 * 1024,
  }
}
