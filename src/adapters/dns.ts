// The lookup Portico's DNS adapters speak: one lookup that tells an answer, NXDOMAIN, no data and a
// resolver failure apart. The resolver (resolver.ts) answers it from the servers in DNS_RESOLVERS, the
// authoritative walk (authoritative.ts) from each zone's own nameservers. Values come back as a person
// writes them in a zone (lowercase hostnames without the trailing dot, TXT unquoted and joined, MX as
// "10 mx.example.com").
export type LookupType = 'A' | 'AAAA' | 'CNAME' | 'TXT' | 'MX' | 'NS' | 'CAA' | 'SOA'

export type Lookup = (
  | { status: 'ok'; values: string[]; cname?: string }
  | { status: 'nxdomain' }
  | { status: 'nodata' }
  | { status: 'error'; error: string }
) & {
  /** Who answered, when the adapter tells: the zone's own nameservers, or a recursive resolver. */
  via?: 'authoritative' | 'recursive'
}

export interface Dns {
  lookup(name: string, type: LookupType): Promise<Lookup>
}

export const valuesOf = (l: Lookup): string[] => (l.status === 'ok' ? l.values : [])
