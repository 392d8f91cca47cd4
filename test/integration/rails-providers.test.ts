// The five hosted-provider adapters against local fakes of their documented APIs
// (test/harness/provider-fakes): zones listed, CAA and TXT kept, SPF merged, re-apply writes nothing,
// revert restores exactly (also as a property over random zones), and each API's documented failures
// (bad credential, rate limit, unknown zone) come out as the adapter's error kinds. Then one domain
// end to end through Portico's API: DigitalOcean nameservers, records written in the fake; and an apex
// domain at Gandi, written as Gandi's ALIAS.
import { describe, test, expect, afterAll, beforeAll } from 'bun:test'
import fc from 'fast-check'
import { makeHosted, ProviderError, type DnsProvider, type RRset, type Zone } from '../../src/adapters/dns-providers/index.ts'
import { applyChanges, planApply, planRevert } from '../../src/domain/record-plan.ts'
import { RETRY_LIMITS } from '../../src/adapters/dns-providers/http.ts'
import type { DnsRecord } from '../../src/domain/records.ts'
import type { Fake } from '../harness/provider-fakes/common.ts'
import { startCloudflareFake } from '../../src/adapters/dns-providers/cloudflare/stand-in.ts'
import { startDigitalOceanFake } from '../../src/adapters/dns-providers/digitalocean/stand-in.ts'
import { startGoDaddyFake } from '../../src/adapters/dns-providers/godaddy/stand-in.ts'
import { startRoute53Fake } from '../../src/adapters/dns-providers/route53/stand-in.ts'
import { startHetznerFake } from '../../src/adapters/dns-providers/hetzner/stand-in.ts'
import { startGandiFake } from '../../src/adapters/dns-providers/gandi/stand-in.ts'
import { APEX, canonicalZone, desiredArb, zoneArb } from '../property/arbitraries.ts'
import { startPdns } from '../harness/pdns.ts'
import { provision, startPortico } from '../harness/portico.ts'

interface Case {
  id: string
  fake: Fake<any>
  base: string
  /** What a fresh zone holds at the provider besides what a test writes (Route 53: SOA and NS). */
  seedZone?: (zoneName: string, fake: Fake<any>) => void
}

const cases: Case[] = []
beforeAll(() => {
  const cf = startCloudflareFake()
  const dop = startDigitalOceanFake()
  const gd = startGoDaddyFake()
  const r53 = startRoute53Fake()
  const hz = startHetznerFake()
  cases.push(
    { id: 'cloudflare', fake: cf, base: cf.url + '/client/v4' },
    { id: 'digitalocean', fake: dop, base: dop.url + '/v2' },
    { id: 'godaddy', fake: gd, base: gd.url },
    {
      id: 'route53',
      fake: r53,
      base: r53.url,
      seedZone: (name, f) => {
        f.zones.find((z) => z.name === name)!.records.push(
          { name: `${name}.`, type: 'SOA', ttl: 900, values: ['ns-1.awsdns-01.org. awsdns-hostmaster.amazon.com. 1 7200 900 1209600 86400'] },
          { name: `${name}.`, type: 'NS', ttl: 172800, values: ['ns-1.awsdns-01.org.', 'ns-2.awsdns-02.com.'] },
        )
      },
    },
    { id: 'hetzner', fake: hz, base: hz.url + '/v1' },
  )
})
afterAll(() => cases.forEach((c) => c.fake.stop()))

let n = 0
function setup(c: Case, credential = c.fake.credential): { provider: DnsProvider; zoneName: string } {
  const zoneName = `${c.id}${++n}.example`
  c.fake.addZone(zoneName)
  c.seedZone?.(zoneName, c.fake)
  return { provider: makeHosted(c.id, credential, { [c.id]: c.base })!, zoneName }
}
const zoneOf = async (p: DnsProvider, name: string): Promise<Zone> => (await p.listZones()).find((z) => z.name === name)!
const managed = (z: RRset[]) => canonicalZone(z.filter((s) => s.type !== 'SOA' && !(s.type === 'NS' && s.name === z.find((x) => x.type === 'SOA')?.name)))
const kindOf = async (p: Promise<unknown>) => p.then(() => 'ok', (e) => (e instanceof ProviderError ? e.kind : `unexpected ${e}`))

for (const id of ['cloudflare', 'digitalocean', 'godaddy', 'route53', 'hetzner']) {
  describe(id, () => {
    const c = () => cases.find((x) => x.id === id)!

    test('apply keeps CAA and TXT, merges SPF, re-apply writes nothing, revert restores exactly', async () => {
      const { provider, zoneName } = setup(c())
      const zone = await zoneOf(provider, zoneName)
      expect(zone).toBeDefined()
      await provider.writeChanges(zone, [
        { name: zoneName, type: 'CAA', ttl: 3600, values: ['0 issue "letsencrypt.org"'] },
        { name: zoneName, type: 'TXT', ttl: 3600, values: ['v=spf1 include:_spf.google.com ~all', 'site-verification=abc'] },
        { name: zoneName, type: 'A', ttl: 600, values: ['198.51.100.1'] },
        { name: zoneName, type: 'MX', ttl: 3600, values: [`10 mx.${zoneName}`] },
        { name: `www.${zoneName}`, type: 'A', ttl: 600, values: ['198.51.100.2'] },
      ])
      const before = await provider.readRecords(zone)
      const desired: DnsRecord[] = [
        { type: 'A', host: '@', value: '203.0.113.10', ttl: 300 },
        { type: 'CNAME', host: 'www', value: 'edge.portico.test', ttl: 300 },
        { type: 'SPFM', host: '@', value: 'include:_spf.portico.test' },
        { type: 'TXT', host: '_portico-challenge', value: 'portico-verify=tok' },
        { type: 'CAA', host: '@', value: '0 issue "pki.goog"' },
      ]
      const plan = planApply(before, desired, zoneName, [], provider)
      await provider.writeChanges(zone, plan.changes)
      const after = await provider.readRecords(zone)
      const at = (name: string, type: string) => after.find((s) => s.name === name && s.type === type)?.values.sort()
      expect(at(zoneName, 'CAA')).toEqual(['0 issue "letsencrypt.org"', '0 issue "pki.goog"'])
      expect(at(zoneName, 'TXT')).toEqual(['site-verification=abc', 'v=spf1 include:_spf.google.com include:_spf.portico.test ~all'])
      expect(at(zoneName, 'A')).toEqual(['203.0.113.10'])
      expect(at(zoneName, 'MX')).toEqual([`10 mx.${zoneName}`])
      expect(at(`www.${zoneName}`, 'CNAME')).toEqual(['edge.portico.test'])
      expect(at(`www.${zoneName}`, 'A')).toBeUndefined()
      expect(managed(after)).toEqual(managed(applyChanges(before, plan.changes)))
      expect(planApply(after, desired, zoneName, plan.entries, provider).changes).toEqual([])
      await provider.writeChanges(zone, planRevert(after, plan.entries).changes)
      expect(managed(await provider.readRecords(zone))).toEqual(managed(before))
    })

    test('a refused credential, a rate limit and an unknown zone are told apart', async () => {
      const { provider, zoneName } = setup(c())
      const zone = await zoneOf(provider, zoneName)
      const bad = makeHosted(id, id === 'godaddy' || id === 'route53' ? 'AKIAWRONG:wrong' : 'wrong-token', { [id]: c().base })!
      expect(await kindOf(bad.listZones())).toBe('auth')
      // One answer each, no retry: the rate limit comes out as such (waiting it out is the contract test's).
      c().fake.throttleNext()
      const attempts = RETRY_LIMITS.attempts
      RETRY_LIMITS.attempts = 1
      expect(await kindOf(provider.readRecords(zone)).finally(() => (RETRY_LIMITS.attempts = attempts))).toBe('rate_limited')
      expect(await kindOf(provider.readRecords({ id: id === 'godaddy' || id === 'digitalocean' ? 'not-mine.example' : 'ZNOTMINE000', name: 'not-mine.example' }))).toBe('zone_not_found')
    })

    test('property: apply then revert leaves random zones as they were', async () => {
      await fc.assert(
        fc.asyncProperty(zoneArb, desiredArb, async (generated, desired) => {
          const { provider, zoneName } = setup(c())
          const zone = await zoneOf(provider, zoneName)
          const rename = (name: string) => (name === APEX ? zoneName : name.replace(`.${APEX}`, `.${zoneName}`))
          await provider.writeChanges(zone, generated.filter((s) => s.type !== 'SOA' && s.type !== 'NS').map((s) => ({ ...s, name: rename(s.name) })))
          const before = await provider.readRecords(zone)
          const plan = planApply(before, desired, zoneName, [], provider)
          await provider.writeChanges(zone, plan.changes)
          const after = await provider.readRecords(zone)
          expect(planApply(after, desired, zoneName, plan.entries, provider).changes).toEqual([])
          await provider.writeChanges(zone, planRevert(after, plan.entries).changes)
          expect(managed(await provider.readRecords(zone))).toEqual(managed(before))
        }),
        { numRuns: 15 },
      )
    })
  })
}

describe('paging', () => {
  test('zone lists longer than a page are read to the end (Cloudflare 50 a page, DigitalOcean 200)', async () => {
    for (const [id, count] of [['cloudflare', 60], ['digitalocean', 210]] as const) {
      const c = cases.find((x) => x.id === id)!
      const names = Array.from({ length: count }, (_, i) => `page${i}-${id}.example`)
      for (const name of names) c.fake.addZone(name)
      const zones = (await makeHosted(id, c.fake.credential, { [id]: c.base })!.listZones()).map((z) => z.name)
      for (const name of names) expect(zones).toContain(name)
      expect(c.fake.requests.filter((r) => r.includes(id === 'cloudflare' ? '/zones?page=2' : '/domains?page=2')).length).toBeGreaterThan(0)
    }
  })
})

describe('cloudflare apex flattening', () => {
  test('an apex CNAME replaces the apex addresses and keeps MX, TXT and CAA; revert puts the addresses back', async () => {
    const c = cases.find((x) => x.id === 'cloudflare')!
    const { provider, zoneName } = setup(c)
    const zone = await zoneOf(provider, zoneName)
    await provider.writeChanges(zone, [
      { name: zoneName, type: 'A', ttl: 300, values: ['198.51.100.1'] },
      { name: zoneName, type: 'MX', ttl: 300, values: [`10 mx.${zoneName}`] },
      { name: zoneName, type: 'TXT', ttl: 300, values: ['v=spf1 mx -all'] },
      { name: zoneName, type: 'CAA', ttl: 300, values: ['0 issue "letsencrypt.org"'] },
    ])
    const before = await provider.readRecords(zone)
    const plan = planApply(before, [{ type: 'CNAME', host: '@', value: 'edge.portico.test', purpose: 'routing_flattening' }], zoneName)
    await provider.writeChanges(zone, plan.changes)
    const after = await provider.readRecords(zone)
    expect(after.filter((s) => s.name === zoneName).map((s) => s.type).sort()).toEqual(['CAA', 'CNAME', 'MX', 'TXT'])
    await provider.writeChanges(zone, planRevert(after, plan.entries).changes)
    expect(managed(await provider.readRecords(zone))).toEqual(managed(before))
  })
})

describe('through the API: a DigitalOcean-hosted domain', () => {
  test('apply writes into the DigitalOcean zone, a re-apply writes nothing, and disconnect restores the record it replaced', async () => {
    const pdns = await startPdns()
    const dop = cases.find((x) => x.id === 'digitalocean')!
    const zone = `do${Date.now().toString(36)}.test`
    await pdns.createZone(zone, { nameservers: ['ns1.digitalocean.com.', 'ns2.digitalocean.com.', 'ns3.digitalocean.com.'] })
    // The customer's shop CNAME to their old host, as DigitalOcean holds it (no trailing dot: its recorded answers).
    dop.fake.addZone(zone).records.push({ id: 4242, type: 'CNAME', name: 'shop', data: 'old-host.example.net', priority: null, port: null, ttl: 1800, weight: null, flags: null, tag: null })
    const p = await startPortico({ DNS_RESOLVERS: pdns.dnsAddress, EDGE_CNAME_TARGET: 'edge.portico.test', DNS_PROVIDER_API_BASES: `digitalocean=${dop.base}` })
    try {
      const ws = await provision(p)
      const check = await p.api('POST', '/v1/domains:check', { token: ws.apiKey, body: { domain: `shop.${zone}` } })
      expect(check.body).toMatchObject({ provider: 'digitalocean', recommended_rail: 'apiKey' })
      const c = (await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: `shop.${zone}` } })).body
      const r = await p.api('POST', `/v1/connections/${c.id}/apply`, { token: ws.apiKey, body: { credential: dop.fake.credential } })
      expect(r.status).toBe(200)
      expect(r.body).toMatchObject({ changed: true, zone })
      const records = dop.fake.zones.find((z) => z.name === zone)!.records
      // Sent with the trailing dot, held without it, as DigitalOcean answers.
      expect(records).toEqual([expect.objectContaining({ type: 'CNAME', name: 'shop', data: 'edge.portico.test' })])
      expect(dop.fake.exchanges.some((x) => x.method === 'POST' && JSON.parse(x.requestBody).data === 'edge.portico.test.')).toBe(true)
      const writes = () => dop.fake.exchanges.filter((x) => x.method !== 'GET').length
      const before = writes()
      const again = await p.api('POST', `/v1/connections/${c.id}/apply`, { token: ws.apiKey, body: { credential: dop.fake.credential } })
      expect(again.status).toBe(200)
      expect(again.body).toMatchObject({ changed: false })
      expect(writes()).toBe(before)
      const wrong = await p.api('POST', `/v1/connections/${c.id}/apply`, { token: ws.apiKey, body: { credential: 'dop_v1_wrong' } })
      expect(wrong.status).toBe(422)
      expect(wrong.body.code).toBe('ProviderAuthenticationError')
      const out = await p.api('POST', `/v1/connections/${c.id}:disconnect`, { token: ws.apiKey, body: { credential: dop.fake.credential } })
      expect(out.status).toBe(200)
      expect(dop.fake.zones.find((z) => z.name === zone)!.records).toEqual([expect.objectContaining({ type: 'CNAME', name: 'shop', data: 'old-host.example.net', ttl: 1800 })])
    } finally {
      await p.close()
    }
  })
})

describe('through the API: an apex domain at a host with ALIAS (Gandi)', () => {
  test('the apex gets Gandi\'s ALIAS, never a CNAME beside SOA, NS, MX and TXT; disconnect puts the old address back', async () => {
    const pdns = await startPdns()
    const gandi = startGandiFake()
    const zone = `gandi${Date.now().toString(36)}.test`
    await pdns.createZone(zone, { nameservers: ['ns-1-a.gandi.net.', 'ns-2-b.gandi.net.'] })
    // The customer's apex as Gandi holds it: an address, mail and an SPF policy.
    gandi.addZone(zone).records.push(
      { rrset_name: '@', rrset_type: 'A', rrset_ttl: 10800, rrset_values: ['198.51.100.7'] },
      { rrset_name: '@', rrset_type: 'MX', rrset_ttl: 10800, rrset_values: ['10 spool.mail.gandi.net.'] },
      { rrset_name: '@', rrset_type: 'TXT', rrset_ttl: 10800, rrset_values: ['"v=spf1 include:_mailcust.gandi.net ?all"'] },
    )
    const before = structuredClone(gandi.zones.find((z) => z.name === zone)!.records)
    const p = await startPortico({ DNS_RESOLVERS: pdns.dnsAddress, EDGE_CNAME_TARGET: 'edge.portico.test', DNS_PROVIDER_API_BASES: `gandi=${gandi.url}/v5` })
    try {
      const ws = await provision(p)
      const c = (await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: zone } })).body
      expect(c.provider).toBe('gandi')
      // The records shown for the manual rail name Gandi's own apex record, as GET /v1/providers does (issue 46).
      expect(c.records).toEqual([expect.objectContaining({ type: 'ALIAS', host: '@', value: 'edge.portico.test', purpose: 'routing_alias' })])
      const r = await p.api('POST', `/v1/connections/${c.id}/apply`, { token: ws.apiKey, body: { credential: gandi.credential } })
      expect(r.status).toBe(200)
      const apex = gandi.zones.find((z) => z.name === zone)!.records.filter((s) => s.rrset_name === '@')
      expect(apex.map((s) => s.rrset_type).sort()).toEqual(['ALIAS', 'MX', 'TXT'])
      expect(apex.find((s) => s.rrset_type === 'ALIAS')!.rrset_values).toEqual(['edge.portico.test.'])
      const again = await p.api('POST', `/v1/connections/${c.id}/apply`, { token: ws.apiKey, body: { credential: gandi.credential } })
      expect(again.body).toMatchObject({ changed: false })
      const out = await p.api('POST', `/v1/connections/${c.id}:disconnect`, { token: ws.apiKey, body: { credential: gandi.credential } })
      expect(out.status).toBe(200)
      const bySet = (a: { rrset_type: string }, b: { rrset_type: string }) => a.rrset_type.localeCompare(b.rrset_type)
      expect([...gandi.zones.find((z) => z.name === zone)!.records].sort(bySet)).toEqual([...before].sort(bySet))
    } finally {
      await p.close()
      gandi.stop()
    }
  })
})
