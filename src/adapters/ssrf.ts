// The SSRF guard for customer-supplied URLs (webhooks, origins). It owns two checks:
// - `isUrlSyntacticallyAllowed`, at registration: http(s) only, no credentials in the URL, https unless
//   loopback is allowed and the host is loopback, and no literal address outside the public internet.
// - `guardUrl`, at use: the same rules, then the host is resolved through the caller's resolver and
//   every address must be allowed (one bad answer refuses the whole name); the answer names the one
//   address to connect to, so the caller connects to what was checked and a DNS rebinding answer
//   cannot slip in between the check and the connection (see src/adapters/http-post.ts).
//
// Invariants:
// - Only `public` addresses pass. The explicit test setting `allowLoopback` adds `loopback` and nothing
//   else: private ranges and cloud metadata stay refused.
// - Literals are read the way operating systems and the WHATWG URL parser read them (inet_aton forms:
//   `2130706433`, `0x7f.1`, `0177.0.0.1`, `127.1`), and IPv6 forms that carry an IPv4 address
//   (mapped, compatible, NAT64, 6to4) are judged by that IPv4 address.
// - Anything not positively known to be global unicast is refused (IANA special-purpose registries,
//   RFC 6890): IPv6 outside 2000::/3 is `reserved`.

export type AddressClass =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'unique_local'
  | 'shared'
  | 'unspecified'
  | 'metadata'
  | 'multicast'
  | 'reserved'
  | 'documentation'
  | 'invalid'

export type GuardResult = { ok: true; url: URL; address: string } | { ok: false; reason: string }
export type SyntaxResult = { ok: true; url: URL } | { ok: false; reason: string }

export interface UrlRules {
  /** The explicit test setting: loopback targets (and plain http to them) are allowed. */
  allowLoopback: boolean
  /** Default true: plain http only to a loopback host under `allowLoopback`. */
  requireHttps?: boolean
}

export interface GuardOptions extends UrlRules {
  /** The caller's resolver: the host's addresses (A and AAAA), as literals. */
  resolve: (host: string) => Promise<string[]>
}

// ---------------------------------------------------------------- literals

/** One part of an inet_aton / WHATWG IPv4 literal: `0x` hex, leading-zero octal, or decimal. */
function ipv4Number(part: string): number | null {
  if (/^0x[0-9a-f]*$/i.test(part)) return part.length === 2 ? 0 : parseInt(part.slice(2), 16)
  if (/^0[0-7]*$/.test(part)) return parseInt(part, 8)
  if (/^[1-9][0-9]*$/.test(part)) return parseInt(part, 10)
  return null
}

/**
 * IPv4 in any of the forms `inet_aton(3)` and the WHATWG URL host parser (§ IPv4 parser) accept: 1 to 4
 * parts, the last filling the remaining bytes (`127.1` is 127.0.0.1, `2130706433` is one 32-bit part).
 */
function parseIPv4(host: string): number | null {
  const parts = host.split('.')
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop() // a trailing dot, as in a FQDN
  if (parts.length > 4) return null
  const nums: number[] = []
  for (const p of parts) {
    const n = ipv4Number(p)
    if (n === null) return null
    nums.push(n)
  }
  const last = nums.pop()!
  if (nums.some((n) => n > 255) || last >= 256 ** (4 - nums.length)) return null
  return nums.reduce((value, n, i) => value + n * 256 ** (3 - i), last)
}

/** The strict dotted quad allowed at the end of an IPv6 literal (RFC 4291 §2.2 form 3). */
function dottedQuad(s: string): number | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s)
  if (!m) return null
  const o = m.slice(1).map(Number)
  if (o.some((x, i) => x > 255 || (m[i + 1]!.length > 1 && m[i + 1]![0] === '0'))) return null
  return o.reduce((v, x) => v * 256 + x, 0)
}

/** IPv6 text (RFC 4291 §2.2) to eight 16-bit groups; a zone (`%eth0`, RFC 6874) is dropped. */
function parseIPv6(text: string): number[] | null {
  let s = text.replace(/%.*$/, '')
  const lastColon = s.lastIndexOf(':')
  if (lastColon < 0) return null
  if (s.includes('.', lastColon)) {
    const v4 = dottedQuad(s.slice(lastColon + 1))
    if (v4 === null) return null
    s = `${s.slice(0, lastColon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`
  }
  const groups = (part: string) => (part === '' ? [] : part.split(':').map((g) => (/^[0-9a-f]{1,4}$/i.test(g) ? parseInt(g, 16) : NaN)))
  const gap = s.indexOf('::')
  let out: number[]
  if (gap < 0) out = groups(s)
  else {
    if (s.indexOf('::', gap + 1) >= 0) return null
    const left = groups(s.slice(0, gap))
    const right = groups(s.slice(gap + 2))
    if (left.length + right.length > 7) return null
    out = [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right]
  }
  return out.length === 8 && out.every((g) => !Number.isNaN(g)) ? out : null
}

const v4Text = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.')

/** RFC 5952 §4 text: lowercase, leading zeros dropped, the longest run of 2+ zero groups as `::`. */
function v6Text(g: number[]): string {
  if (g.slice(0, 6).every((x, i) => x === (i === 5 ? 0xffff : 0))) return `::ffff:${v4Text(g[6]! * 65536 + g[7]!)}` // §5
  let best = -1
  let bestLen = 1
  for (let i = 0; i < 8; ) {
    let j = i
    while (j < 8 && g[j] === 0) j++
    if (j - i > bestLen) [best, bestLen] = [i, j - i]
    i = j === i ? i + 1 : j
  }
  const hex = g.map((x) => x.toString(16))
  if (best < 0) return hex.join(':')
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLen).join(':')}`
}

/**
 * The canonical text of an address literal in any accepted spelling (brackets allowed), or null when
 * `host` is a name. `0x7f.1` → `127.0.0.1`; `[::FFFF:7f00:1]` → `::ffff:127.0.0.1`.
 */
export function parseHostLiteral(host: string): string | null {
  const h = host.trim().replace(/^\[(.*)\]$/, '$1')
  if (h.includes(':')) {
    const g = parseIPv6(h)
    return g && v6Text(g)
  }
  const n = parseIPv4(h)
  return n === null ? null : v4Text(n)
}

// ---------------------------------------------------------------- classes

/** IPv4 ranges in match order (first hit wins); from the IANA IPv4 special-purpose registry. */
const V4_RANGES: [string, number, AddressClass][] = [
  ['169.254.169.254', 32, 'metadata'], // AWS, GCP, Azure, OpenStack instance metadata
  ['169.254.170.2', 32, 'metadata'], // AWS ECS task metadata
  ['100.100.100.200', 32, 'metadata'], // Alibaba Cloud metadata
  ['192.0.0.192', 32, 'metadata'], // Oracle Cloud metadata
  ['0.0.0.0', 8, 'unspecified'], // "this network", RFC 791; 0.0.0.0 reaches the local host on Linux
  ['10.0.0.0', 8, 'private'], // RFC 1918
  ['172.16.0.0', 12, 'private'],
  ['192.168.0.0', 16, 'private'],
  ['100.64.0.0', 10, 'shared'], // carrier-grade NAT, RFC 6598
  ['127.0.0.0', 8, 'loopback'], // RFC 1122 §3.2.1.3
  ['169.254.0.0', 16, 'link_local'], // RFC 3927
  ['192.0.0.0', 24, 'reserved'], // IETF protocol assignments, RFC 6890
  ['192.0.2.0', 24, 'documentation'], // RFC 5737
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['192.88.99.0', 24, 'reserved'], // deprecated 6to4 relay anycast, RFC 7526
  ['198.18.0.0', 15, 'reserved'], // benchmarking, RFC 2544
  ['224.0.0.0', 4, 'multicast'], // RFC 5771
  ['240.0.0.0', 4, 'reserved'], // RFC 1112, including 255.255.255.255
]
const V4_TABLE = V4_RANGES.map(([net, bits, cls]) => ({ net: parseIPv4(net)!, mask: bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0, cls }))

function classifyV4(n: number): AddressClass {
  for (const r of V4_TABLE) if (((n & r.mask) >>> 0) === r.net) return r.cls
  return 'public'
}

const embeddedV4 = (g: number[], at: number) => g[at]! * 65536 + g[at + 1]!
const startsWith = (g: number[], prefix: number[]) => prefix.every((x, i) => g[i] === x)

/** IPv6 classes, from the IANA IPv6 special-purpose registry and RFC 4291 §2.4. */
function classifyV6(g: number[]): AddressClass {
  if (startsWith(g, [0xfd00, 0x0ec2, 0, 0, 0, 0, 0, 0x0254])) return 'metadata' // AWS IMDS over IPv6
  if (g.every((x) => x === 0)) return 'unspecified'
  if (startsWith(g, [0, 0, 0, 0, 0, 0, 0, 1])) return 'loopback'
  // Forms that carry an IPv4 address are judged by it: mapped ::ffff:0:0/96 and compatible ::/96
  // (RFC 4291 §2.5.5), translated ::ffff:0:0:0/96 (RFC 2765 §2.1), NAT64 64:ff9b::/96 (RFC 6052 §2.1).
  if (startsWith(g, [0, 0, 0, 0, 0]) && (g[5] === 0xffff || g[5] === 0)) return classifyV4(embeddedV4(g, 6))
  if (startsWith(g, [0, 0, 0, 0, 0xffff, 0])) return classifyV4(embeddedV4(g, 6))
  if (startsWith(g, [0x64, 0xff9b, 0, 0, 0, 0])) return classifyV4(embeddedV4(g, 6))
  if (startsWith(g, [0x64, 0xff9b, 1])) return 'private' // local-use NAT64, RFC 8215
  if (g[0] === 0x2002) return classifyV4(embeddedV4(g, 1)) // 6to4, RFC 3056 §2
  if (startsWith(g, [0x2001, 0])) return 'reserved' // Teredo, RFC 4380: tunnels to arbitrary IPv4
  if (startsWith(g, [0x2001, 0x0db8]) || (g[0] === 0x3fff && g[1]! < 0x1000)) return 'documentation' // RFC 3849, RFC 9637
  if ((g[0]! & 0xffc0) === 0xfe80) return 'link_local'
  if ((g[0]! & 0xffc0) === 0xfec0) return 'private' // deprecated site-local, RFC 3879
  if ((g[0]! & 0xfe00) === 0xfc00) return 'unique_local' // RFC 4193
  if ((g[0]! & 0xff00) === 0xff00) return 'multicast'
  if (g[0] === 0x2001 && g[1]! < 0x0200) return 'reserved' // IETF protocol assignments 2001::/23
  if (g[0] === 0x5f00) return 'reserved' // SRv6 SIDs, RFC 9602
  return (g[0]! & 0xe000) === 0x2000 ? 'public' : 'reserved' // only 2000::/3 is global unicast
}

/** The class of an address literal (any spelling `parseHostLiteral` accepts); `invalid` for a name. */
export function classifyAddress(ip: string): AddressClass {
  const h = ip.trim().replace(/^\[(.*)\]$/, '$1')
  if (h.includes(':')) {
    const g = parseIPv6(h)
    return g ? classifyV6(g) : 'invalid'
  }
  const n = parseIPv4(h)
  return n === null ? 'invalid' : classifyV4(n)
}

// ---------------------------------------------------------------- URLs

const isAllowed = (cls: AddressClass, rules: UrlRules) => cls === 'public' || (rules.allowLoopback && cls === 'loopback')

/** `a private address`, `an unspecified address`: the wording refusals are recorded with. */
const described = (cls: AddressClass) => `${cls === 'unspecified' ? 'an' : 'a'} ${cls} address`

/** `localhost` and its subdomains always mean loopback (RFC 6761 §6.3). */
const isLocalhostName = (host: string) => /(^|\.)localhost\.?$/i.test(host)

const unbracket = (hostname: string) => hostname.replace(/^\[(.*)\]$/, '$1')

/** Registration-time check; no DNS. The same rules open `guardUrl`. */
export function isUrlSyntacticallyAllowed(raw: string, rules: UrlRules): SyntaxResult {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return { ok: false, reason: 'not a valid absolute URL' }
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ok: false, reason: `scheme ${url.protocol} is not http(s)` }
  if (url.username || url.password) return { ok: false, reason: 'credentials in the URL are not allowed' }
  const host = unbracket(url.hostname)
  const literal = parseHostLiteral(host)
  const cls = literal === null ? null : classifyAddress(literal)
  if (literal !== null && !isAllowed(cls!, rules)) return { ok: false, reason: `${literal} is ${described(cls!)}` }
  const loopbackHost = cls === 'loopback' || (literal === null && isLocalhostName(host))
  if (loopbackHost && !rules.allowLoopback) return { ok: false, reason: `${host} is a loopback name` }
  if (url.protocol === 'http:' && rules.requireHttps !== false && !loopbackHost) return { ok: false, reason: 'https is required' }
  return { ok: true, url }
}

async function addressesOf(host: string, resolve: GuardOptions['resolve']): Promise<string[] | string> {
  const literal = parseHostLiteral(host)
  if (literal !== null) return [literal]
  if (isLocalhostName(host)) return ['127.0.0.1'] // reached only under allowLoopback
  try {
    const found = await resolve(host)
    return found.length > 0 ? found : `${host} has no address`
  } catch (err) {
    return `${host} could not be resolved: ${err instanceof Error ? err.message : String(err)}`
  }
}

/**
 * Use-time check: the URL rules, then every address of the host. On success `address` is the
 * canonical literal to connect to (the first answer); on refusal `reason` says which address and why.
 */
export async function guardUrl(raw: string, opts: GuardOptions): Promise<GuardResult> {
  const syntax = isUrlSyntacticallyAllowed(raw, opts)
  if (!syntax.ok) return syntax
  const host = unbracket(syntax.url.hostname)
  const found = await addressesOf(host, opts.resolve)
  if (typeof found === 'string') return { ok: false, reason: found }
  const addresses: string[] = []
  for (const a of found) {
    const literal = parseHostLiteral(a)
    if (literal === null) return { ok: false, reason: `${host} resolved to something that is not an address: ${a}` }
    const cls = classifyAddress(literal)
    if (!isAllowed(cls, opts)) return { ok: false, reason: `${host} resolves to ${described(cls)} (${literal})` }
    addresses.push(literal)
  }
  return { ok: true, url: syntax.url, address: addresses[0]! }
}
