// Every hosted DNS-provider adapter with its stand-in, for the shared contract test
// (test/integration/dns-adapter-contract.test.ts). Each entry names the published reference its fake
// follows; `badCredential` is a credential of the right shape the fake refuses, `foreignZone` a zone
// id the credential does not reach.
import type { Zone } from '../../../src/adapters/dns-providers/types.ts'
import { nextId, type Fake, type FakeZone } from './common.ts'
import { startCloudflareFake } from './cloudflare.ts'
import { startDigitalOceanFake } from './digitalocean.ts'
import { startGoDaddyFake } from './godaddy.ts'
import { startHetznerFake } from './hetzner.ts'
import { startRoute53Fake } from './route53.ts'
import { startVultrFake } from './vultr.ts'
import { startLinodeFake } from './linode.ts'
import { startDnsimpleFake } from './dnsimple.ts'
import { startNetlifyFake } from './netlify.ts'
import { startVercelFake } from './vercel.ts'
import { startGandiFake } from './gandi.ts'
import { startDesecFake } from './desec.ts'
import { startNs1Fake } from './ns1.ts'
import { startNamecomFake } from './namecom.ts'
import { startBunnyFake } from './bunny.ts'
import { startScalewayFake } from './scaleway.ts'
import { startGoogleDnsFake } from './google.ts'
import { startIonosFake } from './ionos.ts'
import { startGcoreFake } from './gcore.ts'
import { startDomeneshopFake } from './domeneshop.ts'
import { startHostingerFake } from './hostinger.ts'
import { startAzureFake } from './azure.ts'
import { startOvhFake } from './ovh.ts'
import { startMythicBeastsFake } from './mythic-beasts.ts'
import { startSimplyFake } from './simply.ts'
import { startDynuFake } from './dynu.ts'
import { startExoscaleFake } from './exoscale.ts'
import { startSpaceshipFake } from './spaceship.ts'
import { startNamecheapFake } from './namecheap.ts'
import { startDnsMadeEasyFake } from './dnsmadeeasy.ts'
import { startCloudnsFake } from './cloudns.ts'
import { startInfomaniakFake } from './infomaniak.ts'
import { startConstellixFake } from './constellix.ts'
import { startDnspodFake } from './dnspod.ts'
import { startAlidnsFake } from './alidns.ts'
import { startPorkbunFake } from './porkbun.ts'
import { startNamesiloFake } from './namesilo.ts'
import { startDynadotFake } from './dynadot.ts'
import { seedWixZone, startWixFake } from './wix.ts'

export interface FakeCase {
  /** Catalog id, as `makeHosted` takes it. */
  id: string
  reference: string
  start(): Fake<any>
  /** The API base the adapter is pointed at. */
  base(f: Fake<any>): string
  /** A credential of the right shape the stand-in refuses (a function where it depends on the stand-in). */
  badCredential: string | ((f: Fake<any>) => string)
  foreignZone: Zone
  /** Lists the provider's API does not page, and why (the test then checks the adapter did not page them). */
  unpaged?: { lists: ('zones' | 'records')[]; why: string }
  /** What a fresh zone holds at the provider besides what a test writes (Route 53: SOA and NS). */
  seedZone?(zoneName: string, f: Fake<any>): void
  /** Other API bases the adapter may reach (the NS1 fleet also tries Netlify with a key NS1 refuses). */
  extraBases?: Record<string, string>
  /** Where the stand-in honours the asked page size (as its card says the API does), how many filler
   * zones and record rows make each listing span pages. */
  pageFill?: { zones?: number; records?: { count: number; row: (zoneName: string, i: number) => unknown } }
  /** Do-no-harm test: fields the provider assigns afresh on each write, a stored row's name and type
   * where the usual field names do not tell it, how a seed row is stored. */
  volatile?: string[]
  rowKey?: (row: any, zone: string) => { name: string; type: string }
  seedRow?: (zone: FakeZone<any>, row: any) => void
}

export const FAKE_CASES: FakeCase[] = [
  {
    id: 'cloudflare',
    reference: 'https://developers.cloudflare.com/api/resources/dns/subresources/records/',
    start: () => startCloudflareFake(),
    base: (f) => f.url + '/client/v4',
    badCredential: 'wrong-token',
    foreignZone: { id: 'ZNOTMINE000', name: 'not-mine.example' },
    seedRow: (z, row) => z.records.push({ id: nextId('rec').padEnd(32, '0'), ...row }),
  },
  {
    id: 'digitalocean',
    reference: 'https://docs.digitalocean.com/reference/api/api-reference/#tag/Domain-Records',
    start: () => startDigitalOceanFake(),
    base: (f) => f.url + '/v2',
    badCredential: 'dop_v1_wrong',
    foreignZone: { id: 'not-mine.example', name: 'not-mine.example' },
    // The adapter asks 200 a page; DigitalOcean answers as many as asked, up to 200.
    pageFill: { zones: 201, records: { count: 200, row: (_z, i) => ({ id: 900000 + i, type: 'TXT', name: `filler${i}`, data: `filler-${i}`, priority: null, port: null, ttl: 1800, weight: null, flags: null, tag: null }) } },
    seedRow: (z, row) => z.records.push({ id: 800000 + z.records.length + Math.floor(Math.random() * 1e5), ...row }),
  },
  {
    id: 'godaddy',
    reference: 'https://developer.godaddy.com/doc/endpoint/domains',
    start: () => startGoDaddyFake(),
    base: (f) => f.url,
    badCredential: 'wrongkey:wrongsecret',
    foreignZone: { id: 'not-mine.example', name: 'not-mine.example' },
    // The adapter asks 500 a page of both lists; GoDaddy answers as many as asked.
    pageFill: { zones: 501, records: { count: 500, row: (_z, i) => ({ type: 'TXT', name: `filler${i}`, data: `filler-${i}`, ttl: 3600 }) } },
  },
  {
    id: 'route53',
    reference: 'https://docs.aws.amazon.com/Route53/latest/APIReference/API_ListResourceRecordSets.html',
    start: () => startRoute53Fake(),
    base: (f) => f.url,
    badCredential: 'AKIAWRONG:wrong',
    foreignZone: { id: 'ZNOTMINE000', name: 'not-mine.example' },
    // Route 53 answers up to maxitems (default and most: 100 zones, 300 record sets).
    pageFill: { zones: 101, records: { count: 300, row: (z, i) => ({ name: `filler${i}.${z}.`, type: 'TXT', ttl: 300, values: [`"filler-${i}"`] }) } },
    seedZone: (name, f) =>
      f.zones.find((z) => z.name === name)!.records.push(
        { name: `${name}.`, type: 'SOA', ttl: 900, values: ['ns-1.awsdns-01.org. awsdns-hostmaster.amazon.com. 1 7200 900 1209600 86400'] },
        { name: `${name}.`, type: 'NS', ttl: 172800, values: ['ns-1.awsdns-01.org.', 'ns-2.awsdns-02.com.'] },
      ),
  },
  {
    id: 'hetzner',
    reference: 'https://docs.hetzner.cloud/reference/cloud#zone-rrsets',
    start: () => startHetznerFake(),
    base: (f) => f.url + '/v1',
    badCredential: 'wrong-token',
    foreignZone: { id: '999999', name: 'not-mine.example' },
    // One RRSet per name and type (its id is `name/type`): a seeded set takes the place of one already there.
    seedRow: (z, row) => {
      const set = { id: `${row.name}/${row.type}`, ...row }
      const i = z.records.findIndex((r) => r.id === set.id)
      if (i === -1) z.records.push(set)
      else z.records[i] = set
    },
    // The adapter asks 50 a page; Hetzner answers as many as asked, up to 50.
    pageFill: { zones: 51, records: { count: 50, row: (_z, i) => ({ id: `filler${i}/TXT`, name: `filler${i}`, type: 'TXT', ttl: null, records: [{ value: `"filler-${i}"` }] }) } },
  },
  {
    id: 'vultr',
    reference: 'https://www.vultr.com/api/#tag/dns',
    start: () => startVultrFake(),
    base: (f) => f.url + '/v2',
    badCredential: 'WRONGKEY',
    foreignZone: { id: 'not-mine.example', name: 'not-mine.example' },
    // The adapter asks 500 a page; Vultr answers as many as asked, up to 500.
    pageFill: { zones: 501, records: { count: 500, row: (_z, i) => ({ id: `fill-${i}`, type: 'TXT', name: `filler${i}`, data: `"filler-${i}"`, priority: -1, ttl: 300 }) } },
    seedRow: (z, row) => z.records.push({ id: crypto.randomUUID(), ...row }),
  },
  {
    id: 'linode',
    reference: 'https://techdocs.akamai.com/linode-api/reference/get-domain-records',
    start: () => startLinodeFake(),
    base: (f) => f.url + '/v4',
    badCredential: 'wrong-token',
    foreignZone: { id: '999999', name: 'not-mine.example' },
    // The adapter asks 500 a page; Linode answers as many as asked, up to 500.
    pageFill: { zones: 501, records: { count: 500, row: (_z, i) => ({ id: 700000 + i, type: 'TXT', name: `filler${i}`, target: `filler-${i}`, priority: 0, weight: 0, port: 0, service: null, protocol: null, ttl_sec: 300, tag: null }) } },
    seedRow: (z, row) => z.records.push({ id: 600000 + z.records.length + Math.floor(Math.random() * 1e5), ...row }),
  },
  {
    id: 'dnsimple',
    reference: 'https://developer.dnsimple.com/v2/zones/records/',
    start: () => startDnsimpleFake(),
    base: (f) => f.url + '/v2',
    badCredential: 'wrong-token',
    foreignZone: { id: 'not-mine.example', name: 'not-mine.example' },
    // The adapter asks 100 a page; DNSimple answers as many as asked, up to 100 (lexicon's recordings).
    pageFill: { zones: 101, records: { count: 100, row: (z, i) => ({ id: 900000 + i, zone_id: z, parent_id: null, name: `filler${i}`, content: `filler-${i}`, ttl: 3600, priority: null, type: 'TXT', regions: ['global'], system_record: false, created_at: '2026-01-15T10:20:53Z', updated_at: '2026-01-15T10:20:53Z' }) } },
  },
  {
    id: 'netlify',
    reference: 'https://open-api.netlify.com/#tag/dnsZone',
    unpaged: { lists: ['zones', 'records'], why: 'getDnsZones and getDnsRecords answer whole lists; the API ignores page and per_page' },
    start: () => startNetlifyFake(),
    base: (f) => f.url + '/api/v1',
    badCredential: 'nfp_wrong',
    foreignZone: { id: 'notmine000', name: 'not-mine.example' },
    seedRow: (z, row) => z.records.push({ id: nextId('rec'), dns_zone_id: z.id, ...row }),
  },
  {
    id: 'vercel',
    reference: 'https://vercel.com/docs/rest-api/reference/endpoints/dns',
    start: () => startVercelFake(),
    base: (f) => f.url,
    badCredential: 'wrong-token',
    foreignZone: { id: 'not-mine.example', name: 'not-mine.example' },
    // The zone under test belongs to a team (reached with ?teamId=); the fillers are the account's own.
    seedZone: (name, f) => void (f as ReturnType<typeof startVercelFake>).teams.set(name, 'team_acme'),
    // The adapter asks 100 a page; Vercel answers as many as asked, up to 100.
    pageFill: { zones: 101, records: { count: 100, row: (_z, i) => ({ id: `rec_fill${i}`, slug: `fill${i}`, name: `filler${i}`, type: 'TXT', value: `filler-${i}`, ttl: 60, creator: 'portico', created: 0 }) } },
    seedRow: (z, row) => z.records.push({ id: nextId('rec_'), slug: nextId(), created: 0, ...row }),
  },
  {
    id: 'gandi',
    reference: 'https://api.gandi.net/docs/livedns/',
    start: () => startGandiFake(),
    base: (f) => f.url + '/v5',
    badCredential: 'pat_wrong',
    foreignZone: { id: 'not-mine.example', name: 'not-mine.example' },
    // The adapter asks 500 a page; Gandi answers as many as asked.
    pageFill: { zones: 501, records: { count: 500, row: (_z, i) => ({ rrset_name: `filler${i}`, rrset_type: 'TXT', rrset_ttl: 300, rrset_values: [`"filler-${i}"`] }) } },
  },
  {
    id: 'desec',
    reference: 'https://desec.readthedocs.io/en/latest/dns/rrsets.html',
    start: () => startDesecFake(),
    base: (f) => f.url + '/api/v1',
    badCredential: 'wrong-token',
    foreignZone: { id: 'not-mine.example', name: 'not-mine.example' },
    // deSEC names a set by `subname`, empty at the apex.
    rowKey: (r, zone) => ({ name: r.subname ? `${String(r.subname).toLowerCase()}.${zone}` : zone, type: r.type }),
  },
  {
    id: 'ns1',
    reference: 'https://developer.ibm.com/apis/catalog/ns1--ibm-ns1-connect-api/',
    unpaged: { lists: ['zones', 'records'], why: 'GET /v1/zones and GET /v1/zones/{zone} answer whole lists' },
    start: () => startNs1Fake(),
    base: (f) => f.url + '/v1',
    badCredential: 'wrong-key',
    foreignZone: { id: 'not-mine.example', name: 'not-mine.example' },
    // A key NS1 refuses is tried at Netlify (the same fleet); here nothing answers there.
    extraBases: { netlify: 'http://127.0.0.1:9/api/v1' },
  },
  {
    id: 'namecom',
    reference: 'https://docs.name.com/docs/api-reference/dns',
    start: () => startNamecomFake(),
    base: (f) => f.url,
    badCredential: 'pat:wrong',
    foreignZone: { id: 'not-mine.example', name: 'not-mine.example' },
    // The adapter asks 1000 a page; Name.com answers as many as asked, up to 1000 (lexicon's recordings).
    pageFill: { zones: 1001, records: { count: 1000, row: (z, i) => ({ id: 800000 + i, domainName: z, host: `filler${i}`, fqdn: `filler${i}.${z}.`, type: 'TXT', answer: `filler-${i}`, ttl: 300 }) } },
  },
  {
    id: 'bunny',
    reference: 'https://docs.bunny.net/reference/dnszonepublic_index',
    unpaged: { lists: ['records'], why: 'a zone\'s records come inside GET /dnszone/{id}' },
    start: () => startBunnyFake(),
    base: (f) => f.url,
    badCredential: 'wrong-key',
    foreignZone: { id: '999999', name: 'not-mine.example' },
    // bunny.net numbers its record types.
    rowKey: (r, zone) => ({ name: r.Name ? `${String(r.Name).toLowerCase()}.${zone}` : zone, type: ['A', 'AAAA', 'CNAME', 'TXT', 'MX', 'REDIRECT', 'FLATTEN', 'PULLZONE', 'SRV', 'CAA', 'PTR', 'SCRIPT', 'NS', 'SVCB', 'HTTPS', 'TLSA'][r.Type] ?? String(r.Type) }),
  },
  {
    id: 'scaleway',
    reference: 'https://www.scaleway.com/en/developers/api/domains-and-dns/',
    start: () => startScalewayFake(),
    base: (f) => f.url,
    badCredential: '00000000-0000-4000-8000-000000000000',
    foreignZone: { id: 'not-mine.example', name: 'not-mine.example' },
    // The adapter asks 1000 a page; Scaleway answers as many as asked.
    pageFill: { zones: 1001, records: { count: 1000, row: (_z, i) => ({ id: `filler-${i}`, data: `"filler-${i}"`, name: `filler${i}`, priority: 0, ttl: 3600, type: 'TXT', comment: null }) } },
  },
  { id: 'google-cloud-dns', reference: 'https://cloud.google.com/dns/docs/reference/rest/v1/changes/create', start: () => startGoogleDnsFake(), base: (f) => f.url, badCredential: (f) => (f as ReturnType<typeof startGoogleDnsFake>).wrongKey, foreignZone: { id: 'zone-not-mine', name: 'not-mine.example' } },
  { id: 'ionos', reference: 'https://developer.hosting.ionos.com/docs/dns', unpaged: { lists: ['zones', 'records'], why: 'GET /dns/v1/zones and GET /dns/v1/zones/{id} answer whole lists' }, start: () => startIonosFake(), base: (f) => f.url, badCredential: 'wrong.key', foreignZone: { id: '00000000-0000-0000-0000-000000000000', name: 'not-mine.example' } },
  { id: 'gcore', reference: 'https://api.gcore.com/docs/dns#tag/RRsets', start: () => startGcoreFake(), base: (f) => f.url, badCredential: '1$wrong', foreignZone: { id: 'not-mine.example', name: 'not-mine.example' } },
  {
    id: 'domeneshop',
    reference: 'https://api.domeneshop.no/docs/#tag/dns',
    unpaged: { lists: ['zones', 'records'], why: 'GET /v0/domains and GET /v0/domains/{id}/dns answer whole lists' },
    start: () => startDomeneshopFake(),
    base: (f) => f.url,
    badCredential: 'wrong:wrong',
    foreignZone: { id: '999999', name: 'not-mine.example' },
    // An HTTP forward is the domain's setting, not a DNS record.
    seedRow: (z, row) => (row.forward ? (z.settings = { ...z.settings, forwards: [...((z.settings?.forwards as unknown[]) ?? []), row.forward] }) : z.records.push({ id: 50000 + parseInt(nextId().slice(-4), 16), ...row })),
  },
  { id: 'hostinger', reference: 'https://developers.hostinger.com/#tag/dns-zone', unpaged: { lists: ['zones', 'records'], why: 'the portfolio and a zone come as whole lists' }, start: () => startHostingerFake(), base: (f) => f.url, badCredential: 'wrong-token', foreignZone: { id: 'not-mine.example', name: 'not-mine.example' } },
  {
    id: 'azure',
    reference: 'https://learn.microsoft.com/rest/api/dns/record-sets',
    start: () => startAzureFake(),
    base: (f) => f.url,
    badCredential: (f) => JSON.stringify({ ...JSON.parse(f.credential), client_secret: 'wrong' }),
    foreignZone: { id: '/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/Microsoft.Network/dnszones/not-mine.example', name: 'not-mine.example' },
  },
  {
    id: 'ovh',
    reference: 'https://eu.api.ovh.com/console/?section=%2Fdomain',
    unpaged: { lists: ['zones', 'records'], why: 'GET /domain/zone and …/record answer whole lists of names and ids' },
    start: () => startOvhFake(),
    base: (f) => f.url + '/1.0',
    badCredential: 'ak:as:wrong-consumer',
    foreignZone: { id: 'not-mine.example', name: 'not-mine.example' },
    seedRow: (z, row) => z.records.push({ id: 9_000_000 + z.records.length + Math.floor(Math.random() * 1e6), zone: z.name, ...row }),
  },
  { id: 'mythic-beasts', reference: 'https://www.mythic-beasts.com/support/api/dnsv2', unpaged: { lists: ['zones', 'records'], why: 'GET /dns/v2/zones and …/records answer whole lists' }, start: () => startMythicBeastsFake(), base: (f) => f.url, badCredential: 'wrong:wrong', foreignZone: { id: 'not-mine.example', name: 'not-mine.example' } },
  {
    id: 'simply-com',
    reference: 'https://www.simply.com/en/docs/api/',
    unpaged: { lists: ['zones', 'records'], why: 'products and a product\'s records come as whole lists' },
    start: () => startSimplyFake(),
    base: (f) => f.url,
    badCredential: 'S1:wrong',
    foreignZone: { id: 'objnotmine', name: 'not-mine.example' },
    seedRow: (z, row) => z.records.push({ record_id: 60000 + parseInt(nextId().slice(-4), 16), ...row }),
  },
  {
    id: 'dynu',
    reference: 'https://www.dynu.com/Support/API#/dns',
    unpaged: { lists: ['zones', 'records'], why: 'GET /v2/dns and …/record answer whole lists' },
    start: () => startDynuFake(),
    base: (f) => f.url,
    badCredential: 'wrong-key',
    foreignZone: { id: '999999', name: 'not-mine.example' },
    rowKey: (r, zone) => ({ name: r.nodeName ? `${String(r.nodeName).toLowerCase()}.${zone}` : zone, type: String(r.recordType).toUpperCase() }),
    // A web redirect is the domain's setting, not a DNS record.
    seedRow: (z, row) => (row.webRedirect ? (z.settings = { ...z.settings, webRedirects: [...((z.settings?.webRedirects as unknown[]) ?? []), row.webRedirect] }) : z.records.push({ id: 70000 + parseInt(nextId().slice(-4), 16), domainId: Number(z.id), ...row })),
  },
  {
    id: 'exoscale',
    reference: 'https://openapi-v2.exoscale.com/topic/topic-api-request-signature',
    unpaged: { lists: ['zones', 'records'], why: 'GET /dns-domain and …/record answer whole lists' },
    start: () => startExoscaleFake(),
    base: (f) => f.url + '/v2',
    badCredential: 'EXOwrong:wrong',
    foreignZone: { id: '00000000-0000-0000-0000-000000000000', name: 'not-mine.example' },
    seedRow: (z, row) => z.records.push({ id: crypto.randomUUID(), ...row }),
  },
  {
    id: 'spaceship',
    reference: 'https://docs.spaceship.dev/#tag/DNS-records',
    start: () => startSpaceshipFake(),
    base: (f) => f.url,
    badCredential: 'wrong:wrong',
    foreignZone: { id: 'not-mine.example', name: 'not-mine.example' },
    // The adapter asks 100 domains and 500 records a page; Spaceship answers as many as asked.
    pageFill: { zones: 101, records: { count: 500, row: (_z, i) => ({ type: 'TXT', name: `filler${i}`, ttl: 3600, value: `filler-${i}`, group: { type: 'custom' } }) } },
  },
  {
    id: 'namecheap',
    reference: 'https://www.namecheap.com/support/api/methods/domains-dns/set-hosts/',
    unpaged: { lists: ['records'], why: 'getHosts answers the whole zone' },
    start: () => startNamecheapFake(),
    base: (f) => f.url,
    badCredential: 'pat:wrong:192.0.2.10',
    foreignZone: { id: 'not-mine.example', name: 'not-mine.example' },
    // setHosts replaces every host, and Namecheap numbers them afresh.
    volatile: ['HostId'],
  },
  {
    id: 'dnsmadeeasy',
    reference: 'https://api-docs.dnsmadeeasy.com/',
    start: () => startDnsMadeEasyFake(),
    base: (f) => f.url + '/V2.0',
    badCredential: 'wrong:wrong',
    foreignZone: { id: '999999', name: 'not-mine.example' },
    seedRow: (z, row) => z.records.push({ ...row, id: 7_000_000 + parseInt(nextId().slice(-5), 16), sourceId: Number(z.id) }),
  },
  {
    id: 'cloudns',
    reference: 'https://www.cloudns.net/wiki/article/42/',
    unpaged: { lists: ['records'], why: 'records.json answers the whole zone' },
    start: () => startCloudnsFake(),
    base: (f) => f.url,
    badCredential: '1:wrong',
    foreignZone: { id: 'not-mine.example', name: 'not-mine.example' },
    // The adapter asks 100 zones a page; ClouDNS answers as many as asked.
    pageFill: { zones: 101 },
    seedRow: (z, row) => z.records.push({ ...row, id: String(500000 + parseInt(nextId().slice(-5), 16)) }),
  },
  { id: 'infomaniak', reference: 'https://developer.infomaniak.com/docs/api (Domain › DNS records of a zone)', unpaged: { lists: ['records'], why: 'GET /1/domain/{id}/dns/record answers the whole zone' }, start: () => startInfomaniakFake(), base: (f) => f.url, badCredential: 'wrong-token', foreignZone: { id: '999999', name: 'not-mine.example' } },
  {
    id: 'constellix',
    reference: 'https://api.dns.constellix.com/v4/docs (Domains, Records)',
    start: () => startConstellixFake(),
    base: (f) => f.url,
    badCredential: 'wrong:wrong',
    foreignZone: { id: '999999', name: 'not-mine.example' },
    // The adapter asks 100 a page; Constellix answers as many as asked.
    pageFill: { zones: 101, records: { count: 100, row: (_z, i) => ({ id: 800000 + parseInt(nextId().slice(-5), 16) * 100 + i, name: `filler${i}`, type: 'TXT', ttl: 3600, mode: 'standard', region: 'default', ipfilter: null, geoproximity: null, enabled: true, notes: '', contacts: [], value: [{ value: `filler-${i}`, enabled: true }] }) } },
    seedRow: (z, row) => z.records.push({ ...row, id: 900000 + parseInt(nextId().slice(-5), 16) }),
  },
  {
    id: 'dnspod',
    reference: 'https://www.tencentcloud.com/document/api/1157/51290',
    start: () => startDnspodFake(),
    base: (f) => f.url,
    badCredential: 'AKIDwrong:wrong',
    foreignZone: { id: 'not-mine.example', name: 'not-mine.example' },
    // The adapter asks 100 a page of both lists; DNSPod answers as many as asked (up to 3000).
    pageFill: { zones: 101, records: { count: 100, row: (_z, i) => ({ RecordId: 700000 + parseInt(nextId().slice(-6), 16) * 1000 + i, Value: `filler-${i}`, Status: 'ENABLE', UpdatedOn: '2026-01-01 00:00:00', Name: `filler${i}`, Line: '默认', LineId: '0', Type: 'TXT', Weight: null, MonitorStatus: '', Remark: '', TTL: 600, MX: 0, DefaultNS: false }) } },
    seedRow: (z, row) => z.records.push({ ...row, RecordId: 900000 + parseInt(nextId().slice(-6), 16) }),
  },
  {
    id: 'alibaba-cloud-dns',
    reference: 'https://www.alibabacloud.com/help/en/dns/api-alidns-2015-01-09-describedomainrecords',
    start: () => startAlidnsFake(),
    base: (f) => f.url,
    badCredential: 'LTAIwrong:wrong',
    foreignZone: { id: 'not-mine.example', name: 'not-mine.example' },
    // The adapter asks 100 a page of both lists; Alibaba answers as many as asked (up to 100 and 500).
    pageFill: { zones: 101, records: { count: 100, row: (z, i) => ({ DomainName: z, RecordId: nextId('9'), RR: `filler${i}`, Type: 'TXT', Value: `filler-${i}`, TTL: 600, Line: 'default', Status: 'ENABLE', Locked: false }) } },
    seedRow: (z, row) => z.records.push({ ...row, RecordId: nextId('8') }),
  },
  { id: 'porkbun', reference: 'https://porkbun.com/api/json/v3/documentation', unpaged: { lists: ['records'], why: '/dns/retrieve/{domain} answers the whole zone' }, start: () => startPorkbunFake(), base: (f) => f.url + '/api/json/v3', badCredential: 'pk1_wrong:sk1_wrong', foreignZone: { id: 'not-mine.example', name: 'not-mine.example' } },
  { id: 'namesilo', reference: 'https://www.namesilo.com/api-reference', unpaged: { lists: ['records'], why: 'dnsListRecords answers the whole zone' }, start: () => startNamesiloFake(), base: (f) => f.url + '/api', badCredential: 'wrongkey', foreignZone: { id: 'not-mine.example', name: 'not-mine.example' } },
  { id: 'dynadot', reference: 'https://www.dynadot.com/domain/api3.html', unpaged: { lists: ['zones', 'records'], why: 'list_domain and get_dns answer whole lists' }, start: () => startDynadotFake(), base: (f) => f.url, badCredential: 'wrongkey', foreignZone: { id: 'not-mine.example', name: 'not-mine.example' } },
  // Route 53, Google Cloud DNS, Azure DNS, DigitalOcean, Linode, Vultr, Vercel, Hetzner, Hostinger, NS1, Wix (as their cards say).
  {
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
  },
]
