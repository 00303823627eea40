/**
 * The tool server's metrics (docs/metrics.md): requests by how /mcp answered them, and tool calls by
 * tool and outcome. Labels are bounded: results are catalogue codes, tools the table's names.
 */
import { Counter } from '../../../shared/metrics.js'

const requests = new Counter({
  name: 'svc_mcp_requests_total',
  help: 'Requests to /mcp by result: answered (by the MCP transport, whatever the JSON-RPC outcome) or the code it was refused with (docs/errors.md, tool server).',
  labelNames: ['result'],
})

const calls = new Counter({
  name: 'svc_mcp_tool_calls_total',
  help: 'Tool calls by tool and outcome: ok, or the code of the refusal the agent got (docs/mcp.md).',
  labelNames: ['tool', 'outcome'],
})

/** Counts one request to /mcp. */
export function countRequest(result: string): void {
  requests.inc({ result })
}

/** Counts one call of a listed tool. */
export function countToolCall(tool: string, outcome: string): void {
  calls.inc({ tool, outcome })
}
