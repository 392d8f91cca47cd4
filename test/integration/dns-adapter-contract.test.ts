// The shared contract every hosted DNS-provider adapter passes against its stand-in
// (test/harness/provider-fakes/index.ts, each written from the provider's published reference): it
// lists zones and reads record sets across pages, applies a plan and reads it back, re-applies with no
// change, reverts to the zone as it was, and tells a rate limit (with the provider's Retry-After), a
// refused credential and an unknown zone apart. A second test holds the catalog to it: every provider
// the census counts as automatic through an API credential has an adapter here.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { HOSTED, makeHosted, ProviderError, type DnsProvider, type RRset } from '../../src/adapters/dns-providers/index.ts'
import { applyChanges, planApply, planRevert } from '../../src/domain/record-plan.ts'
import { builtRails, parityCensus, PROVIDERS } from '../../src/domain/providers.ts'
import type { DnsRecord } from '../../src/domain/records.ts'
import type { Fake } from '../harness/provider-fakes/common.ts'
import { FAKE_CASES } from '../harness/provider-fakes/index.ts'
import { OPENAPI } from '../harness/provider-fakes/openapi.ts'
import { GODADDY_SMALL_ACCOUNT } from '../../src/adapters/dns-providers/godaddy/stand-in.ts'
import type { PorkbunFake } from '../../src/adapters/dns-providers/porkbun/stand-in.ts'
import type { NamesiloFake } from '../../src/adapters/dns-providers/namesilo/stand-in.ts'
import type { DynadotFake } from '../../src/adapters/dns-providers/dynadot/stand-in.ts'
import type { R53Fake } from '../../src/adapters/dns-providers/route53/stand-in.ts'
import { canonicalZone } from '../property/arbitraries.ts'
import { RETRY_LIMITS } from '../../src/adapters/dns-providers/http.ts'
import { CARDS } from '../harness/provider-cards/index.ts'
import { sharedPortico } from '../harness/portico.ts'
import { heldBy } from '../harness/host-holds.ts'

const fakes = new Map<string, Fake<any>>()
beforeAll(() => FAKE_CASES.forEach((c) => fakes.set(c.id, c.start())))
afterAll(() => fakes.forEach((f) => f.stop()))

const errorOf = (p: Promise<unknown>) => p.then(() => null, (e) => (e instanceof ProviderError ? e : Promise.reject(e)))
const managed = (z: RRset[]) => canonicalZone(z.filter((s) => s.type !== 'SOA' && !(s.type === 'NS' && s.name === z.find((x) => x.type === 'SOA')?.name)))

for (const c of FAKE_CASES) {
  describe(`${c.id} adapter contract (${c.reference})`, () => {
    let n = 0
    const setup = () => {
      const f = fakes.get(c.id)!
      const zoneName = `contract${++n}-${c.id}.example`
      // More zones than a page holds, so listing them pages (a stand-in that serves as many as asked,
      // as its API does, gets as many fillers as the adapter asks for in a page).
      for (let i = 0; i < (c.pageFill?.zones ?? 4); i++) f.addZone(`filler${n}-${i}-${c.id}.example`)
      const store = f.addZone(zoneName)
      c.seedZone?.(zoneName, f)
      for (let i = 0; i < (c.pageFill?.records?.count ?? 0); i++) store.records.push(c.pageFill!.records!.row(zoneName, i))
      return { f, zoneName, provider: makeHosted(c.id, f.credential, { [c.id]: c.base(f) }) as DnsProvider }
    }

    test('apply, read back, re-apply with no change, revert to the zone as it was; every list pages', async () => {
      const { f, zoneName, provider } = setup()
      const zone = (await provider.listZones()).find((z) => z.name === zoneName)!
      expect(zone).toBeDefined()
      // Where the API pages, the stand-in serves at most three a page, so the adapter must follow pages.
      const paged = (list: 'zones' | 'records') => !c.unpaged?.lists.includes(list)
      if (paged('zones')) expect(f.deepest.zones).toBeGreaterThanOrEqual(2)
      else expect(f.deepest.zones).toBe(0)
      const long = 'k=' + 'é'.repeat(200) // 402 bytes of UTF-8: two character strings at the wire
      const low = Math.max(600, provider.minTtl ?? 0) // deSEC and Namesilo refuse TTLs under 3600
      // MX and CAA only where the host holds them (its catalogue row's `mx` and `caa`).
      await provider.writeChanges(zone, heldBy(c.id, [
        { name: zoneName, type: 'A', ttl: low, values: ['198.51.100.1'] },
        { name: zoneName, type: 'MX', ttl: 3600, values: [`10 mx.${zoneName}`, `20 mx2.${zoneName}`] },
        { name: zoneName, type: 'TXT', ttl: 3600, values: ['v=spf1 include:_spf.google.com ~all', 'say "hi"', long] },
        { name: zoneName, type: 'CAA', ttl: 3600, values: ['0 issue "letsencrypt.org"'] },
        { name: `www.${zoneName}`, type: 'A', ttl: low, values: ['198.51.100.2'] },
        { name: `old.${zoneName}`, type: 'CNAME', ttl: low, values: ['legacy.example.net'] },
      ]))
      const before = await provider.readRecords(zone)
      if (paged('records')) expect(f.deepest.records).toBeGreaterThanOrEqual(2)
      else expect(f.deepest.records).toBe(0)
      const txt = before.find((s) => s.name === zoneName && s.type === 'TXT')!.values.sort()
      expect(txt).toEqual([long, 'say "hi"', 'v=spf1 include:_spf.google.com ~all'].sort())

      const desired: DnsRecord[] = heldBy(c.id, [
        { type: 'A', host: '@', value: '203.0.113.10', ttl: 300 },
        { type: 'CNAME', host: 'www', value: 'edge.portico.test', ttl: 300 },
        { type: 'SPFM', host: '@', value: 'include:_spf.portico.test' },
        { type: 'TXT', host: '_portico-challenge', value: 'portico-verify=tok' },
        { type: 'CAA', host: '@', value: '0 issue "pki.goog"' },
      ])
      const plan = planApply(before, desired, zoneName, [], provider)
      await provider.writeChanges(zone, plan.changes)
      const after = await provider.readRecords(zone)
      expect(managed(after)).toEqual(managed(applyChanges(before, plan.changes)))
      expect(planApply(after, desired, zoneName, plan.entries, provider).changes).toEqual([])
      await provider.writeChanges(zone, planRevert(after, plan.entries).changes)
      expect(managed(await provider.readRecords(zone))).toEqual(managed(before))
    })

    test('a rate limit carries its Retry-After; a refused credential, an unknown zone and an unreachable API have their own reasons', async () => {
      const { f, zoneName, provider } = setup()
      const zone = (await provider.listZones()).find((z) => z.name === zoneName)!
      // A wait too long to take within one request is reported with the provider's own wait.
      f.throttleNext(undefined, 10)
      const attempts = RETRY_LIMITS.attempts
      RETRY_LIMITS.attempts = 1
      const limited = await errorOf(provider.readRecords(zone)).finally(() => (RETRY_LIMITS.attempts = attempts))
      f.throttleNext(undefined, 0)
      expect(limited?.kind).toBe('rate_limited')
      expect(limited?.retryAfter).toBe(f.retryAfter)
      const bad = makeHosted(c.id, typeof c.badCredential === 'function' ? c.badCredential(f) : c.badCredential, { [c.id]: c.base(f), ...c.extraBases })!
      expect((await errorOf(bad.listZones()))?.kind).toBe('auth')
      expect((await errorOf(provider.readRecords(c.foreignZone)))?.kind).toBe('zone_not_found')
      expect((await errorOf(provider.writeChanges(c.foreignZone, [{ name: c.foreignZone.name, type: 'A', ttl: 300, values: ['198.51.100.9'] }])))?.kind).toBe('zone_not_found')
      // Nothing listens at the API's address: the provider is unreachable, and the credential stays out of the reason.
      const gone = await errorOf(makeHosted(c.id, f.credential, { [c.id]: c.base(f).replace(/^http:\/\/127\.0\.0\.1:\d+/, 'http://127.0.0.1:9'), ...c.extraBases })!.listZones())
      expect(gone?.kind).toBe('unreachable')
      expect(gone?.message).not.toContain(f.credential)
    })

    const card = CARDS[c.id]
    if (card && card.rateLimit.signal.toLowerCase() !== 'none' && !card.rateLimit.signal.startsWith('none')) {
      test(`a rate limit with a short wait is waited out, as the card says it is signalled (${card.rateLimit.signal})`, async () => {
        const { f, zoneName, provider } = setup()
        const zone = (await provider.listZones()).find((z) => z.name === zoneName)!
        f.throttleNext(1)
        const started = Date.now()
        expect(Array.isArray(await provider.readRecords(zone))).toBe(true)
        expect(Date.now() - started).toBeGreaterThanOrEqual(500)
      })
    }

    const spec = OPENAPI[c.id]
    if (spec) {
      test(`what the adapter sent and the stand-in answered follows the provider's published description (${spec.source})`, () => {
        const report = spec.document.check(fakes.get(c.id)!.exchanges)
        const unexplained = report.violations.filter((v) => !spec.exceptions.some((e) => e.match.test(v)))
        expect(unexplained).toEqual([])
        // Every operation kept from the document was exercised, and each exception is still needed.
        expect([...report.covered].sort()).toEqual(spec.document.operations().sort())
        for (const e of spec.exceptions) expect({ exception: e.why, used: report.violations.some((v) => e.match.test(v)) }).toEqual({ exception: e.why, used: true })
        expect(report.checked).toBeGreaterThanOrEqual(10)
      })
    }
  })
}

describe('the catalog against the adapters', () => {
  test('every provider the census counts as automatic has an adapter that runs the contract above', () => {
    // PowerDNS runs the same checks against a real PowerDNS server (test/integration/rails.test.ts, test/property/apply-powerdns.test.ts).
    const tested = new Set([...FAKE_CASES.map((c) => c.id), 'powerdns'])
    const automatic = PROVIDERS.filter((p) => p.built.api_credential || p.built.oauth)
    // The census counts end users' providers; PowerDNS (integrator-only) is catalogued but not counted.
    expect(automatic.filter((p) => p.audience === 'end_user').length).toBe(parityCensus().built.automatic)
    expect(automatic.filter((p) => p.audience === 'integrator').map((p) => p.id)).toEqual(['powerdns'])
    // An OAuth rail uses the provider's API adapter with the granted token.
    for (const p of automatic) if (p.built.oauth) expect({ id: p.id, adapter: builtRails(p.id).api }).toEqual({ id: p.id, adapter: true })
    for (const p of automatic) expect({ id: p.id, contract: tested.has(p.id) }).toEqual({ id: p.id, contract: true })
    for (const id of Object.keys(HOSTED)) expect({ id, catalogued: PROVIDERS.some((p) => p.id === id) }).toEqual({ id, catalogued: true })
  })
})

describe('provider specifics', () => {
  test('GoDaddy ACCESS_DENIED (an account the API is closed to) is an account restriction, not a bad key', async () => {
    const f = fakes.get('godaddy')!
    const e = await errorOf(makeHosted('godaddy', GODADDY_SMALL_ACCOUNT, { godaddy: f.url })!.listZones())
    expect(e?.kind).toBe('plan_restricted')
    expect(e?.message).toContain('ACCESS_DENIED')
  })

  test('Porkbun: a domain without API access switched on is a missing permission, not a bad key', async () => {
    const c = FAKE_CASES.find((x) => x.id === 'porkbun')!
    const f = fakes.get('porkbun') as PorkbunFake
    f.addZone('closed-porkbun.example')
    f.closed.add('closed-porkbun.example')
    const p = makeHosted('porkbun', f.credential, { porkbun: c.base(f) })!
    const e = await errorOf(p.readRecords({ id: 'closed-porkbun.example', name: 'closed-porkbun.example' }))
    expect(e?.kind).toBe('permission')
    expect(e?.message).toContain('opted in to API access')
    expect(e?.message).not.toContain(f.credential.split(':')[1]!)
  })

  test('NameSilo: a key locked to other addresses is a missing permission; a zone of one record reads; the key never shows', async () => {
    const c = FAKE_CASES.find((x) => x.id === 'namesilo')!
    const f = fakes.get('namesilo') as NamesiloFake
    const name = 'one-record-namesilo.example'
    const z = f.addZone(name)
    z.records.push({ record_id: 'r1', type: 'MX', host: name, value: `mx.${name}`, ttl: 7207, distance: 10 })
    const p = makeHosted('namesilo', f.credential, { namesilo: c.base(f) })!
    // NameSilo's JSON comes from XML: a list of one record is the record itself.
    expect(await p.readRecords({ id: name, name })).toEqual([{ name, type: 'MX', ttl: 7207, values: [`10 mx.${name}`] }])
    f.ipLocked.add(name)
    const e = await errorOf(p.readRecords({ id: name, name }))
    expect(e?.kind).toBe('permission')
    expect(e?.message).toContain('113')
    const bad = await errorOf(makeHosted('namesilo', 'secret-key-in-url', { namesilo: c.base(f) })!.listZones())
    expect(bad?.kind).toBe('auth')
    expect(bad?.message).not.toContain('secret-key-in-url')
    const down = await errorOf(makeHosted('namesilo', 'secret-key-in-url', { namesilo: 'http://127.0.0.1:9/api' })!.listZones())
    expect(down?.kind).toBe('unreachable')
    expect(down?.message).not.toContain('secret-key-in-url')
  })

  test('Dynadot: one TTL per zone; an apply keeps the zone\'s TTL instead of changing every record\'s', async () => {
    const c = FAKE_CASES.find((x) => x.id === 'dynadot')!
    const f = fakes.get('dynadot') as DynadotFake
    const name = 'one-ttl-dynadot.example'
    f.addZone(name).records.push({ sub: '', type: 'mx', value: `mx.${name}`, value2: '10' }, { sub: 'mail', type: 'a', value: '198.51.100.25' })
    f.ttls.set(name, 1800)
    const p = makeHosted('dynadot', f.credential, { dynadot: c.base(f) })!
    const zone = { id: name, name }
    const desired: DnsRecord[] = [{ type: 'CNAME', host: 'shop', value: 'edge.portico.test', ttl: 300 }]
    const plan = planApply(await p.readRecords(zone), desired, name, [], p)
    expect(plan.changes).toEqual([{ name: `shop.${name}`, type: 'CNAME', ttl: 1800, values: ['edge.portico.test'] }])
    await p.writeChanges(zone, plan.changes)
    expect(f.ttls.get(name)).toBe(1800)
    const after = await p.readRecords(zone)
    expect(after.find((s) => s.type === 'MX')).toEqual({ name, type: 'MX', ttl: 1800, values: [`10 mx.${name}`] })
    expect(planApply(after, desired, name, plan.entries, p).changes).toEqual([])
    f.ipLocked.add(name)
    const e = await errorOf(p.readRecords(zone))
    expect(e?.kind).toBe('permission')
    expect(e?.message).not.toContain(f.credential)
  })

  test('Route 53 pages inside routing-policy sets and refuses to write over them', async () => {
    const c = FAKE_CASES.find((x) => x.id === 'route53')!
    const f = fakes.get('route53')! as R53Fake
    // Three a page (Route 53 answers up to maxitems), so a page ends inside the weighted sets.
    f.pageCap = 3
    const name = 'weighted-r53.example'
    const z = f.addZone(name)
    c.seedZone!(name, f)
    for (let i = 0; i < 4; i++) z.records.push({ name: `www.${name}.`, type: 'A', ttl: 60, values: [`198.51.100.${i + 1}`], setIdentifier: `w${i}`, weight: 10 })
    z.records.push({ name: `api.${name}.`, type: 'A', ttl: 60, values: ['198.51.100.9'] })
    const p = makeHosted('route53', f.credential, { route53: c.base(f) })!
    const zone = (await p.listZones()).find((x) => x.name === name)!
    const sets = await p.readRecords(zone)
    expect(sets.find((s) => s.name === `api.${name}`)?.values).toEqual(['198.51.100.9'])
    // Read, but locked: the planner never changes or removes them.
    const www = sets.find((s) => s.name === `www.${name}`)
    expect([www?.type, www?.locked]).toEqual(['A', 'Route 53 routing-policy record sets (SetIdentifier)'])
    expect(sets.find((s) => s.name === `www.${name}`)?.values.length).toBe(4)
    expect(() => planApply(sets, [{ type: 'CNAME', host: 'www', value: 'edge.portico.test' }], name, [], p)).toThrow(/routing-policy/)
    expect(f.requests.some((r) => r.includes('identifier=w'))).toBe(true)
    const e = await errorOf(p.writeChanges(zone, [{ name: `www.${name}`, type: 'A', ttl: 300, values: ['203.0.113.1'] }]))
    expect(e?.kind).toBe('conflict')
    expect(z.records.filter((s) => s.name === `www.${name}.`).length).toBe(4)
    f.pageCap = null
  })
})

describe('GET /v1/providers', () => {
  test('serves the whole catalog, unauthenticated, with the census of built rails', async () => {
    const p = await sharedPortico()
    const r = await p.api('GET', '/v1/providers')
    expect(r.status).toBe(200)
    expect(r.body.providers.length).toBeGreaterThanOrEqual(70)
    expect(r.body.census.built.automatic).toBeGreaterThanOrEqual(30)
    expect(r.body.census.built.automatic).toBe(r.body.providers.filter((x: { audience: string; built: { api_credential: boolean; oauth: boolean } }) => x.audience === 'end_user' && (x.built.api_credential || x.built.oauth)).length)
    expect(r.body.providers.find((x: { id: string }) => x.id === 'netlify')).toMatchObject({ logo: 'netlify', built: { api_credential: true } })
  })
})
