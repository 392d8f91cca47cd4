// Provider signals the shared contract does not reach, each as its card describes it
// (src/adapters/dns-providers/<id>/card.ts): DNS Made Easy's rate limit is a 400 told by its text and
// x-dnsme-requestsRemaining; a Dynu error can come as HTTP 200 with the error in the body's
// statusCode; a ClouDNS sub-user signs with sub-auth-id and TTLs go up to an accepted value, never
// down; Alibaba Cloud DNS and DNSPod refuse TTLs under 600, so Portico never plans one.
import { describe, test, expect, afterAll } from 'bun:test'
import { makeHosted, ProviderError } from '../../src/adapters/dns-providers/index.ts'
import { planApply } from '../../src/domain/record-plan.ts'
import { json, startFake } from '../harness/provider-fakes/common.ts'
import { startCloudnsFake } from '../../src/adapters/dns-providers/cloudns/stand-in.ts'

const stops: (() => void)[] = []
afterAll(() => stops.forEach((s) => s()))
const errorOf = (p: Promise<unknown>) => p.then(() => null, (e) => (e instanceof ProviderError ? e : Promise.reject(e)))

describe('rate limits and errors as the providers send them', () => {
  test('DNS Made Easy: a 400 with x-dnsme-requestsRemaining 0 is a rate limit, whatever its text; another 400 is not', async () => {
    let remaining = '0'
    const f = startFake({
      credential: 'k:s',
      throttled: () => json(429, {}),
      handle: () => json(400, { error: ['Request denied'] }, { 'x-dnsme-requestlimit': '150', 'x-dnsme-requestsremaining': remaining }),
    })
    stops.push(f.stop)
    const p = makeHosted('dnsmadeeasy', 'key:secret', { dnsmadeeasy: f.url + '/V2.0' })!
    expect((await errorOf(p.listZones()))?.kind).toBe('rate_limited')
    remaining = '42'
    expect((await errorOf(p.listZones()))?.kind).toBe('write_failed')
  })

  test('Dynu: an answer with HTTP 200 whose body carries an error statusCode is a failure, not an empty zone', async () => {
    const f = startFake({ credential: 'k', throttled: () => json(429, {}), handle: () => json(200, { statusCode: 501, type: 'Argument Exception', message: 'Invalid.' }) })
    stops.push(f.stop)
    const p = makeHosted('dynu', 'key', { dynu: f.url })!
    const e = await errorOf(p.readRecords({ id: '1', name: 'dynu-200.example' }))
    expect(e?.kind).toBe('write_failed')
    expect(e?.message).toContain('Argument Exception')
  })
})

describe('ClouDNS credentials and TTLs', () => {
  const f = startCloudnsFake(undefined, 'pw-sub', '777001')
  stops.push(f.stop)
  f.addZone('sub-cloudns.example')

  test('a sub-user\'s credential, named as ClouDNS names it, signs with sub-auth-id', async () => {
    const p = makeHosted('cloudns', 'sub-auth-id=777001\nauth-password=pw-sub', { cloudns: f.url })!
    expect((await p.listZones()).map((z) => z.name)).toContain('sub-cloudns.example')
    expect(f.requests.some((r) => r.includes('sub-auth-id=777001'))).toBe(true)
    // The same id sent as an API user's is not that user.
    expect((await errorOf(makeHosted('cloudns', '777001:pw-sub', { cloudns: f.url })!.listZones()))?.kind).toBe('auth')
  })

  test('a TTL ClouDNS does not offer is written as the next one up (600 → 900), never lower', async () => {
    const p = makeHosted('cloudns', 'sub-auth-id=777001\nauth-password=pw-sub', { cloudns: f.url })!
    const zone = { id: 'sub-cloudns.example', name: 'sub-cloudns.example' }
    await p.writeChanges(zone, [{ name: `a.${zone.name}`, type: 'A', ttl: 600, values: ['198.51.100.7'] }])
    expect(f.zones.find((z) => z.name === zone.name)!.records.find((r) => r.host === 'a')?.ttl).toBe('900')
  })
})

describe('TTL floors', () => {
  for (const id of ['alibaba-cloud-dns', 'dnspod']) {
    test(`${id}: a plan never writes a TTL under 600`, () => {
      const p = makeHosted(id, 'AKID:secret', {})!
      const plan = planApply([], [{ type: 'A', host: '@', value: '203.0.113.10', ttl: 300 }], 'floor.example', [], p)
      expect(plan.changes.map((c) => c.ttl)).toEqual([600])
    })
  }
})
