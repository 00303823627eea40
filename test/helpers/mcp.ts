/**
 * The tool server as a coding agent reaches it: the official MCP SDK's Client over its Streamable
 * HTTP client transport, with the api key as a bearer header; and issues made the grouper's way
 * (storeEventBatch), so answers carry real frames and breadcrumbs.
 */
import { randomUUID } from 'node:crypto'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { storeEventBatch } from '../../services/grouper/store-events.js'
import { Symbolicator } from '../../services/grouper/symbolication/symbolicator.js'
import { sampleEvent, type TestStack } from './stack.js'

interface Teardown {
  teardown(fn: () => unknown): void
}

/** A connected (initialised) client of baseUrl/mcp sending key as its bearer token; closed with the test. */
export async function connectAgent(t: Teardown, baseUrl: string, key: string): Promise<Client> {
  const client = new Client({ name: 'test-agent', version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } })
  await client.connect(transport)
  t.teardown(() => client.close())
  return client
}

/** A tool call's structured answer (the JSON its text carries too), with isError. */
export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<{ isError: boolean; body: Record<string, unknown>; text: string }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult
  const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('')
  return { isError: result.isError === true, body: result.structuredContent ?? {}, text }
}

/** Stores events as the grouper does (no source maps: frames say why they are unresolved); answers the issue ids they grouped into. */
export async function storeEvents(stack: TestStack, projectId: string, events: Array<Record<string, unknown>>): Promise<string[]> {
  const envelopes = events.map((overrides) => ({ id: randomUUID(), projectId, keyId: 'test', receivedAt: Date.now(), body: JSON.stringify(sampleEvent(overrides)) }))
  const none = { hasMaps: async () => false, byDebugId: async () => undefined, byUrlPath: async () => undefined }
  await storeEventBatch(stack.db, envelopes, new Symbolicator(none))
  const { rows } = await stack.db.query<{ issue_id: string }>('SELECT DISTINCT issue_id FROM events WHERE id = ANY($1::uuid[])', [envelopes.map((e) => e.id)])
  return rows.map((row) => row.issue_id)
}

/** A POST to /mcp as raw HTTP (for what the SDK's client would never send). */
export async function postMcp(baseUrl: string, body: string | Uint8Array, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; json: Record<string, unknown> }> {
  const response = await fetch(`${baseUrl}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body })
  const text = await response.text()
  return { status: response.status, headers: response.headers, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} }
}

/** A second project with its own api key (what another agent of another project holds). */
export async function otherProject(stack: TestStack): Promise<{ projectId: string }> {
  const { rows } = await stack.db.query<{ id: string }>(`INSERT INTO projects (name) VALUES ('Other') RETURNING id`)
  return { projectId: rows[0]!.id }
}
