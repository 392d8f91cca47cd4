// Wix Domain DNS API, the parts the adapter uses, answering as the card says
// (src/adapters/dns-providers/wix/card.ts): an account-level API key in `Authorization` (no scheme) and the
// account id in `wix-account-id` (a wrong key: 401; a wrong account id: 404 TARGET_ACCOUNT_NOT_FOUND);
// errors in Wix's standard form `{message, details: {applicationError: {code, description}}}`. The
// account's domains: GET /domains/v1/connected-domains (connection type NAMESERVERS or POINTING) and
// GET /domains/v1/registered-domains, each cursor-paged (`paging.limit` up to 100, `paging.cursor`;
// `pagingMetadata {count, cursors.next, hasNext}`). A zone: GET /domains/v1/dns-zones/{domain} →
// `{dnsZone: {id, domainName, records, dnssecEnabled}}`, whole; PATCH with `deletions` and
// `additions`: a deletion must name a record object as it stands, an addition beside an object of the
// same host name and type is refused (428, as Wix's error list says), every record needs a value, MX
// values start with a priority, a CNAME cannot be the domain itself; applied whole or not at all.
import { wix as card } from './card.ts'
import { askedPage, cardThrottle, json, nextId, startFake, type Fake, type FakeZone } from '../../../../test/harness/provider-fakes/common.ts'
import type { WixRecord } from './adapter.ts'
import type { FakeCase } from '../../../../test/harness/provider-fakes/common.ts'

export type WixFake = Fake<WixRecord> & {
  /** Zones the account registered through Wix (listed as registered domains, not connected ones). */
  registered: Set<string>
  /** Domains connected by pointing: listed, but Wix holds no zone for them. */
  pointing: Set<string>
}

export const wixError = (status: number, code: string, message: string) => json(status, { message, details: { applicationError: { code, description: message, data: {} } } })

const same = (a: string[], b: string[]) => a.length === b.length && [...a].sort().every((x, i) => x === [...b].sort()[i])

export function startWixFake(accountId = crypto.randomUUID(), key = 'IST.' + nextId().padEnd(40, 'w') + '.' + nextId().padEnd(60, 'x')): WixFake {
  const registered = new Set<string>()
  const pointing = new Set<string>()
  const zoneRow = (z: FakeZone<WixRecord>) => ({ id: z.name, domain: z.name, connectionType: pointing.has(z.name) ? 'POINTING' : 'NAMESERVERS', assignmentType: 'PRIMARY', siteId: accountId })
  const list = (f: Fake<WixRecord>, url: URL, key: string, rows: unknown[]) => {
    const limit = Number(url.searchParams.get('paging.limit') ?? 50)
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) return wixError(400, 'INVALID_ARGUMENT', 'paging.limit must be between 1 and 100')
    const cursor = url.searchParams.get('paging.cursor')
    const from = cursor ? Number(Buffer.from(cursor, 'base64url').toString()) : 0
    const items = askedPage(f, 'zones', rows, from, limit, 100)
    const hasNext = from + items.length < rows.length
    return json(200, { [key]: items, pagingMetadata: { count: items.length, cursors: hasNext ? { next: Buffer.from(String(from + items.length)).toString('base64url') } : {}, hasNext } })
  }
  const fake = startFake<WixRecord>({
    credential: `${accountId}:${key}`,
    zoneId: (name) => name,
    throttled: cardThrottle(card, 0),
    async handle(req, url, f) {
      if (req.headers.get('authorization') !== key) return wixError(401, 'UNAUTHENTICATED', 'Unauthenticated: the API key is not valid')
      if (req.headers.get('wix-account-id') !== accountId) return wixError(404, 'TARGET_ACCOUNT_NOT_FOUND', 'Target account id not found in request context.')
      if (req.method === 'GET' && url.pathname === '/domains/v1/connected-domains') return list(f, url, 'connectedDomains', f.zones.filter((z) => !registered.has(z.name)).map(zoneRow))
      if (req.method === 'GET' && url.pathname === '/domains/v1/registered-domains') return list(f, url, 'registeredDomains', f.zones.filter((z) => registered.has(z.name)).map((z) => ({ id: z.name, domain: z.name, status: 'ACTIVE' })))
      const m = /^\/domains\/v1\/dns-zones\/([^/]+)$/.exec(url.pathname)
      const name = m ? decodeURIComponent(m[1]!) : ''
      const zone = f.zones.find((z) => z.name === name && !pointing.has(z.name))
      if (!m) return wixError(404, 'NOT_FOUND', 'Not found')
      if (req.method === 'GET') {
        if (!zone) return wixError(404, 'DNS_ZONE_NOT_FOUND', `No dns zone found for domain name ${name}.`)
        return json(200, { dnsZone: { id: zone.name, domainName: zone.name, records: zone.records, dnssecEnabled: Boolean(zone.settings?.dnssecEnabled) } })
      }
      if (req.method !== 'PATCH') return wixError(405, 'METHOD_NOT_ALLOWED', 'Method not allowed')
      if (!zone) return wixError(428, 'DOMAIN_NOT_PERMITTED', `Domain ${name} is not permitted to target account.`)
      const b = (await req.json()) as { additions?: WixRecord[]; deletions?: WixRecord[] }
      const additions = b.additions ?? []
      const deletions = b.deletions ?? []
      if (additions.length === 0 && deletions.length === 0) return wixError(428, 'DOMAIN_UPDATE_EMPTY_UPDATE_REQUEST', 'The update request is empty.')
      let next = [...zone.records]
      for (const d of deletions) {
        const i = next.findIndex((r) => r.hostName === d.hostName && r.type === d.type && same(r.values, d.values ?? []))
        if (i === -1) return wixError(400, 'INVALID_ARGUMENT', `Record ${d.type} ${d.hostName} to delete does not match the zone`)
        next.splice(i, 1)
      }
      for (const a of additions) {
        if (!Array.isArray(a.values) || a.values.length === 0 || a.values.some((v) => !v)) return wixError(428, 'DOMAIN_DNS_EMPTY_RECORD_VALUE', `Value of record ${a.type} is empty.`)
        if (a.hostName !== zone.name && !a.hostName.endsWith(`.${zone.name}`)) return wixError(400, 'INVALID_ARGUMENT', `Host name ${a.hostName} is not in ${zone.name}`)
        if (a.type === 'MX' && a.values.some((v) => !/^\d+ \S+$/.test(v))) return wixError(428, 'DOMAIN_MX_RECORD_VALUE_INVALID', `Value of MX record ${a.values[0]} is invalid, it should start with a priority and then the mail server, for example "5 aspmx.l.google.com".`)
        if (a.type === 'CNAME' && a.hostName === zone.name) return wixError(428, 'DOMAIN_CNAME_RECORD_HOSTNAME_INVALID', `Host name of the CNAME record ${a.hostName} is invalid, it should end with the domain name but not equal to it, for example "en.domain.com".`)
        if (a.values.length > 50) return wixError(400, 'INVALID_ARGUMENT', 'Wix limits DNS records to 50 values per type')
        if (next.some((r) => r.hostName === a.hostName && r.type === a.type)) {
          return wixError(428, 'DOMAIN_MX_RECORD_VALUE_INVALID', `Multiple ${a.type} records with the same hostName ${a.hostName} not supported, the multiple values belong to the same hostName should be combined under one ${a.type}.`)
        }
        next.push({ type: a.type, hostName: a.hostName, values: [...a.values], ttl: a.ttl ?? 3600 })
      }
      if (!next.some((r) => r.type === 'SOA') || !next.some((r) => r.type === 'NS')) return wixError(400, 'INVALID_ARGUMENT', 'A DNS zone needs its NS and SOA records')
      zone.records = next
      return json(200, { dnsZone: { id: zone.name, domainName: zone.name, records: zone.records, dnssecEnabled: Boolean(zone.settings?.dnssecEnabled) } })
    },
  })
  return Object.assign(fake, { registered, pointing })
}

/** What a new zone holds at Wix: its SOA and NS records (Wix requires both). */
export function seedWixZone(name: string, f: Fake<WixRecord>) {
  f.zones.find((z) => z.name === name)!.records.push(
    { type: 'SOA', hostName: name, values: [`ns0.wixdns.net. support.wix.com. 1 10800 3600 604800 3600`], ttl: 3600 },
    { type: 'NS', hostName: name, values: ['ns0.wixdns.net', 'ns1.wixdns.net'], ttl: 86400 },
  )
}

/** This stand-in's case in the shared contract, do-no-harm and host-property tests (the test harness lists every folder's: test/harness/provider-folders.generated.ts). */
export const fakeCase: FakeCase = {
  id: 'wix',
  reference: 'https://dev.wix.com/docs/rest/account-level/domains/domain-dns/update-dns-zone',
  unpaged: { lists: ['records'], why: 'GET /domains/v1/dns-zones/{domain} answers the whole zone' },
  start: () => startWixFake(),
  base: (f) => f.url,
  // The right key with an account id it does not belong to (Wix: 404 TARGET_ACCOUNT_NOT_FOUND).
  badCredential: (f) => `${crypto.randomUUID()}:${f.credential.split(':').slice(1).join(':')}`,
  foreignZone: { id: 'not-mine.example', name: 'not-mine.example' },
  seedZone: seedWixZone,
  // The adapter asks 100 a page; Wix answers as many as asked, up to 100.
  pageFill: { zones: 101 },
  rowKey: (r, zone) => ({ name: String(r.hostName).toLowerCase() === zone ? zone : String(r.hostName).toLowerCase(), type: String(r.type).toUpperCase() }),
}
