import { gzipSync } from 'node:zlib'
import t, { type Test } from 'tap'
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { revokeProjectKey } from '../../../services/web/accounts/api-keys.js'
import { startFront } from '../../../bin/front/index.js'
import { createLogger } from '../../../shared/log.js'
import { mintKey } from '../../../shared/keys.js'
import { createObjectStore } from '../../../shared/object-store.js'
import { callTool, connectAgent, otherProject, postMcp, storeEvents } from '../../helpers/mcp.js'
import { scrape } from '../../helpers/metrics.js'
import { startTestStack, waitFor, type TestStack } from '../../helpers/stack.js'

const INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })

/** The status the official client was refused with when connecting with key. */
async function refusal(t: Test, baseUrl: string, key: string | undefined): Promise<{ status: number; message: string }> {
  try {
    await connectAgent(t, baseUrl, key ?? '')
  } catch (error) {
    if (error instanceof StreamableHTTPError) return { status: error.code ?? 0, message: error.message }
    throw error
  }
  throw new Error('the client connected')
}

function revoke(stack: TestStack, key: string): Promise<boolean> {
  return revokeProjectKey({ db: stack.db, redis: stack.redis, keys: stack.keys, log: createLogger('silent') }, stack.projectId, key.split('_')[2]!)
}

t.test('no key, a malformed key, an unknown key and a revoked key get 401 with a code; an ingest key 403', async (t) => {
  const stack = await startTestStack(t)
  const missing = await postMcp(stack.baseUrl, INITIALIZE)
  t.equal(missing.status, 401)
  t.equal(missing.json.code, 'key_missing')
  t.equal((await postMcp(stack.baseUrl, INITIALIZE, { authorization: 'Bearer svc_ak_short' })).json.code, 'key_malformed')
  t.equal((await postMcp(stack.baseUrl, INITIALIZE, { authorization: 'Bearer svc_ak_abcdefghijkl_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef' })).json.code, 'key_unknown')
  const ingest = await postMcp(stack.baseUrl, INITIALIZE, { authorization: `Bearer ${stack.ingestKey}` })
  t.equal(ingest.status, 403)
  t.equal(ingest.json.code, 'insufficient_scope')
  t.match(await refusal(t, stack.baseUrl, undefined), { status: 401, message: /key_missing/ }, 'the official client reports the 401 and its code')

  const key = await stack.mint('api')
  const agent = await connectAgent(t, stack.baseUrl, key)
  t.equal((await callTool(agent, 'list_issues')).isError, false, 'the key works, and is now cached')
  // Revoked from outside the ingress (as another process would): the broadcast reaches its cache.
  t.ok(await revoke(stack, key))
  let revoked = await postMcp(stack.baseUrl, INITIALIZE, { authorization: `Bearer ${key}` })
  for (let i = 0; i < 100 && revoked.status === 200; i++) revoked = await postMcp(stack.baseUrl, INITIALIZE, { authorization: `Bearer ${key}` })
  t.equal(revoked.status, 401, 'a revoked key stops, though it verified a moment ago')
  t.equal(revoked.json.code, 'key_unknown')
  await t.rejects(agent.listTools(), { code: 401 }, 'the connected agent is refused on its next call')
})

t.test('a revocation reaches every ingress process at once: their key caches forget the key', async (t) => {
  const stack = await startTestStack(t)
  const second = await startFront({ db: stack.db, objects: await createObjectStore(stack.config.objectStore, createLogger('silent')), redis: stack.redis, keys: stack.keys, log: createLogger('silent'), config: stack.config, plugins: { codehost: undefined, chat: undefined }, port: 0, host: '127.0.0.1' })
  t.teardown(() => second.stop())
  const secondUrl = `http://127.0.0.1:${second.port}`
  const key = await stack.mint('api')
  const ingest = await stack.mint('ingest')
  for (const url of [stack.baseUrl, secondUrl]) t.equal((await postMcp(url, INITIALIZE, { authorization: `Bearer ${key}` })).status, 200, 'cached by each process')
  const ping = (url: string) => fetch(`${url}/api/v1/ingest/ping`, { method: 'POST', headers: { 'x-api-key': ingest } })
  t.equal((await ping(secondUrl)).status, 204, 'the ingest key is cached by the ingress too')
  t.ok(await revoke(stack, key))
  t.ok(await revoke(stack, ingest))
  // The publish is sent after the commit; the other process's watch hears it on its own connection.
  const settled = (check: () => Promise<boolean>): Promise<boolean> => waitFor(check)
  t.ok(await settled(async () => (await postMcp(secondUrl, INITIALIZE, { authorization: `Bearer ${key}` })).status === 401), 'the other process refuses the api key')
  t.ok(await settled(async () => (await ping(secondUrl)).status === 401), "the other process's ingestion refuses the ingest key")
  t.equal((await postMcp(stack.baseUrl, INITIALIZE, { authorization: `Bearer ${key}` })).status, 401)
})

t.test('past the per-key rate the tool server answers 429 with retry_after; another key is not held back', async (t) => {
  const stack = await startTestStack(t, { env: { SVC_MCP_CALLS_PER_MINUTE: '3' } })
  const key = await stack.mint('api')
  // Counted in one-minute windows: start early in one, so the four requests share it.
  if (Date.now() % 60_000 > 50_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - (Date.now() % 60_000) + 50))
  for (let i = 0; i < 3; i++) t.equal((await postMcp(stack.baseUrl, INITIALIZE, { authorization: `Bearer ${key}` })).status, 200)
  const limited = await postMcp(stack.baseUrl, INITIALIZE, { authorization: `Bearer ${key}` })
  t.equal(limited.status, 429)
  t.equal(limited.json.code, 'rate_limited')
  t.ok(Number(limited.json.retry_after) >= 1 && Number(limited.json.retry_after) <= 60, 'retry_after: the seconds left in the window')
  t.equal(limited.headers.get('retry-after'), String(limited.json.retry_after))
  const other = await stack.mint('api')
  t.equal((await postMcp(stack.baseUrl, INITIALIZE, { authorization: `Bearer ${other}` })).status, 200)
})

t.test('malformed JSON-RPC gets a JSON-RPC error and changes nothing; a huge request is refused with 413; GET is 405', async (t) => {
  const stack = await startTestStack(t)
  const key = await stack.mint('api')
  const auth = { authorization: `Bearer ${key}` }
  const [issueId] = await storeEvents(stack, stack.projectId, [{}])
  const before = await scrape(`${stack.baseUrl}/metrics`)
  const notJson = await postMcp(stack.baseUrl, '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", ', auth)
  t.equal(notJson.status, 400)
  t.match(notJson.json, { jsonrpc: '2.0', error: { code: -32700 } }, 'a parse error')
  const notRpc = await postMcp(stack.baseUrl, JSON.stringify({ hello: 'start_fix', issue_id: issueId }), auth)
  t.equal(notRpc.status, 400)
  t.match(notRpc.json, { jsonrpc: '2.0', error: { code: -32700 } }, 'not a JSON-RPC message')
  const badParams = await postMcp(stack.baseUrl, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'start_fix', arguments: 'all of them' } }), auth)
  // The SDK checks a request against its schema before the handler runs, and answers a failure as an internal error.
  t.match(badParams.json, { jsonrpc: '2.0', id: 2, error: { code: Number, message: /arguments/ } }, 'a JSON-RPC error naming the bad params')
  const unknownTool = await postMcp(stack.baseUrl, JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'drop_database', arguments: {} } }), auth)
  t.match(unknownTool.json, { jsonrpc: '2.0', id: 3, error: { code: -32602, message: /No tool is named/ } })
  const unknownMethod = await postMcp(stack.baseUrl, JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'resources/delete', params: {} }), auth)
  t.match(unknownMethod.json, { jsonrpc: '2.0', id: 4, error: { code: -32601 } }, 'method not found')
  const { rows } = await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM investigations')
  t.equal(rows[0]!.n, 0, 'nothing was started')

  const huge = JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'link_pull_request', arguments: { issue_id: issueId, url: `https://x.test/${'a'.repeat(200_000)}` } } })
  const tooLarge = await postMcp(stack.baseUrl, huge, auth)
  t.equal(tooLarge.status, 413)
  t.equal(tooLarge.json.code, 'request_too_large')
  const bomb = await postMcp(stack.baseUrl, gzipSync(huge), { ...auth, 'content-encoding': 'gzip' })
  t.equal(bomb.status, 413, 'counted after decompression')
  t.equal(bomb.json.code, 'request_too_large')
  const { rows: links } = await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM issue_pull_requests')
  t.equal(links[0]!.n, 0)

  const get = await fetch(`${stack.baseUrl}/mcp`, { headers: { ...auth, accept: 'text/event-stream' } })
  t.equal(get.status, 405)
  t.equal(((await get.json()) as { code: string }).code, 'method_not_allowed')

  const after = await scrape(`${stack.baseUrl}/metrics`)
  const moved = (result: string): number => after.value('svc_mcp_requests_total', { result }) - before.value('svc_mcp_requests_total', { result })
  t.equal(moved('answered'), 5, 'the malformed messages were answered by the transport')
  t.equal(moved('request_too_large'), 2)
  t.equal(moved('method_not_allowed'), 1)
})

t.test('the project API accepts the api key as a bearer token, for its own project only', async (t) => {
  const stack = await startTestStack(t)
  const key = await stack.mint('api')
  const [issueId] = await storeEvents(stack, stack.projectId, [{}])
  const other = await otherProject(stack)
  const [theirIssue] = await storeEvents(stack, other.projectId, [{}])
  const get = (path: string, token = key) => fetch(`${stack.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } })
  const read = await get(`/api/v1/projects/${stack.projectId}/issues/${issueId}`)
  t.equal(read.status, 200)
  t.match(await read.json(), { issue: { id: issueId }, investigation: null, fix: null })
  const theirs = await get(`/api/v1/projects/${other.projectId}/issues/${theirIssue}`)
  t.equal(theirs.status, 404)
  t.equal(((await theirs.json()) as { code: string }).code, 'project_not_found')
  t.equal((await get(`/api/v1/projects/${stack.projectId}/issues/${theirIssue}`)).status, 404, "another project's issue under the key's project")
  const recording = '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f'
  t.equal(((await (await get(`/api/v1/projects/${stack.projectId}/recordings/${recording}/events`)).json()) as { code: string }).code, 'recording_not_found', "the replay's read takes the key too")
  t.equal(((await (await get(`/api/v1/projects/${other.projectId}/recordings/${recording}/events`)).json()) as { code: string }).code, 'project_not_found')
  const theirKey = (await mintKey(stack.db, other.projectId, 'api')).token
  t.equal((await get(`/api/v1/projects/${stack.projectId}/issues/${issueId}`, theirKey)).status, 404)
  const ingest = await get(`/api/v1/projects/${stack.projectId}/issues/${issueId}`, stack.ingestKey)
  t.equal(ingest.status, 403)
  t.equal(((await ingest.json()) as { code: string }).code, 'insufficient_scope')

  const fix = await fetch(`${stack.baseUrl}/api/v1/projects/${stack.projectId}/issues/${issueId}/fix`, { method: 'POST', headers: { authorization: `Bearer ${key}`, origin: 'https://elsewhere.example' } })
  t.equal(fix.status, 202, 'a bearer key is no cookie: no cross-site check applies')
  t.same(await fix.json(), { result: 'investigation_started' })
  const { rows } = await stack.db.query<{ trigger: string }>('SELECT trigger FROM investigations WHERE issue_id = $1', [issueId])
  t.same(rows, [{ trigger: 'agent' }], "the key's request is an agent's")

  t.ok(await revoke(stack, key))
  // The revocation reaches the front by its watch's own Redis connection, a moment after the
  // commit: asked again for up to 5 s, well inside the 30 s a cached key could otherwise live.
  let revoked = await get(`/api/v1/projects/${stack.projectId}/issues/${issueId}`)
  for (const until = Date.now() + 5_000; revoked.status === 200 && Date.now() < until; ) revoked = await get(`/api/v1/projects/${stack.projectId}/issues/${issueId}`)
  t.equal(revoked.status, 401)
  t.equal(((await revoked.json()) as { code: string }).code, 'key_unknown')
})
