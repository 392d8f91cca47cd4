// Two zones of one name in the reach of one credential (issue 46): Portico writes into the copy the
// domain is delegated to, or refuses before writing. Each host that allows it, as its own answers show:
// - Route 53: public hosted zones of one name, each with its own delegation set (lego PR #201 / issue
//   #192 picked the first listed; octodns-route53 #146 refuses such zones). GetHostedZone answers
//   `DelegationSet/NameServers` (https://docs.aws.amazon.com/Route53/latest/APIReference/API_GetHostedZone.html).
// - Cloudflare: a token reaching two accounts lists both copies; `status` (`active`, `pending`, `moved`)
//   and `name_servers` tell them apart (https://developers.cloudflare.com/api/resources/zones/methods/list/;
//   cloudflare-go's TestZoneIDByNameWithNonUniqueZones calls the name "ambiguous").
// - Google Cloud DNS: managed zones (staging, prod) of one `dnsName`, each with its own `nameServers`
//   (https://cloud.google.com/dns/docs/reference/rest/v1/managedZones).
// - Azure DNS: the same zone in two resource groups, each with `properties.nameServers`
//   (https://learn.microsoft.com/rest/api/dns/zones/list).
// The rule is written once (src/adapters/dns-providers/types.ts `chooseZone`, through apply's `findZone`).
import { describe, test, expect, afterAll } from 'bun:test'
import { makeHosted, ZoneChoiceError, type DnsProvider } from '../../src/adapters/dns-providers/index.ts'
import { findZone } from '../../src/domain/apply.ts'
import type { Dns, Lookup } from '../../src/adapters/dns.ts'
import type { Fake, FakeCase, FakeZone } from '../harness/provider-fakes/common.ts'
import { fakeCase as route53 } from '../../src/adapters/dns-providers/route53/stand-in.ts'
import { fakeCase as cloudflare } from '../../src/adapters/dns-providers/cloudflare/stand-in.ts'
import { fakeCase as google } from '../../src/adapters/dns-providers/google-cloud-dns/stand-in.ts'
import { fakeCase as azure } from '../../src/adapters/dns-providers/azure/stand-in.ts'
import { startPdns } from '../harness/pdns.ts'
import { provision, startPortico } from '../harness/portico.ts'

const fakes: Fake<any>[] = []
afterAll(() => fakes.forEach((f) => f.stop()))

/** A resolver that answers the zone's delegation, or fails. */
const resolver = (ns: string[] | 'error'): Dns => ({
  lookup: async (): Promise<Lookup> => (ns === 'error' ? { status: 'error', error: 'SERVFAIL' } : { status: 'ok', values: ns }),
})

/** Each host's own name servers for two copies, and how a second copy of one name gets its own id. */
const HOSTS: { c: FakeCase; stale: string[]; live: string[]; secondId: (z: FakeZone<any>) => string }[] = [
  { c: route53, stale: ['ns-101.awsdns-12.com', 'ns-902.awsdns-48.net'], live: ['ns-1402.awsdns-47.org', 'ns-1977.awsdns-55.co.uk'], secondId: (z) => z.id },
  { c: cloudflare, stale: ['ada.ns.cloudflare.com', 'bob.ns.cloudflare.com'], live: ['kate.ns.cloudflare.com', 'rick.ns.cloudflare.com'], secondId: (z) => z.id },
  { c: google, stale: ['ns-cloud-a1.googledomains.com.', 'ns-cloud-a2.googledomains.com.'], live: ['ns-cloud-d1.googledomains.com.', 'ns-cloud-d2.googledomains.com.'], secondId: (z) => z.id + '-prod' },
  { c: azure, stale: ['ns1-01.azure-dns.com.', 'ns2-01.azure-dns.net.'], live: ['ns1-07.azure-dns.com.', 'ns2-07.azure-dns.net.'], secondId: (z) => z.id.replace(/\/resourceGroups\/[^/]+\//, '/resourceGroups/prod/') },
]

let n = 0
for (const h of HOSTS) {
  describe(`${h.c.id}: two zones of one name`, () => {
    const setup = () => {
      const f = h.c.start()
      fakes.push(f)
      const name = `dup${++n}-${h.c.id}.example`
      const stale = f.addZone(name)
      stale.nameServers = h.stale
      h.c.seedZone?.(name, f)
      const live = f.addZone(name)
      live.id = h.secondId(live)
      live.nameServers = h.live
      const provider = makeHosted(h.c.id, f.credential, { [h.c.id]: h.c.base(f) }) as DnsProvider
      return { f, name, stale, live, provider }
    }
    const refusal = (p: Promise<unknown>) => p.then(() => null, (e) => (e instanceof ZoneChoiceError ? e : Promise.reject(e)))

    test('the copy the delegation points at is chosen, though the stale one is listed first', async () => {
      const { name, live, provider } = setup()
      expect((await findZone(provider, `app.${name}`, name, resolver(h.live))).id).toBe(live.id)
      // Trailing dots and case in the delegation do not matter.
      expect((await findZone(provider, `app.${name}`, name, resolver(h.live.map((x) => x.toUpperCase().replace(/\.?$/, '.'))))).id).toBe(live.id)
    })

    test('no copy served by the delegated name servers: zone_not_delegated naming both, before anything is written', async () => {
      const { f, name, stale, live, provider } = setup()
      const e = await refusal(findZone(provider, `app.${name}`, name, resolver(['ns1.elsewhere.example'])))
      expect(e).toMatchObject({ kind: 'zone_not_delegated', zoneIds: [stale.id, live.id] })
      // Nothing but the sign-in a Google or Azure credential makes (its token request) went out.
      expect(f.exchanges.filter((x) => x.method !== 'GET' && !/token/.test(x.path)).map((x) => `${x.method} ${x.path}`)).toEqual([])
    })

    test('the delegation cannot be looked up, or both copies share it: zone_ambiguous naming both', async () => {
      const { name, stale, live, provider } = setup()
      expect(await refusal(findZone(provider, `app.${name}`, name, resolver('error')))).toMatchObject({ kind: 'zone_ambiguous', zoneIds: [stale.id, live.id] })
      stale.nameServers = h.live
      expect(await refusal(findZone(provider, `app.${name}`, name, resolver(h.live)))).toMatchObject({ kind: 'zone_ambiguous', zoneIds: [stale.id, live.id] })
    })

    test('a test of the test: with one copy only, the delegation is not even asked', async () => {
      const { f, name, live, provider } = setup()
      f.zones.splice(f.zones.indexOf(live), 1)
      const asked: string[] = []
      const dns: Dns = { lookup: async (q) => (asked.push(q), { status: 'error', error: 'not asked' }) }
      expect((await findZone(provider, `app.${name}`, name, dns)).name).toBe(name)
      expect(asked).toEqual([])
    })
  })
}

describe('cloudflare: the status of a copy', () => {
  const setup = (statuses: string[], ns: string[][]) => {
    const f = cloudflare.start()
    fakes.push(f)
    const name = `status${++n}.example`
    const zones = statuses.map((s, i) => Object.assign(f.addZone(name), { status: s, nameServers: ns[i] }))
    return { name, zones, provider: makeHosted('cloudflare', f.credential, { cloudflare: cloudflare.base(f) }) as DnsProvider }
  }
  const live = ['kate.ns.cloudflare.com', 'rick.ns.cloudflare.com']

  test('a `moved` copy listed before the `active` one, both on the same name servers: the active one', async () => {
    const { name, zones, provider } = setup(['moved', 'active'], [live, live])
    expect((await findZone(provider, name, name, resolver(live))).id).toBe(zones[1]!.id)
  })

  test('a token reaching only a `pending` copy on other name servers: zone_not_delegated, nothing written', async () => {
    const { name, zones, provider } = setup(['pending'], [['ada.ns.cloudflare.com', 'bob.ns.cloudflare.com']])
    await expect(findZone(provider, name, name, resolver(live))).rejects.toMatchObject({ kind: 'zone_not_delegated', zoneIds: [zones[0]!.id] })
  })

  test('a `pending` copy the domain is already delegated to (the name servers just changed) is written', async () => {
    const { name, zones, provider } = setup(['pending'], [live])
    expect((await findZone(provider, name, name, resolver(live))).id).toBe(zones[0]!.id)
  })
})

describe('through the API: Route 53 with a stale hosted zone listed first', () => {
  test('apply writes into the delegated zone; when the delegation cannot tell them apart, 422 names both zones and nothing is written', async () => {
    const pdns = await startPdns()
    const f = route53.start()
    fakes.push(f)
    const zone = `r53dup${Date.now().toString(36)}.test`
    const stale = f.addZone(zone)
    stale.nameServers = ['ns-101.awsdns-12.com', 'ns-902.awsdns-48.net']
    const live = f.addZone(zone)
    live.nameServers = ['ns-1402.awsdns-47.org', 'ns-1977.awsdns-55.co.uk']
    await pdns.createZone(zone, { nameservers: live.nameServers.map((x) => `${x}.`) })
    const p = await startPortico({ DNS_RESOLVERS: pdns.dnsAddress, EDGE_CNAME_TARGET: 'edge.portico.test', DNS_PROVIDER_API_BASES: `route53=${route53.base(f)}` })
    try {
      const ws = await provision(p)
      const c = (await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: `shop.${zone}` } })).body
      const r = await p.api('POST', `/v1/connections/${c.id}/apply`, { token: ws.apiKey, body: { credential: f.credential } })
      expect(r.status).toBe(200)
      expect(r.body).toMatchObject({ changed: true, zone })
      const cnames = (z: FakeZone<any>) => z.records.filter((x: any) => x.type === 'CNAME')
      expect(cnames(live).length).toBe(1)
      expect(cnames(stale)).toEqual([])

      // A second connection after the stale copy is given the same name servers: refused, naming both.
      stale.nameServers = live.nameServers
      const c2 = (await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: `www.${zone}` } })).body
      const writes = f.exchanges.filter((x) => x.method !== 'GET').length
      const refused = await p.api('POST', `/v1/connections/${c2.id}/apply`, { token: ws.apiKey, body: { credential: f.credential } })
      expect(refused.status).toBe(422)
      expect(refused.body).toMatchObject({ code: 'dns_write_failed', details: { reason: 'zone_ambiguous', zone_ids: [stale.id, live.id], domain: `www.${zone}` } })
      expect(f.exchanges.filter((x) => x.method !== 'GET').length).toBe(writes)
      expect((await p.api('GET', `/v1/connections/${c2.id}`, { token: ws.apiKey })).body.error_code).toBe('zone_not_reached')
    } finally {
      await p.close()
    }
  })
})
