// Provider behaviour the shared contract (dns-adapter-contract.test.ts) does not reach, each from the
// provider's reference card (src/adapters/dns-providers/<id>/card.ts): how zones are found, how a credential in
// the form the provider issues it is read, which refusals are the credential's and which the zone's.
import { describe, test, expect, afterAll } from 'bun:test'
import { makeHosted, ProviderError } from '../../src/adapters/dns-providers/index.ts'
import { RETRY_LIMITS } from '../../src/adapters/dns-providers/http.ts'
import { seedWixZone, startWixFake } from '../../src/adapters/dns-providers/wix/stand-in.ts'
import { startNetlifyFake } from '../../src/adapters/dns-providers/netlify/stand-in.ts'
import { startNs1Fake } from '../../src/adapters/dns-providers/ns1/stand-in.ts'
import { startRoute53Fake } from '../../src/adapters/dns-providers/route53/stand-in.ts'
import { startPdns } from '../harness/pdns.ts'
import { provision, startPortico } from '../harness/portico.ts'

const errorOf = (p: Promise<unknown>) => p.then(() => null, (e) => (e instanceof ProviderError ? e : Promise.reject(e)))

describe('Wix', () => {
  const f = startWixFake()
  afterAll(() => f.stop())
  const [account, key] = f.credential.split(/:(.*)/s) as [string, string]

  test('zones are the connected domains Wix holds a zone for and the registered ones; a domain connected by pointing is passed over', async () => {
    f.addZone('connected-wix.example')
    f.addZone('bought-at-wix.example')
    f.registered.add('bought-at-wix.example')
    f.addZone('pointed-wix.example')
    f.pointing.add('pointed-wix.example')
    const names = (await makeHosted('wix', f.credential, { wix: f.url })!.listZones()).map((z) => z.name).sort()
    expect(names).toEqual(['bought-at-wix.example', 'connected-wix.example'])
  })

  test('the key and account id are read in the forms Wix shows them: either order, JSON, NAME=value lines', async () => {
    for (const form of [`${key}:${account}`, JSON.stringify({ accountId: account, apiKey: key }), `WIX_API_KEY=${key}\nWIX_ACCOUNT_ID=${account}`, `${account}\n${key}`]) {
      expect(Array.isArray(await makeHosted('wix', form, { wix: f.url })!.listZones())).toBe(true)
    }
  })

  test('a wrong key (401) and a wrong account id (404 TARGET_ACCOUNT_NOT_FOUND) are the credential, a domain of another account is a zone not reached', async () => {
    expect((await errorOf(makeHosted('wix', `${account}:IST.wrong`, { wix: f.url })!.listZones()))?.kind).toBe('auth')
    const wrongAccount = await errorOf(makeHosted('wix', `${crypto.randomUUID()}:${key}`, { wix: f.url })!.readRecords({ id: 'connected-wix.example', name: 'connected-wix.example' }))
    expect([wrongAccount?.kind, wrongAccount?.message]).toEqual(['auth', expect.stringContaining('TARGET_ACCOUNT_NOT_FOUND')])
    const other = await errorOf(makeHosted('wix', f.credential, { wix: f.url })!.readRecords({ id: 'someone-else.example', name: 'someone-else.example' }))
    expect(other?.kind).toBe('zone_not_found')
  })

  test('a set is replaced by deleting its record object as it stands and adding the new one in one PATCH; the SOA and NS stay', async () => {
    const name = 'replace-wix.example'
    f.addZone(name)
    seedWixZone(name, f)
    const p = makeHosted('wix', f.credential, { wix: f.url })!
    const zone = { id: name, name }
    await p.writeChanges(zone, [{ name, type: 'TXT', ttl: 3600, values: ['a=1'] }])
    const before = f.requests.length
    await p.writeChanges(zone, [{ name, type: 'TXT', ttl: 3600, values: ['a=1', 'b=2'] }])
    expect(f.requests.slice(before)).toEqual([`GET /domains/v1/dns-zones/${name}`, `PATCH /domains/v1/dns-zones/${name}`])
    expect(f.zones.find((z) => z.name === name)!.records.map((r) => `${r.type} ${r.values.join(',')}`).sort()).toEqual(['NS ns0.wixdns.net,ns1.wixdns.net', 'SOA ns0.wixdns.net. support.wix.com. 1 10800 3600 604800 3600', 'TXT a=1,b=2'])
    const e = await errorOf(p.writeChanges(zone, [{ name, type: 'NS', ttl: 3600, values: ['ns.elsewhere.example'] }]))
    expect(e?.kind).toBe('unrepresentable')
  })

  test('a 429 without a wait is backed off and tried again; one that lasts is reported as a rate limit', async () => {
    const p = makeHosted('wix', f.credential, { wix: f.url })!
    f.throttleNext(undefined, 1)
    const started = Date.now()
    expect((await p.listZones()).length).toBeGreaterThan(0)
    expect(Date.now() - started).toBeGreaterThanOrEqual(900)
    const attempts = RETRY_LIMITS.attempts
    RETRY_LIMITS.attempts = 1
    f.throttleNext(undefined, 3)
    const e = await errorOf(p.listZones()).finally(() => {
      RETRY_LIMITS.attempts = attempts
      f.throttleNext(undefined, 0)
    })
    expect(e?.kind).toBe('rate_limited')
  })
})

describe('NS1', () => {
  test('a zone list and a zone\'s records that come with `Link: rel="next"` are followed, as NS1\'s SDK does', async () => {
    const f = startNs1Fake()
    try {
      f.pageSize = 2
      for (let i = 0; i < 5; i++) f.addZone(`paged${i}-ns1.example`)
      const z = f.zones.find((x) => x.name === 'paged0-ns1.example')!
      for (let i = 0; i < 5; i++) z.records.push({ domain: `h${i}.paged0-ns1.example`, type: 'A', ttl: 300, answers: [{ answer: [`198.51.100.${i + 1}`] }] })
      const p = makeHosted('ns1', f.credential, { ns1: f.url + '/v1', netlify: 'http://127.0.0.1:9/api/v1' })!
      expect((await p.listZones()).length).toBe(5)
      expect((await p.readRecords({ id: z.name, name: z.name })).length).toBe(5)
      expect([f.deepest.zones, f.deepest.records]).toEqual([3, 3])
    } finally {
      f.stop()
    }
  })

  test('a steered record (filters, answer metadata) and a linked one are read as locked and never written, even asked directly', async () => {
    const f = startNs1Fake()
    try {
      const name = 'steered-ns1.example'
      const z = f.addZone(name)
      z.records.push({ domain: `geo.${name}`, type: 'A', ttl: 60, answers: [{ answer: ['198.51.100.10'], meta: { up: true } }], filters: [{ filter: 'up' }] }, { domain: `api.${name}`, type: 'A', ttl: 60, answers: [], link: `geo.${name}` })
      const p = makeHosted('ns1', f.credential, { ns1: f.url + '/v1', netlify: 'http://127.0.0.1:9/api/v1' })!
      const sets = await p.readRecords({ id: name, name })
      expect(sets.map((s) => [s.name, s.locked])).toEqual([[`geo.${name}`, 'an NS1 filter chain (traffic steering)'], [`api.${name}`, `an NS1 linked record (answers from geo.${name})`]])
      const before = JSON.stringify(z.records)
      const e = await errorOf(p.writeChanges({ id: name, name }, [{ name: `geo.${name}`, type: 'A', ttl: 60, values: ['203.0.113.1'] }]))
      expect(e?.kind).toBe('unrepresentable')
      expect(JSON.stringify(z.records)).toBe(before)
    } finally {
      f.stop()
    }
  })
})

describe('Route 53', () => {
  test('Throttling and PriorRequestNotComplete (400s with no wait) are backed off and sent again; alias and routing-policy sets are read as locked', async () => {
    const f = startRoute53Fake()
    try {
      const name = 'busy-r53.example'
      const z = f.addZone(name)
      z.records.push({ name: `cdn.${name}.`, type: 'A', ttl: 0, values: [], aliasTarget: { hostedZoneId: 'Z2FDTNDATAQYW2', dnsName: 'd1.cloudfront.net.', evaluateTargetHealth: false } })
      const p = makeHosted('route53', f.credential, { route53: f.url })!
      const zone = (await p.listZones()).find((x) => x.name === name)!
      f.throttleNext(undefined, 1)
      expect((await p.readRecords(zone)).find((s) => s.name === `cdn.${name}`)).toMatchObject({ locked: 'a Route 53 alias record', values: ['alias d1.cloudfront.net'] })
      f.busy = 2
      const started = Date.now()
      await p.writeChanges(zone, [{ name: `shop.${name}`, type: 'CNAME', ttl: 300, values: ['edge.portico.test'] }])
      expect(Date.now() - started).toBeGreaterThanOrEqual(1400)
      expect(z.records.some((r) => r.name === `shop.${name}.`)).toBe(true)
      f.busy = 100
      const attempts = RETRY_LIMITS.attempts
      RETRY_LIMITS.attempts = 1
      const e = await errorOf(p.writeChanges(zone, [{ name: `shop2.${name}`, type: 'CNAME', ttl: 300, values: ['edge.portico.test'] }])).finally(() => {
        RETRY_LIMITS.attempts = attempts
        f.busy = 0
      })
      expect([e?.kind, e?.message]).toEqual(['rate_limited', expect.stringContaining('PriorRequestNotComplete')])
    } finally {
      f.stop()
    }
  })
})

describe('through Portico\'s API, as a new user', () => {
  test('a domain on NS1\'s fleet is named as NS1 or Netlify, not claimed for NS1; a Netlify token connects it', async () => {
    const pdns = await startPdns()
    const nf = startNetlifyFake()
    const ns1 = startNs1Fake()
    const zone = `fleet${Date.now().toString(36)}.test`
    await pdns.createZone(zone, { nameservers: ['dns1.p07.nsone.net.', 'dns2.p07.nsone.net.', 'dns3.p07.nsone.net.', 'dns4.p07.nsone.net.'] })
    nf.addZone(zone)
    const p = await startPortico({ DNS_RESOLVERS: pdns.dnsAddress, EDGE_CNAME_TARGET: 'edge.portico.test', DNS_PROVIDER_API_BASES: `ns1=${ns1.url}/v1,netlify=${nf.url}/api/v1` })
    try {
      const ws = await provision(p)
      const check = (await p.api('POST', '/v1/domains:check', { token: ws.apiKey, body: { domain: `shop.${zone}` } })).body
      expect(check.provider_name).toBe('IBM NS1 Connect or Netlify DNS')
      expect(check.provider_candidates.map((c: { provider: string; api_credential: boolean }) => [c.provider, c.api_credential])).toEqual([['ns1', true], ['netlify', true]])
      expect(check.rails.apiKey.available).toBe(true)
      const c = (await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: `shop.${zone}` } })).body
      const r = await p.api('POST', `/v1/connections/${c.id}/apply`, { token: ws.apiKey, body: { credential: nf.credential } })
      expect(r.status).toBe(200)
      expect(nf.zones.find((z) => z.name === zone)!.records).toContainEqual(expect.objectContaining({ hostname: `shop.${zone}`, type: 'CNAME', value: 'edge.portico.test' }))
    } finally {
      await p.close()
      nf.stop()
      ns1.stop()
    }
  })

  test('a Wix domain: the check offers the API rail, an account id and key connect it, and a disconnect puts the zone back', async () => {
    const pdns = await startPdns()
    const f = startWixFake()
    const zone = `wix${Date.now().toString(36)}.test`
    await pdns.createZone(zone, { nameservers: ['ns0.wixdns.net.', 'ns1.wixdns.net.'] })
    f.addZone(zone)
    seedWixZone(zone, f)
    const p = await startPortico({ DNS_RESOLVERS: pdns.dnsAddress, EDGE_CNAME_TARGET: 'edge.portico.test', DNS_PROVIDER_API_BASES: `wix=${f.url}` })
    try {
      const ws = await provision(p)
      const check = (await p.api('POST', '/v1/domains:check', { token: ws.apiKey, body: { domain: `shop.${zone}` } })).body
      expect(check).toMatchObject({ provider: 'wix', provider_name: 'Wix', recommended_rail: 'apiKey' })
      const before = JSON.stringify(f.zones.find((z) => z.name === zone)!.records)
      const c = (await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: `shop.${zone}` } })).body
      const [account, key] = f.credential.split(/:(.*)/s) as [string, string]
      const r = await p.api('POST', `/v1/connections/${c.id}/apply`, { token: ws.apiKey, body: { credential: `WIX_ACCOUNT_ID=${account}\nWIX_API_KEY=${key}` } })
      expect(r.status).toBe(200)
      expect(f.zones.find((z) => z.name === zone)!.records).toContainEqual({ type: 'CNAME', hostName: `shop.${zone}`, values: ['edge.portico.test'], ttl: 300 })
      const out = await p.api('POST', `/v1/connections/${c.id}:disconnect`, { token: ws.apiKey, body: { credential: f.credential } })
      expect(out.status).toBe(200)
      expect(JSON.stringify(f.zones.find((z) => z.name === zone)!.records)).toBe(before)
    } finally {
      await p.close()
      f.stop()
    }
  })
})
