// The outbound-address guard (shared/net): which addresses are public, how odd URL forms are
// read, that a name is checked where the socket resolves it, and the guarded fetch over real sockets.
import type { LookupAddress } from 'node:dns'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { AddressRefused, checkOutboundUrl, classifyAddress, guardedLookup, type LookupFunction } from '../../shared/net/address-guard.js'
import { createGuardedFetch, GuardedFetchError } from '../../shared/net/guarded-fetch.js'

t.test('classifies IPv4 special-purpose ranges and leaves public addresses public', async (t) => {
  const cases: Array<[string, string]> = [
    ['8.8.8.8', 'public'], ['1.1.1.1', 'public'], ['0.0.0.0', 'unspecified'], ['0.1.2.3', 'unspecified'],
    ['10.20.30.40', 'private'], ['172.16.0.1', 'private'], ['172.31.255.255', 'private'], ['172.32.0.1', 'public'],
    ['192.168.1.1', 'private'], ['100.64.0.1', 'shared'], ['100.127.255.254', 'shared'], ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'], ['169.254.169.254', 'link-local'], ['192.0.2.5', 'documentation'], ['198.18.0.1', 'benchmarking'],
    ['224.0.0.1', 'multicast'], ['239.255.255.250', 'multicast'], ['240.0.0.1', 'reserved'], ['255.255.255.255', 'reserved'],
  ]
  for (const [address, kind] of cases) t.equal(classifyAddress(address), kind, address)
})

t.test('classifies IPv6, including addresses that carry an IPv4 one', async (t) => {
  const cases: Array<[string, string]> = [
    ['2606:4700:4700::1111', 'public'], ['2001:4860:4860::8888', 'public'], ['::', 'unspecified'], ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'ipv4-mapped'], ['::ffff:8.8.8.8', 'ipv4-mapped'], ['0:0:0:0:0:ffff:7f00:1', 'ipv4-mapped'],
    ['::127.0.0.1', 'reserved'], ['64:ff9b::127.0.0.1', 'loopback'], ['64:ff9b::10.0.0.1', 'private'], ['64:ff9b::8.8.8.8', 'public'],
    ['2002:7f00:1::1', 'loopback'], ['2002:a9fe:a9fe::', 'link-local'], ['2002:808:808::1', 'public'], ['2001::1', 'reserved'],
    ['2001:db8::1', 'documentation'], ['fd12:3456::1', 'private'], ['fc00::1', 'private'], ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'], ['fec0::1', 'reserved'], ['ff02::1', 'multicast'], ['100::1', 'reserved'], ['4000::1', 'reserved'],
    ['localhost', 'not-an-ip'],
  ]
  for (const [address, kind] of cases) t.equal(classifyAddress(address), kind, address)
})

t.test('reads odd IPv4 spellings as WHATWG URL does, and refuses them when they are local', async (t) => {
  const strict = { allowPrivate: false, requireHttps: true }
  const cases: Array<[string, string]> = [
    ['https://0x7f.1/hook', 'loopback'], ['https://127.1/hook', 'loopback'], ['https://2130706433/hook', 'loopback'],
    ['https://0177.0.0.1/hook', 'loopback'], ['https://0x7f000001/hook', 'loopback'], ['https://[::ffff:127.0.0.1]/hook', 'ipv4-mapped'],
    ['https://[0:0:0:0:0:ffff:7f00:1]/hook', 'ipv4-mapped'], ['https://[::1]:8443/hook', 'loopback'], ['https://0/hook', 'unspecified'],
    ['https://169.254.169.254/latest/meta-data', 'link-local'], ['https://[fd00::1]/hook', 'private'], ['https://10.1/hook', 'private'],
    ['http://hooks.example.com/hook', 'scheme'], ['javascript:alert(1)', 'scheme'], ['https://me:pw@hooks.example.com/', 'credentials'],
    ['not a url', 'malformed'], ['https://[::1/hook', 'malformed'],
  ]
  for (const [url, reason] of cases) t.match(checkOutboundUrl(url, strict), { ok: false, reason }, url)
  t.match(checkOutboundUrl('https://hooks.example.com/services/T1/B2/x', strict), { ok: true }, 'a name passes: its addresses are checked at connect')
  t.match(checkOutboundUrl('https://8.8.8.8/x', strict), { ok: true }, 'a public literal passes')
  t.match(checkOutboundUrl('http://127.1:9/x', { allowPrivate: true, requireHttps: false }), { ok: true }, 'allowed for development')
})

/** A resolver that answers what a rebinding name would: different addresses on each call. */
function answering(...rounds: LookupAddress[][]): LookupFunction {
  let call = 0
  return (_host, _options, callback) => callback(null, rounds[Math.min(call++, rounds.length - 1)]!)
}

const lookupOnce = (lookup: LookupFunction, host: string, all: boolean) =>
  new Promise<{ error: Error | null; address: unknown }>((resolve) => lookup(host, { all }, (error, address) => resolve({ error, address })))

t.test('the guarded lookup refuses a whole answer with any non-public address', async (t) => {
  const local = await lookupOnce(guardedLookup(), 'localhost', true)
  t.type(local.error, AddressRefused, 'localhost resolves (through the system resolver) to loopback and is refused')
  t.equal((local.error as AddressRefused).kind, 'loopback')
  const mixed = await lookupOnce(guardedLookup(answering([{ address: '93.184.215.14', family: 4 }, { address: '10.0.0.7', family: 4 }])), 'rebind.example', true)
  t.match(mixed.error, { kind: 'private' }, 'one private address in the answer refuses all of it')
  const rebinding = guardedLookup(answering([{ address: '93.184.215.14', family: 4 }], [{ address: '127.0.0.1', family: 4 }]))
  t.same((await lookupOnce(rebinding, 'rebind.example', false)).address, '93.184.215.14', 'first resolution: public, used as is')
  t.match((await lookupOnce(rebinding, 'rebind.example', false)).error, { kind: 'loopback' }, 'the next connection re-checks and refuses the rebound address')
  const v6 = await lookupOnce(guardedLookup(answering([{ address: '2606:4700::1', family: 6 }])), 'v6.example', true)
  t.same(v6.address, [{ address: '2606:4700::1', family: 6 }], 'all: true answers the checked list')
})

async function listen(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; origin: string }> {
  const server = createServer(handler)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    server.closeAllConnections()
    server.close()
  })
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
}

t.test('the guarded fetch connects only where the guard allows, and never follows a redirect', async (t) => {
  const hits: string[] = []
  const { origin } = await listen((req, res) => {
    hits.push(req.url ?? '')
    if (req.url === '/redirect') res.writeHead(307, { location: `${origin}/target` }).end()
    else if (req.url === '/big') res.writeHead(200).end('x'.repeat(5000))
    else if (req.url === '/slow') setTimeout(() => res.writeHead(200).end('late'), 2000).unref()
    else res.writeHead(200, { 'content-type': 'text/plain' }).end('ok')
  })
  const port = new URL(origin).port
  const strict = createGuardedFetch({ allowPrivate: false, requireHttps: false, timeoutMs: 300, maxResponseBytes: 1024 })
  const open = createGuardedFetch({ allowPrivate: true, requireHttps: false, timeoutMs: 300, maxResponseBytes: 1024 })
  t.teardown(() => (strict.close(), open.close()))

  const byName = await strict(`http://localhost:${port}/by-name`, { method: 'POST', body: 'x' }).catch((e: unknown) => e)
  t.match(byName, { reason: 'refused', detail: 'loopback' }, 'a name that resolves to loopback is refused at connect')
  const byLiteral = await strict(`http://127.1:${port}/by-literal`).catch((e: unknown) => e)
  t.match(byLiteral, { reason: 'refused', detail: 'loopback' })
  t.same(hits, [], 'neither reached the server')

  const ok = await open(`http://localhost:${port}/hello`, { method: 'POST', body: '{}' })
  t.equal(ok.status, 200)
  t.equal(await ok.text(), 'ok')
  for (const redirect of ['error', 'follow'] as const) {
    const error = await open(`${origin}/redirect`, { redirect }).catch((e: unknown) => e)
    t.match(error, { reason: 'redirect' }, `redirect: ${redirect} is not followed`)
  }
  t.notOk(hits.includes('/target'), 'the redirect target was never requested')
  t.match(await open(`${origin}/big`).catch((e: unknown) => e), { reason: 'too_large' })
  const slow = await open(`${origin}/slow`).catch((e: unknown) => e)
  t.type(slow, GuardedFetchError)
  t.match(slow, { reason: 'timeout' })
  t.notMatch(String((slow as Error).message), new RegExp(port), 'errors name no host or port')
})
