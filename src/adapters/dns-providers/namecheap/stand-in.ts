// Namecheap API, the parts the adapter uses (https://www.namecheap.com/support/api/methods/domains/get-list/,
// …/domains-dns/get-hosts/, …/domains-dns/set-hosts/, https://www.namecheap.com/support/api/error-codes/):
// XML answers with HTTP 200 even for errors (`Status="ERROR"`, `<Error Number>`: 1011102 bad API key,
// 1011150 client IP not whitelisted, 2019166 domain not found); 429 when rate limited. getList pages
// by Page/PageSize with `<Paging>`; getHosts answers the whole zone; setHosts replaces every host
// (HostNameN, RecordTypeN, AddressN, MXPrefN, TTLN) and sets the zone's mail setting to the EmailType
// sent (none sent: NONE, so a client that drops it switches the customer's mail off); MX hosts need
// EmailType=MX. getHosts answers the zone's EmailType on its result (src/adapters/dns-providers/namecheap/card.ts).
import { nextId, servePage, startFake, type Fake } from '../../../../test/harness/provider-fakes/common.ts'
import type { FakeCase } from '../../../../test/harness/provider-fakes/common.ts'

export interface NcHost {
  HostId?: number | string
  Name: string
  Type: string
  Address: string
  MXPref: number | string
  TTL: number | string
  [attr: string]: unknown
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
const xml = (body: string, status = 200) => new Response(`<?xml version="1.0" encoding="utf-8"?>\n${body}`, { status, headers: { 'content-type': 'text/xml' } })
const fail = (num: string, msg: string) => xml(`<ApiResponse Status="ERROR" xmlns="http://api.namecheap.com/xml.response"><Errors><Error Number="${num}">${esc(msg)}</Error></Errors><Warnings /><RequestedCommand /></ApiResponse>`)
const ok = (command: string, inner: string) => xml(`<ApiResponse Status="OK" xmlns="http://api.namecheap.com/xml.response"><Errors /><RequestedCommand>${command}</RequestedCommand><CommandResponse Type="${command}">${inner}</CommandResponse></ApiResponse>`)

export function startNamecheapFake(user = 'pat' + nextId(), key = nextId('nck').padEnd(32, 'n'), ip = '192.0.2.10'): Fake<NcHost> {
  let ids = 1
  return startFake<NcHost>({
    credential: `${user}:${key}:${ip}`,
    zoneId: (name) => name,
    throttled: () => xml('<ApiResponse Status="ERROR"><Errors><Error Number="500000">Too many requests</Error></Errors></ApiResponse>', 429),
    async handle(req, url, f) {
      const p = req.method === 'POST' ? new URLSearchParams(await req.text()) : url.searchParams
      if (p.get('ApiUser') !== user || p.get('ApiKey') !== key) return fail('1011102', 'API Key is invalid or API access has not been enabled')
      // The whitelist holds the one address given; anything else (127.0.0.1 included) is refused.
      if (p.get('ClientIp') !== ip) return fail('1011150', `Invalid request IP: ${p.get('ClientIp')}`)
      const command = p.get('Command') ?? ''
      if (command === 'namecheap.domains.getList') {
        const page = Number(p.get('Page') ?? 1)
        const s = servePage(f, 'zones', f.zones, page, Number(p.get('PageSize') ?? 20))
        return ok(command, `<DomainGetListResult>${s.items.map((z, i) => `<Domain ID="${i + 1}" Name="${z.name}" User="${user}" IsExpired="false" IsOurDNS="true" />`).join('')}</DomainGetListResult><Paging><TotalItems>${s.total}</TotalItems><CurrentPage>${page}</CurrentPage><PageSize>${s.size}</PageSize></Paging>`)
      }
      const zone = f.zones.find((z) => z.name === `${p.get('SLD')}.${p.get('TLD')}`)
      if (!zone) return fail('2019166', 'Domain not found')
      if (command === 'namecheap.domains.dns.getHosts') {
        const hostXml = (h: NcHost) => `<host ${Object.entries({ HostId: (h.HostId ??= ++ids), ...h }).map(([k, v]) => `${k}="${esc(String(v))}"`).join(' ')} />`
        return ok(command, `<DomainDNSGetHostsResult Domain="${zone.name}" EmailType="${esc(String(zone.settings?.EmailType ?? 'MX'))}" IsUsingOurDNS="true">${zone.records.map(hostXml).join('')}</DomainDNSGetHostsResult>`)
      }
      if (command === 'namecheap.domains.dns.setHosts') {
        const hosts: NcHost[] = []
        for (let i = 1; p.has(`HostName${i}`); i++) {
          const h: NcHost = { HostId: ++ids, Name: p.get(`HostName${i}`)!, Type: p.get(`RecordType${i}`) ?? '', Address: p.get(`Address${i}`) ?? '', MXPref: p.get(`MXPref${i}`) ?? '10', TTL: p.get(`TTL${i}`) ?? '1800' }
          if (!h.Type || !h.Address) return fail('2050900', `Invalid Address for host ${i}`)
          if (h.Type === 'MX' && (p.get('EmailType') ?? '').toUpperCase() !== 'MX') return fail('2050900', 'MX records need EmailType=MX')
          hosts.push(h)
        }
        for (const h of hosts) if (h.Type === 'CNAME' && hosts.some((o) => o !== h && o.Name === h.Name)) return fail('2050900', `CNAME ${h.Name} cannot stand beside other records`)
        zone.records = hosts
        zone.settings = { ...zone.settings, EmailType: (p.get('EmailType') ?? 'NONE').toUpperCase() }
        return ok(command, `<DomainDNSSetHostsResult Domain="${zone.name}" IsSuccess="true" />`)
      }
      return fail('1010900', `Invalid command ${command}`)
    },
  })
}

/** This stand-in's case in the shared contract, do-no-harm and host-property tests (the test harness lists every folder's: test/harness/provider-folders.generated.ts). */
export const fakeCase: FakeCase = {
  id: 'namecheap',
  reference: 'https://www.namecheap.com/support/api/methods/domains-dns/set-hosts/',
  unpaged: { lists: ['records'], why: 'getHosts answers the whole zone' },
  start: () => startNamecheapFake(),
  base: (f) => f.url,
  badCredential: 'pat:wrong:192.0.2.10',
  foreignZone: { id: 'not-mine.example', name: 'not-mine.example' },
  // setHosts replaces every host, and Namecheap numbers them afresh.
  volatile: ['HostId'],
}
