// Who is really calling, behind a proxy (TRUST_PROXY). The socket's peer is the first hop; while a hop
// is a trusted proxy, the address it says it forwarded for (the right-most not yet used entry of the one
// header the proxies set, TRUST_PROXY_HEADER: `X-Forwarded-For` by default, or `Forwarded: for=` (RFC
// 7239)) is the next hop. The other header is never read: a client could send it through a proxy that
// only appends to the one it knows, and pick its own address. The first hop
// that is not trusted is the client. An untrusted peer's forwarded headers are never read, so a
// client cannot pick its own address; an entry that is not an address stops the walk at the last
// trusted hop. Budgets then key on the client address and its network prefix (/24 for IPv4, /64 for
// IPv6: what one customer of an ISP or one host usually holds).
import ipaddr from 'ipaddr.js'

/**
 * A client's address, or how to find it: the REST face passes a function, so a request that never
 * needs its address (a read by a valid credential, with no failure anywhere to weigh it against) costs
 * no getpeername system call.
 */
export type AddressSource = string | null | (() => string | null) | { address(): string | null }

/** The address a source names, found now when it must be asked for. */
export function addressOf(source: AddressSource | undefined): string | null {
  if (typeof source === 'function') return source()
  if (typeof source === 'object' && source !== null) return source.address()
  return source ?? null
}

/** The header trusted proxies set for the address they forwarded for (TRUST_PROXY_HEADER). */
export type ProxyHeader = 'x-forwarded-for' | 'forwarded'

export type TrustProxy = ((address: string) => boolean) & { header?: ProxyHeader }

/** Parses TRUST_PROXY-style CIDRs ("10.0.0.0/8, 2001:db8::/32", a bare address meaning /32 or /128); throws on a bad entry. */
export function trustedProxies(list: readonly string[], header: ProxyHeader = 'x-forwarded-for'): TrustProxy {
  const trust = proxyRanges(list)
  return Object.assign(trust, { header })
}

function proxyRanges(list: readonly string[]): (address: string) => boolean {
  const ranges = list.map((entry) => {
    const e = entry.trim()
    if (!e.includes('/')) {
      const a = ipaddr.parse(e)
      return [a, a.kind() === 'ipv4' ? 32 : 128] as [ipaddr.IPv4 | ipaddr.IPv6, number]
    }
    return ipaddr.parseCIDR(e)
  })
  if (ranges.length === 0) return () => false
  return (address) => {
    const a = parse(address)
    return a !== null && ranges.some(([net, bits]) => a.kind() === net.kind() && a.match(net, bits))
  }
}

/** An address, IPv4-mapped IPv6 read as IPv4; null when not an address. */
function parse(address: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const bare = address.trim().replace(/^\[|\](:\d+)?$/g, '')
  return ipaddr.isValid(bare) ? ipaddr.process(bare) : null
}

/**
 * What an address string normalises to, and its budget prefix, remembered for the addresses seen
 * lately: every request asks for both, callers come back, and parsing an address costs more than a
 * cached read's own work. Bounded: emptied when full.
 */
interface Known {
  /** The normalised address; null when the string is not an address. */
  address: string | null
  prefix: string
}
const known = new Map<string, Known>()
const KNOWN_MAX = 10_000

function knownAddress(raw: string): Known {
  let k = known.get(raw)
  if (k) return k
  const a = parse(raw)
  k = { address: a ? a.toString() : null, prefix: a ? prefixOf(a) : raw }
  if (known.size >= KNOWN_MAX) known.clear()
  known.set(raw, k)
  return k
}

function prefixOf(a: ipaddr.IPv4 | ipaddr.IPv6): string {
  if (a.kind() === 'ipv4') return `${a.toByteArray().slice(0, 3).join('.')}.0/24`
  const parts = (a as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16))
  return `${parts.join(':')}::/64`
}

/** The `for=` addresses of a Forwarded header, first hop first (quotes, brackets and ports dropped). */
function forwardedFor(header: string): string[] {
  const out: string[] = []
  for (const element of header.split(',')) {
    const m = /(?:^|;)\s*for\s*=\s*("?)([^";]*)\1/i.exec(element)
    if (m) out.push(m[2]!.replace(/^\[/, '').replace(/\](:\d+)?$/, '').replace(/^(\d+\.\d+\.\d+\.\d+):\d+$/, '$1'))
  }
  return out
}

/** The client's address (normalised), walking trusted proxies back from the socket peer. */
export function clientAddress(headers: Headers, peer: string | null, trusted: TrustProxy): string | null {
  if (peer === null) return null
  const peerAddress = knownAddress(peer).address
  if (peerAddress === null) return peer
  // A peer that is no trusted proxy is the client: its forwarded headers are not read at all.
  if (!trusted(peerAddress)) return peerAddress
  const first = parse(peer)!
  // Only the header the proxies set: the other is whatever the client sent.
  const chain =
    trusted.header === 'forwarded'
      ? forwardedFor(headers.get('forwarded') ?? '')
      : (headers.get('x-forwarded-for') ?? '').split(',').map((s) => s.trim()).filter(Boolean)
  let hop = first
  for (let i = chain.length - 1; i >= 0 && trusted(hop.toString()); i--) {
    const next = parse(chain[i]!)
    if (!next) break
    hop = next
  }
  return hop.toString()
}

/** The network an address belongs to for budgets: its /24 (IPv4) or /64 (IPv6), in CIDR form. */
export function addressPrefix(address: string): string {
  return knownAddress(address).prefix
}

/** The server a page route is given, as far as its peer's address goes. */
export type Peer = { requestIP(r: Request): { address: string } | null } | null | undefined

/** A page route's client address: the socket peer, walked back through the configured trusted proxies
 * (TRUST_PROXY), so a budget behind a load balancer counts people, not the balancer. */
export function addressOfRequest(trustProxy: readonly string[], header?: ProxyHeader): (request: Request, server: Peer) => string | null {
  const trusted = trustedProxies(trustProxy, header)
  return (request, server) => clientAddress(request.headers, server?.requestIP(request)?.address ?? null, trusted)
}
