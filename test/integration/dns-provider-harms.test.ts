// The harms found when Portico's adapters met servers built from the providers' own references, each
// shown gone against a stand-in that answers as the provider's card says (src/adapters/dns-providers/<id>/card.ts):
// GoDaddy's TTL floor and its 409 in the seconds after an edit, Namecheap's whole-zone setHosts and
// the zone's mail setting, OVH's own SPF record type, Netlify's unpaged lists; then the same through
// Portico's API, as a new user drives it, with the credentials in the form the providers issue them.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { makeHosted, ProviderError, type DnsProvider, type Zone } from '../../src/adapters/dns-providers/index.ts'
import { RETRY_LIMITS } from '../../src/adapters/dns-providers/http.ts'
import { planApply, planRevert } from '../../src/domain/record-plan.ts'
import type { DnsRecord } from '../../src/domain/records.ts'
import { startGoDaddyFake, type GoDaddyFake } from '../../src/adapters/dns-providers/godaddy/stand-in.ts'
import { startNamecheapFake } from '../../src/adapters/dns-providers/namecheap/stand-in.ts'
import { startOvhFake } from '../../src/adapters/dns-providers/ovh/stand-in.ts'
import { startNetlifyFake } from '../../src/adapters/dns-providers/netlify/stand-in.ts'
import { startNs1Fake } from '../../src/adapters/dns-providers/ns1/stand-in.ts'
import type { Fake } from '../harness/provider-fakes/common.ts'
import { FAKE_CASES } from '../harness/provider-fakes/index.ts'
import { startPdns } from '../harness/pdns.ts'
import { provision, startPortico } from '../harness/portico.ts'

let gd: GoDaddyFake
let nc: Fake<any>
let ovh: ReturnType<typeof startOvhFake>
let nf: ReturnType<typeof startNetlifyFake>
beforeAll(() => {
  gd = startGoDaddyFake()
  nc = startNamecheapFake()
  ovh = startOvhFake()
  nf = startNetlifyFake()
})
afterAll(() => [gd, nc, ovh, nf].forEach((f) => f.stop()))

const errorOf = (p: Promise<unknown>) => p.then(() => null, (e) => (e instanceof ProviderError ? e : Promise.reject(e)))
const zoneOf = async (p: DnsProvider, name: string): Promise<Zone> => (await p.listZones()).find((z) => z.name === name)!
const desired: DnsRecord[] = [
  { type: 'A', host: '@', value: '203.0.113.10', ttl: 300 },
  { type: 'CNAME', host: 'www', value: 'edge.portico.test', ttl: 300 },
  { type: 'SPFM', host: '@', value: 'include:_spf.portico.test' },
]

describe('GoDaddy', () => {
  test('TTLs are raised to GoDaddy\'s floor of 600, which its API refuses to go under', async () => {
    const name = 'ttl-godaddy.example'
    gd.addZone(name)
    const p = makeHosted('godaddy', gd.credential, { godaddy: gd.url })!
    expect(p.minTtl).toBe(600)
    const zone = await zoneOf(p, name)
    const plan = planApply(await p.readRecords(zone), desired, name, [], p)
    expect(plan.changes.every((c) => c.ttl >= 600)).toBe(true)
    await p.writeChanges(zone, plan.changes)
    expect(gd.zones.find((z) => z.name === name)!.records.map((r) => r.ttl)).toEqual([600, 600, 600])
    // The stand-in refuses under 600 exactly as GoDaddy does.
    const raw = await fetch(`${gd.url}/v1/domains/${name}/records/A/x`, { method: 'PUT', headers: { authorization: `sso-key ${gd.credential}`, 'content-type': 'application/json' }, body: JSON.stringify([{ data: '198.51.100.1', ttl: 300 }]) })
    expect(raw.status).toBe(422)
    expect(await raw.json()).toMatchObject({ code: 'INVALID_BODY', fields: [{ code: 'UNKNOWN_RESTRICTION', path: 'records[0].ttl' }] })
  })

  test('a 409 in the seconds after an edit is waited out, not reported as a record conflict', async () => {
    const name = 'window-godaddy.example'
    gd.addZone(name)
    const p = makeHosted('godaddy', gd.credential, { godaddy: gd.url })!
    const zone = await zoneOf(p, name)
    gd.editWindowMs = 800
    try {
      const conflicts = gd.conflicts
      const plan = planApply(await p.readRecords(zone), desired, name, [], p)
      expect(plan.changes.length).toBeGreaterThan(1)
      await p.writeChanges(zone, plan.changes)
      expect(gd.conflicts).toBeGreaterThan(conflicts)
      expect((await p.readRecords(zone)).find((s) => s.type === 'CNAME')?.values).toEqual(['edge.portico.test'])
    } finally {
      gd.editWindowMs = 0
    }
  })

  test('a 409 that outlasts the retries is a rate limit to try again, never a conflict', async () => {
    const name = 'busy-godaddy.example'
    gd.addZone(name)
    const p = makeHosted('godaddy', gd.credential, { godaddy: gd.url })!
    const zone = await zoneOf(p, name)
    await p.writeChanges(zone, [{ name, type: 'A', ttl: 600, values: ['198.51.100.1'] }])
    gd.editWindowMs = 60_000
    const budget = RETRY_LIMITS.budgetSeconds
    RETRY_LIMITS.budgetSeconds = 2
    try {
      const e = await errorOf(p.writeChanges(zone, [{ name, type: 'A', ttl: 600, values: ['198.51.100.2'] }]))
      expect(e?.kind).toBe('rate_limited')
      expect(e?.retryAfter).toBeGreaterThan(0)
    } finally {
      gd.editWindowMs = 0
      RETRY_LIMITS.budgetSeconds = budget
    }
  })

  test('the key and secret are taken in the forms GoDaddy and its tools give them', async () => {
    const [key, secret] = gd.credential.split(':') as [string, string]
    for (const form of [`${key}:${secret}`, `sso-key ${key}:${secret}`, JSON.stringify({ key, secret }), `GODADDY_API_KEY=${key}\nGODADDY_API_SECRET=${secret}`, `${key}\n${secret}`]) {
      const zones = await makeHosted('godaddy', form, { godaddy: gd.url })!.listZones()
      expect({ form: form.slice(0, 12), ok: zones.length > 0 }).toEqual({ form: form.slice(0, 12), ok: true })
    }
  })
})

describe('Namecheap', () => {
  test('setHosts sends back every host and the zone\'s mail setting as read (email forwarding stays on)', async () => {
    const name = 'mail-namecheap.example'
    const z = nc.addZone(name)
    z.records.push(
      { Name: '@', Type: 'URL301', Address: 'https://example.net/', MXPref: '10', TTL: '1800' },
      { Name: 'fw', Type: 'MXE', Address: '198.51.100.77', MXPref: '10', TTL: '1800' },
      { Name: '@', Type: 'TXT', Address: 'v=spf1 include:spf.efwd.registrar-servers.com ~all', MXPref: '10', TTL: '1800' },
    )
    z.settings = { EmailType: 'FWD' }
    const p = makeHosted('namecheap', nc.credential, { namecheap: nc.url })!
    const zone = { id: name, name }
    const before = await p.readRecords(zone)
    const plan = planApply(before, [{ type: 'CNAME', host: 'shop', value: 'edge.portico.test', ttl: 300 }, ...desired.slice(2)], name, [], p)
    await p.writeChanges(zone, plan.changes)
    expect(z.settings).toEqual({ EmailType: 'FWD' })
    expect(z.records.map((h: any) => h.Type).sort()).toEqual(['CNAME', 'MXE', 'TXT', 'URL301'])
    expect(z.records.find((h: any) => h.Type === 'TXT').Address).toBe('v=spf1 include:spf.efwd.registrar-servers.com include:_spf.portico.test ~all')
    await p.writeChanges(zone, planRevert(await p.readRecords(zone), plan.entries).changes)
    expect(z.settings).toEqual({ EmailType: 'FWD' })
    expect(await p.readRecords(zone)).toEqual(before)
  })

  test('MX records under a mail setting other than custom MX are refused before anything is written', async () => {
    const name = 'fwd-namecheap.example'
    const z = nc.addZone(name)
    z.records.push({ Name: '@', Type: 'A', Address: '198.51.100.1', MXPref: '10', TTL: '1800' })
    z.settings = { EmailType: 'FWD' }
    const p = makeHosted('namecheap', nc.credential, { namecheap: nc.url })!
    const requests = nc.requests.length
    const e = await errorOf(p.writeChanges({ id: name, name }, [{ name, type: 'MX', ttl: 1800, values: [`10 mx.${name}`] }]))
    expect(e?.kind).toBe('unrepresentable')
    expect(nc.requests.slice(requests).some((r) => r.includes('setHosts'))).toBe(false)
  })
})

describe('OVHcloud', () => {
  test('merging SPF updates OVH\'s own SPF record in place; there is never a second SPF policy', async () => {
    const name = 'spf-ovh.example'
    const z = ovh.addZone(name)
    z.records.push({ id: 77, zone: name, subDomain: '', fieldType: 'SPF', target: '"v=spf1 include:mx.ovh.com ~all"', ttl: 0 })
    const p = makeHosted('ovh', ovh.credential, { ovh: ovh.url + '/1.0' })!
    const zone = { id: name, name }
    const before = await p.readRecords(zone)
    expect(before).toContainEqual(expect.objectContaining({ type: 'TXT', values: ['v=spf1 include:mx.ovh.com ~all'] }))
    const plan = planApply(before, [{ type: 'SPFM', host: '@', value: 'include:_spf.portico.test' }], name, [], p)
    await p.writeChanges(zone, plan.changes)
    const policies = z.records.filter((r) => /v=spf1/.test(r.target))
    expect(policies).toEqual([{ id: 77, zone: name, subDomain: '', fieldType: 'SPF', target: '"v=spf1 include:mx.ovh.com include:_spf.portico.test ~all"', ttl: 0 }])
    await p.writeChanges(zone, planRevert(await p.readRecords(zone), plan.entries).changes)
    expect(z.records).toEqual([{ id: 77, zone: name, subDomain: '', fieldType: 'SPF', target: '"v=spf1 include:mx.ovh.com ~all"', ttl: 0 }])
  })

  test('keys of the CA and US endpoints go to those endpoints', () => {
    const ca = makeHosted('ovh', 'ak:as:ck:ovh-ca', {}) as unknown as { base: string }
    const us = makeHosted('ovh', JSON.stringify({ application_key: 'ak', application_secret: 'as', consumer_key: 'ck', endpoint: 'ovh-us' }), {}) as unknown as { base: string }
    const eu = makeHosted('ovh', 'ak:as:ck', {}) as unknown as { base: string }
    expect([ca.base, us.base, eu.base]).toEqual(['https://ca.api.ovh.com/1.0', 'https://api.us.ovhcloud.com/1.0', 'https://eu.api.ovh.com/1.0'])
  })
})

describe('Netlify', () => {
  test('lists are read with one request each, as the API has no paging (and ignores page parameters)', async () => {
    for (let i = 0; i < 3; i++) nf.addZone(`nf${i}-paging.example`)
    const p = makeHosted('netlify', nf.credential, { netlify: nf.url + '/api/v1' })!
    const from = nf.requests.length
    const zones = await p.listZones()
    expect(zones.map((z) => z.name)).toEqual(expect.arrayContaining(['nf0-paging.example', 'nf1-paging.example', 'nf2-paging.example']))
    await p.readRecords(zones.find((z) => z.name === 'nf0-paging.example')!)
    expect(nf.requests.slice(from)).toEqual(['GET /api/v1/dns_zones', expect.stringMatching(/^GET \/api\/v1\/dns_zones\/[^/]+\/dns_records$/)])
  })
})

describe('the NS1 fleet (NS1 and Netlify DNS on every shard)', () => {
  test('a Netlify token on an NS1-served domain reaches Netlify; an NS1 key reaches NS1; a key both refuse is NS1\'s refusal', async () => {
    const ns1 = startNs1Fake()
    try {
      nf.addZone('fleet-netlify.example')
      ns1.addZone('fleet-ns1.example')
      const bases = { ns1: ns1.url + '/v1', netlify: nf.url + '/api/v1' }
      expect((await makeHosted('ns1', nf.credential, bases)!.listZones()).map((z) => z.name)).toContain('fleet-netlify.example')
      expect((await makeHosted('ns1', ns1.credential, bases)!.listZones()).map((z) => z.name)).toContain('fleet-ns1.example')
      // An OAuth token of Netlify's has no `nfp_` prefix: NS1 refuses it, Netlify takes it.
      const oauthLike = startNetlifyFake('netlify-oauth-access-token-0123456789')
      try {
        oauthLike.addZone('fleet-oauth.example')
        const z = await makeHosted('ns1', 'netlify-oauth-access-token-0123456789', { ns1: bases.ns1, netlify: oauthLike.url + '/api/v1' })!.listZones()
        expect(z.map((x) => x.name)).toContain('fleet-oauth.example')
      } finally {
        oauthLike.stop()
      }
      expect((await errorOf(makeHosted('ns1', 'neither-key', bases)!.listZones()))?.kind).toBe('auth')
    } finally {
      ns1.stop()
    }
  })
})

describe('through Portico\'s API, as a new user', () => {
  test('GoDaddy with a JSON key and secret, Namecheap with user and key: applied, mail settings kept, disconnected', async () => {
    const pdns = await startPdns()
    const gdZone = `gd${Date.now().toString(36)}.test`
    const ncZone = `nc${Date.now().toString(36)}.test`
    await pdns.createZone(gdZone, { nameservers: ['ns51.domaincontrol.com.', 'ns52.domaincontrol.com.'] })
    await pdns.createZone(ncZone, { nameservers: ['dns1.registrar-servers.com.', 'dns2.registrar-servers.com.'] })
    gd.addZone(gdZone)
    const nz = nc.addZone(ncZone)
    nz.records.push({ Name: 'go', Type: 'URL301', Address: 'https://example.net/', MXPref: '10', TTL: '1800' })
    nz.settings = { EmailType: 'OX' }
    const p = await startPortico({ DNS_RESOLVERS: pdns.dnsAddress, EDGE_CNAME_TARGET: 'edge.portico.test', DNS_PROVIDER_API_BASES: `godaddy=${gd.url},namecheap=${nc.url}`, NAMECHEAP_CLIENT_IP: nc.credential.split(':')[2]!, WEBHOOK_ALLOW_LOOPBACK: '1' })
    try {
      const ws = await provision(p)
      const [key, secret] = gd.credential.split(':') as [string, string]
      gd.editWindowMs = 1200
      const c1 = (await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: `shop.${gdZone}` } })).body
      const r1 = await p.api('POST', `/v1/connections/${c1.id}/apply`, { token: ws.apiKey, body: { credential: JSON.stringify({ key, secret }) } })
      expect(r1.status).toBe(200)
      expect(gd.zones.find((z) => z.name === gdZone)!.records.every((r) => r.ttl >= 600)).toBe(true)
      gd.editWindowMs = 0
      const [user, apiKey] = nc.credential.split(':') as [string, string]
      const c2 = (await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: `shop.${ncZone}` } })).body
      const r2 = await p.api('POST', `/v1/connections/${c2.id}/apply`, { token: ws.apiKey, body: { credential: `${user}:${apiKey}` } })
      expect(r2.status).toBe(200)
      expect(nz.settings).toEqual({ EmailType: 'OX' })
      expect(nz.records.map((h: any) => h.Type).sort()).toEqual(['CNAME', 'URL301'])
      const out = await p.api('POST', `/v1/connections/${c2.id}:disconnect`, { token: ws.apiKey, body: { credential: `${user}:${apiKey}` } })
      expect(out.status).toBe(200)
      expect(nz.records.map((h: any) => h.Type)).toEqual(['URL301'])
      expect(nz.settings).toEqual({ EmailType: 'OX' })
    } finally {
      gd.editWindowMs = 0
      await p.close()
    }
  })
})

describe('every adapter: a customer\'s edit inside a merged SPF/TXT set survives a re-apply and the disconnect', () => {
  const fakes = new Map<string, Fake<any>>()
  beforeAll(() => FAKE_CASES.forEach((c) => fakes.set(c.id, c.start())))
  afterAll(() => fakes.forEach((f) => f.stop()))
  let k = 0
  for (const c of FAKE_CASES) {
    test(c.id, async () => {
      const f = fakes.get(c.id)!
      const p = makeHosted(c.id, f.credential, { [c.id]: c.base(f) })!
      const name = `spf${++k}-${c.id}.example`
      f.addZone(name)
      c.seedZone?.(name, f)
      const zone = (await p.listZones()).find((z) => z.name === name)!
      const ttl = Math.max(3600, p.minTtl ?? 0)
      await p.writeChanges(zone, [{ name, type: 'TXT', ttl, values: ['v=spf1 mx -all', 'google-site-verification=abc'] }])
      const desired: DnsRecord[] = [{ type: 'SPFM', host: '@', value: 'include:spf.portico.example' }]
      const txt = async () => [...((await p.readRecords(zone)).find((s) => s.name === name && s.type === 'TXT')?.values ?? [])].sort()
      const first = planApply(await p.readRecords(zone), desired, name, [], p)
      await p.writeChanges(zone, first.changes)
      expect(await txt()).toEqual(['google-site-verification=abc', 'v=spf1 mx include:spf.portico.example -all'])
      // The customer adds an include of their own and a TXT value at the host; Portico re-applies.
      await p.writeChanges(zone, [{ name, type: 'TXT', ttl, values: ['v=spf1 mx include:spf.portico.example include:new.example -all', 'google-site-verification=abc', 'other-verification=xyz'] }])
      const again = planApply(await p.readRecords(zone), desired, name, first.entries, p)
      expect(again.changes).toEqual([])
      await p.writeChanges(zone, planRevert(await p.readRecords(zone), again.entries).changes)
      expect({ id: c.id, txt: await txt() }).toEqual({ id: c.id, txt: ['google-site-verification=abc', 'other-verification=xyz', 'v=spf1 mx include:new.example -all'] })
    })
  }
})
