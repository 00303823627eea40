/**
 * Which addresses an outbound request to a user-supplied URL (a chat webhook, later any callback)
 * may reach. A URL someone pastes must not make the service talk to itself, its database, the
 * cloud metadata endpoint or anything else on a private network (SSRF). Host names are checked
 * where they are resolved, inside the socket's own lookup, so the address that was checked is the
 * address connected to and a DNS answer that changes between check and use (rebinding) gains
 * nothing. IP literals never reach a lookup, so checkOutboundUrl checks them first.
 *
 * Parsing is WHATWG URL's (which already turns 0x7f.1, 127.1, 2130706433 and 0177.0.0.1 into
 * 127.0.0.1) and matching is node's BlockList; nothing here parses addresses by hand.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns'
import { BlockList, isIP, isIPv4 } from 'node:net'

/** What an address is, for the message that says why it was refused. */
export type AddressKind =
  | 'public'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'shared'
  | 'link-local'
  | 'multicast'
  | 'documentation'
  | 'benchmarking'
  | 'ipv4-mapped'
  | 'reserved'
  | 'not-an-ip'

type Rule = readonly [kind: Exclude<AddressKind, 'public' | 'not-an-ip'>, network: string, prefix: number]

/** IANA special-purpose IPv4 ranges that are not globally reachable (RFC 6890 and successors). */
const IPV4_RULES: readonly Rule[] = [
  ['unspecified', '0.0.0.0', 8],
  ['private', '10.0.0.0', 8],
  ['shared', '100.64.0.0', 10], // carrier-grade NAT: another customer's network, not the internet
  ['loopback', '127.0.0.0', 8],
  ['link-local', '169.254.0.0', 16], // includes the cloud metadata endpoint 169.254.169.254
  ['private', '172.16.0.0', 12],
  ['reserved', '192.0.0.0', 24],
  ['documentation', '192.0.2.0', 24],
  ['reserved', '192.88.99.0', 24], // deprecated 6to4 relay anycast
  ['private', '192.168.0.0', 16],
  ['benchmarking', '198.18.0.0', 15],
  ['documentation', '198.51.100.0', 24],
  ['documentation', '203.0.113.0', 24],
  ['multicast', '224.0.0.0', 4],
  ['reserved', '240.0.0.0', 4], // includes the broadcast address 255.255.255.255
]

/** IPv6 ranges checked before the global-unicast test; the most specific come first. */
const IPV6_RULES: readonly Rule[] = [
  ['unspecified', '::', 128],
  ['loopback', '::1', 128],
  // An IPv4 address in IPv6 clothing reaches the IPv4 host: refused outright, whatever it wraps.
  ['ipv4-mapped', '::ffff:0:0', 96],
  ['reserved', '::', 96], // deprecated IPv4-compatible addresses
  ['private', '64:ff9b:1::', 48], // local-use NAT64
  ['reserved', '100::', 64], // discard-only
  ['documentation', '2001:db8::', 32],
  ['reserved', '2001::', 23], // IETF protocol assignments, Teredo (which tunnels to IPv4) included
  ['documentation', '3fff::', 20],
  ['reserved', '5f00::', 16], // SRv6 segment identifiers
  ['private', 'fc00::', 7], // unique local
  ['link-local', 'fe80::', 10],
  ['reserved', 'fec0::', 10], // deprecated site-local
  ['multicast', 'ff00::', 8],
]

/**
 * Prefixes that carry an IPv4 address inside an IPv6 one and reach that IPv4 host: NAT64
 * (64:ff9b::/96, the IPv4 address in the last 32 bits) and 6to4 (2002::/16, in bits 16 to 48).
 * Each IPv4 rule is projected into both, so 64:ff9b::127.0.0.1 is loopback, while the NAT64 form
 * of a public address (what DNS64 hands out on IPv6-only networks) stays public.
 */
function embeddedRules(): Rule[] {
  const rules: Rule[] = []
  for (const [kind, network, prefix] of IPV4_RULES) {
    const octets = network.split('.').map(Number)
    const hex = (a: number, b: number): string => ((octets[a]! << 8) | octets[b]!).toString(16)
    rules.push([kind, `64:ff9b::${network}`, 96 + prefix])
    rules.push([kind, `2002:${hex(0, 1)}:${hex(2, 3)}::`, 16 + prefix])
  }
  return rules
}

// One list per rule and per family: node's BlockList matches IPv4 addresses against IPv6 rules
// as if IPv4-mapped, so a shared list would call every IPv4 address "ipv4-mapped".
const IPV4_LISTS = buildLists(IPV4_RULES, 'ipv4')
const IPV6_LISTS = buildLists([...IPV6_RULES, ...embeddedRules()], 'ipv6')
/** Global unicast plus NAT64 (whose embedded IPv4 address the rules above already judged). */
const INTERNET_V6 = new BlockList()
INTERNET_V6.addSubnet('2000::', 3, 'ipv6')
INTERNET_V6.addSubnet('64:ff9b::', 96, 'ipv6')

function buildLists(rules: readonly Rule[], family: 'ipv4' | 'ipv6'): Array<readonly [AddressKind, BlockList]> {
  return rules.map(([kind, network, prefix]) => {
    const list = new BlockList()
    list.addSubnet(network, prefix, family)
    return [kind, list] as const
  })
}

/** Classifies an IP address (as dns.lookup or a URL's bracket-less hostname gives it). */
export function classifyAddress(address: string): AddressKind {
  // A zone index (fe80::1%eth0) names an interface, not part of the address.
  const ip = address.replace(/%.*$/, '')
  const family = isIP(ip)
  if (family === 0) return 'not-an-ip'
  // Order matters only for the kind named in messages; every listed range is refused either way.
  const lists = family === 4 ? IPV4_LISTS : IPV6_LISTS
  const type = family === 4 ? 'ipv4' : 'ipv6'
  for (const [kind, list] of lists) if (list.check(ip, type)) return kind
  if (family === 6 && !INTERNET_V6.check(ip, 'ipv6')) return 'reserved'
  return 'public'
}

/** Why a URL was refused before any connection was attempted. */
export type UrlRefusal = 'malformed' | 'scheme' | 'credentials' | AddressKind

/** The outcome of checkOutboundUrl: the parsed URL, or why it may not be requested. */
export type UrlCheck = { readonly ok: true; readonly url: URL } | { readonly ok: false; readonly reason: UrlRefusal }

/** Options shared by the URL check and the guarded lookup. */
export interface GuardOptions {
  /** Let requests reach private, loopback and other non-public addresses (development and tests only). */
  readonly allowPrivate: boolean
  /** Refuse http: (anything but https:). */
  readonly requireHttps: boolean
}

/**
 * Parses raw with WHATWG URL and refuses what may not be requested: other schemes, embedded
 * credentials, and IP-literal hosts that are not public. Host names pass here and are checked by
 * the guarded lookup when the socket resolves them.
 */
export function checkOutboundUrl(raw: string, options: GuardOptions): UrlCheck {
  if (!URL.canParse(raw)) return { ok: false, reason: 'malformed' }
  const url = new URL(raw)
  const schemes = options.requireHttps ? ['https:'] : ['https:', 'http:']
  if (!schemes.includes(url.protocol)) return { ok: false, reason: 'scheme' }
  if (url.username !== '' || url.password !== '') return { ok: false, reason: 'credentials' }
  if (url.hostname === '') return { ok: false, reason: 'malformed' }
  const literal = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : isIPv4(url.hostname) ? url.hostname : undefined
  if (literal !== undefined && !options.allowPrivate) {
    const kind = classifyAddress(literal)
    if (kind !== 'public') return { ok: false, reason: kind }
  }
  return { ok: true, url }
}

/** Raised by the guarded lookup; code lets callers tell it from network errors. */
export class AddressRefused extends Error {
  readonly code = 'ERR_ADDRESS_REFUSED'
  constructor(readonly kind: AddressKind) {
    super(`refused to connect to a ${kind} address`)
    this.name = 'AddressRefused'
  }
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void
/** node's dns.lookup signature as net.connect calls it (options always given). */
export type LookupFunction = (hostname: string, options: LookupOptions, callback: LookupCallback) => void

/**
 * A lookup for net/http(s) sockets that resolves with base (dns.lookup by default) and refuses the
 * whole answer if any address in it is not public, so a name that resolves to a public and a
 * private address cannot be steered to the private one. The socket connects only to what this
 * returns, which pins the checked address for the connection.
 */
export function guardedLookup(base: LookupFunction = dnsLookup as LookupFunction): LookupFunction {
  return (hostname, options, callback) => {
    base(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, options.all ? [] : '', undefined)
      const list = addresses as LookupAddress[]
      for (const entry of list) {
        const kind = classifyAddress(entry.address)
        if (kind !== 'public') return callback(new AddressRefused(kind), options.all ? [] : '', undefined)
      }
      if (list.length === 0) return callback(Object.assign(new Error('no addresses'), { code: 'ENOTFOUND' }), options.all ? [] : '', undefined)
      if (options.all) return callback(null, list)
      callback(null, list[0]!.address, list[0]!.family)
    })
  }
}
