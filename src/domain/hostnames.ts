// Hostnames as Portico stores and compares them: lowercase ASCII (IDNA), no trailing dot. The public
// suffix list (tldts) tells a registrable domain (the zone apex) from a subdomain, and its private
// section tells hosting-platform subdomains (github.io, vercel.app, …), which customers cannot connect.
import { toASCII } from 'node:punycode'
import { parse } from 'tldts'

export function normalizeHostname(input: string): string | null {
  let h = input.trim().toLowerCase()
  // A pasted URL ("https://Shop.example.com/path") is read as its host.
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//.exec(h)
  if (scheme) h = h.slice(scheme[0].length).split(/[/?#]/)[0]!.replace(/:\d+$/, '')
  h = h.replace(/\.$/, '')
  try {
    h = toASCII(h)
  } catch {
    return null
  }
  if (h.length === 0 || h.length > 253) return null
  const labels = h.split('.')
  if (labels.length < 2) return null
  return labels.every((l) => /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/.test(l)) ? h : null
}

export interface ParsedDomain {
  /** The hostname to connect, normalised. */
  domain: string
  /** The registrable domain: the zone a DNS provider hosts. */
  apex: string
  /** Labels left of the apex ('' for the apex itself). */
  subdomain: string
  isApex: boolean
  /** Under a hosting platform's public suffix (PSL private section). */
  platform: boolean
  publicSuffix: string
}

export function parseDomain(input: string): ParsedDomain | null {
  const domain = normalizeHostname(input)
  if (!domain) return null
  const icann = parse(domain, { allowPrivateDomains: false })
  const priv = parse(domain, { allowPrivateDomains: true })
  if (!icann.domain || !icann.publicSuffix) return null
  // With the private section, a platform suffix (github.io) becomes the public suffix.
  const platform = priv.isPrivate === true && priv.publicSuffix !== icann.publicSuffix
  const apex = icann.domain
  const subdomain = domain === apex ? '' : domain.slice(0, -(apex.length + 1))
  return { domain, apex, subdomain, isApex: subdomain === '', platform, publicSuffix: icann.publicSuffix }
}

/**
 * A hostname a connection may carry: a name, or a wildcard `*.<name>` (every label one level below
 * the name; served under one wildcard certificate, which only DNS-01 can validate). The wildcard's
 * apex and subdomain are those of the name below it, with `*` in front of the subdomain.
 */
export function parseConnectable(input: string): (ParsedDomain & { wildcard: boolean }) | null {
  const trimmed = input.trim()
  if (!trimmed.startsWith('*.')) {
    const p = parseDomain(trimmed)
    return p && { ...p, wildcard: false }
  }
  const p = parseDomain(trimmed.slice(2))
  if (!p) return null
  return { ...p, domain: `*.${p.domain}`, subdomain: p.subdomain ? `*.${p.subdomain}` : '*', isApex: false, wildcard: true }
}

/** `host` relative to the zone apex, `@` for the apex itself. */
export function relativeHost(fqdn: string, apex: string): string {
  if (fqdn === apex) return '@'
  return fqdn.endsWith('.' + apex) ? fqdn.slice(0, -(apex.length + 1)) : fqdn
}

export function absoluteHost(host: string, apex: string): string {
  if (host === '@' || host === '') return apex
  const h = host.toLowerCase().replace(/\.$/, '')
  return h === apex || h.endsWith('.' + apex) ? h : `${h}.${apex}`
}

/**
 * A public IPv4 address: not private, loopback, link-local, shared (100.64/10), unspecified,
 * multicast, reserved, broadcast or a documentation range (RFC 6890 special-purpose registry).
 */
export function isPublicIPv4(ip: string): boolean {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip)
  if (!m) return false
  const o = m.slice(1).map(Number)
  if (o.some((x) => x > 255) || m.slice(1).some((x) => x.length > 1 && x.startsWith('0'))) return false
  const [a, b, c] = o as [number, number, number, number]
  if (a === 0 || a === 10 || a === 127 || a >= 224) return false
  if (a === 100 && b >= 64 && b <= 127) return false
  if (a === 169 && b === 254) return false
  if (a === 172 && b >= 16 && b <= 31) return false
  if (a === 192 && b === 168) return false
  if (a === 192 && b === 0 && (c === 0 || c === 2)) return false
  if (a === 198 && (b === 18 || b === 19)) return false
  if (a === 198 && b === 51 && c === 100) return false
  if (a === 203 && b === 0 && c === 113) return false
  return true
}

/** A hostname under a real public suffix (ICANN section), not an address literal or a bare name. */
export function isPublicHostname(h: string): boolean {
  const p = parse(h, { allowPrivateDomains: false })
  return !p.isIp && p.isIcann === true && !!p.domain
}
