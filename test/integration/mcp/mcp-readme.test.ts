// The README's "Connect a coding agent" snippet, used as an agent's client would: the URL (on the
// test stack's port instead of 8082) and the headers with ${SVC_API_KEY} taken from the environment.
import { readFileSync } from 'node:fs'
import t from 'tap'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { startTestStack } from '../../helpers/stack.js'

const README = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8')

t.test('the README snippet connects an agent with the key from SVC_API_KEY, and names every tool the server lists', async (t) => {
  const section = README.slice(README.indexOf('## Connect a coding agent'), README.indexOf('\n## ', README.indexOf('## Connect a coding agent') + 5))
  const block = /```json\n([\s\S]*?)```/.exec(section)
  t.ok(block, 'the section has a JSON block')
  t.notMatch(block![1]!, /svc_ak_[a-z0-9]/, 'no key is written into the snippet')
  const config = JSON.parse(block![1]!) as { mcpServers: Record<string, { type: string; url: string; headers: Record<string, string> }> }
  const server = config.mcpServers.svc!
  t.equal(server.type, 'http')
  const stack = await startTestStack(t)
  const env: Record<string, string> = { SVC_API_KEY: await stack.mint('api') }
  const headers = Object.fromEntries(Object.entries(server.headers).map(([name, value]) => [name, value.replace(/\$\{(\w+)\}/g, (_, variable: string) => env[variable] ?? '')]))
  const url = new URL(server.url)
  t.equal(url.pathname, '/mcp')
  const client = new Client({ name: 'readme-agent', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(url.pathname, stack.baseUrl), { requestInit: { headers } }))
  t.teardown(() => client.close())
  const { tools } = await client.listTools()
  for (const tool of tools) t.match(section, `| \`${tool.name}\` |`, `the README says what ${tool.name} does`)
})
