// Provider-specific shapes beyond the do-no-harm property (test/integration/dns-do-no-harm.test.ts),
// each against its card-following stand-in: what a registrar's DNS holds that only it has (a Dynadot
// domain that is parked, a Gandi ALIAS at the apex, …) and what its API signals (its own rate limit,
// its documented errors). Each test reads as the person at that provider would see it.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { makeHosted, ProviderError } from '../../src/adapters/dns-providers/index.ts'
import { planApply, planRevert } from '../../src/domain/record-plan.ts'
import type { DnsRecord } from '../../src/domain/records.ts'
import type { Fake } from '../harness/provider-fakes/common.ts'
import { FAKE_CASES } from '../harness/provider-fakes/index.ts'
import { startDnsimpleFake } from '../../src/adapters/dns-providers/dnsimple/stand-in.ts'
import { CARDS } from '../harness/provider-cards/index.ts'
import { doNoHarm } from '../harness/do-no-harm.ts'

const fakes = new Map<string, Fake<any>>()
const IDS = ['dynadot', 'gandi', 'porkbun', 'desec']
beforeAll(() => FAKE_CASES.filter((c) => IDS.includes(c.id)).forEach((c) => fakes.set(c.id, c.start())))
afterAll(() => fakes.forEach((f) => f.stop()))

const errorOf = (p: Promise<unknown>) => p.then(() => null, (e) => (e instanceof ProviderError ? e : Promise.reject(e)))
const provider = (id: string) => {
  const c = FAKE_CASES.find((x) => x.id === id)!
  const f = fakes.get(id)!
  return { f, p: makeHosted(id, f.credential, { [id]: c.base(f) })! }
}
const DESIRED: DnsRecord[] = [
  { type: 'A', host: '@', value: '203.0.113.10', ttl: 300 },
  { type: 'CNAME', host: 'www', value: 'edge.portico.test', ttl: 300 },
]

describe('Dynadot', () => {
  test('the do-no-harm check catches a whole-zone writer that leaves out the forwards it reads', async () => {
    const { f, p } = provider('dynadot')
    const patched = p as any
    const rows = patched.rows.bind(patched)
    patched.rows = async (zone: unknown) => {
      const r = await rows(zone)
      return { ...r, rows: r.rows.filter((x: { type: string }) => x.type !== 'FORWARD') }
    }
    const violations = await doNoHarm({ fake: f, provider: patched, card: CARDS.dynadot }, 'harm-check-dynadot.example')
    expect(violations.some((v) => v.includes('"forward"'))).toBe(true)
  })

  test('a parked domain is never switched to Dynadot DNS by a write', async () => {
    const { f, p } = provider('dynadot')
    const name = 'parked-dynadot.example'
    const z = f.addZone(name)
    z.settings = { Type: 'Dynadot Parking', WithAds: 'yes' }
    const zone = { id: name, name }
    const sent = f.requests.length
    const e = await errorOf(p.writeChanges(zone, planApply(await p.readRecords(zone), DESIRED, name, [], p).changes))
    expect(e?.kind).toBe('unrepresentable')
    expect(e?.message).toContain('Dynadot Parking')
    expect(z.settings).toEqual({ Type: 'Dynadot Parking', WithAds: 'yes' })
    expect(f.requests.slice(sent).some((r) => r.includes('set_dns2'))).toBe(false)
  })

  test('an apex forward stands in the way of Portico\'s A: refused before set_dns2', async () => {
    const { f, p } = provider('dynadot')
    const name = 'apex-forward-dynadot.example'
    f.addZone(name).records.push({ sub: '', type: 'forward', value: 'https://example.net/', value2: '301' }, { sub: 'mail', type: 'a', value: '198.51.100.25' })
    const zone = { id: name, name }
    const sent = f.requests.length
    const e = await errorOf(p.writeChanges(zone, planApply(await p.readRecords(zone), DESIRED, name, [], p).changes))
    expect(e?.kind).toBe('unrepresentable')
    expect(e?.message).toContain('FORWARD')
    expect(f.requests.slice(sent).some((r) => r.includes('set_dns2'))).toBe(false)
  })
})

describe('Gandi', () => {
  test('the apex TXT values Portico merges beside keep the pieces their owner split them into, through apply and revert', async () => {
    const { f, p } = provider('gandi')
    const name = 'split-txt-gandi.example'
    const dkim = '"v=spf1 include:_mailcust.gandi.net " "?all"'
    f.addZone(name).records.push({ rrset_name: '@', rrset_type: 'TXT', rrset_ttl: 10800, rrset_values: [dkim, '"google-site-verification=abc"'] })
    const zone = { id: name, name }
    const plan = planApply(await p.readRecords(zone), [{ type: 'TXT', host: '@', value: 'portico-verify=tok' }], name, [], p)
    await p.writeChanges(zone, plan.changes)
    const stored = () => f.zones.find((z) => z.name === name)!.records.find((s: { rrset_type: string }) => s.rrset_type === 'TXT').rrset_values
    expect(stored()).toEqual([dkim, '"google-site-verification=abc"', '"portico-verify=tok"'])
    await p.writeChanges(zone, planRevert(await p.readRecords(zone), plan.entries).changes)
    expect(stored()).toEqual([dkim, '"google-site-verification=abc"'])
  })
})

describe('Porkbun', () => {
  test('its rate limit, an HTML 503 with no wait, is waited out; one that lasts is a rate limit, not an unreachable API', async () => {
    const { f, p } = provider('porkbun')
    const name = 'busy-porkbun.example'
    f.addZone(name)
    const zone = { id: name, name }
    f.throttleNext(undefined, 1)
    const started = Date.now()
    expect(await p.readRecords(zone)).toEqual([])
    expect(Date.now() - started).toBeGreaterThanOrEqual(900)
    f.throttleNext(undefined, 50)
    const e = await errorOf(p.readRecords(zone))
    f.throttleNext(undefined, 0)
    expect(e?.kind).toBe('rate_limited')
    expect(e?.status).toBe(503)
  }, 30_000)
})

describe('DNSimple', () => {
  test('a user access token (no account in /whoami) reaches the zones of the account /accounts lists', async () => {
    const f = startDnsimpleFake(undefined, 4242, true)
    try {
      f.addZone('user-token-dnsimple.example')
      const p = makeHosted('dnsimple', f.credential, { dnsimple: f.url + '/v2' })!
      const zones = await p.listZones()
      expect(zones.map((z) => z.name)).toEqual(['user-token-dnsimple.example'])
      await p.writeChanges(zones[0]!, [{ name: 'user-token-dnsimple.example', type: 'TXT', ttl: 3600, values: ['hello'] }])
      expect(f.requests.some((r) => r.startsWith('GET /v2/accounts'))).toBe(true)
      expect(f.requests.some((r) => r.startsWith('POST /v2/4242/zones/user-token-dnsimple.example/records'))).toBe(true)
    } finally {
      f.stop()
    }
  })
})

describe('DNSimple: a user token reaching two accounts that both hold a zone of one name', () => {
  test('the zone ids tell the copies apart (account and zone), and each write goes to the account of the zone written', async () => {
    const second = startDnsimpleFake(undefined, 5151)
    const f = startDnsimpleFake(second.credential, 4242, true, { url: second.url, account: 5151 })
    try {
      const name = 'two-accounts-dnsimple.example'
      f.addZone(name)
      second.addZone(name)
      const p = makeHosted('dnsimple', f.credential, { dnsimple: f.url + '/v2' })!
      const zones = await p.listZones()
      expect(zones).toEqual([{ id: `4242/${name}`, name }, { id: `5151/${name}`, name }])
      await p.writeChanges(zones[0]!, [{ name, type: 'TXT', ttl: 3600, values: ['first'] }])
      await p.writeChanges(zones[1]!, [{ name, type: 'TXT', ttl: 3600, values: ['second'] }])
      expect((await p.readRecords(zones[0]!)).find((s) => s.type === 'TXT')?.values).toEqual(['first'])
      expect((await p.readRecords(zones[1]!)).find((s) => s.type === 'TXT')?.values).toEqual(['second'])
      // A zone id stored by an earlier release (the name alone) still reaches its zone.
      const one = makeHosted('dnsimple', second.credential, { dnsimple: second.url + '/v2' })!
      expect((await one.readRecords({ id: name, name })).find((s) => s.type === 'TXT')?.values).toEqual(['second'])
    } finally {
      f.stop()
      second.stop()
    }
  })
})

describe('deSEC', () => {
  test('a write is one atomic bulk request: one refused set leaves the whole zone as it was', async () => {
    const { f, p } = provider('desec')
    const name = 'bulk-desec.example'
    f.addZone(name).records.push({ subname: 'www', type: 'A', ttl: 3600, records: ['198.51.100.2'] })
    const zone = { id: name, name }
    const sent = f.requests.length
    const e = await errorOf(
      p.writeChanges(zone, [
        { name: `www.${name}`, type: 'A', ttl: 3600, values: [] },
        { name: `www.${name}`, type: 'CNAME', ttl: 3600, values: ['edge.portico.test'] },
        { name, type: 'TXT', ttl: 60, values: ['too-short-a-ttl'] },
      ]),
    )
    expect(e?.kind).toBe('write_failed')
    expect(e?.message).toContain('3600')
    expect(f.requests.slice(sent)).toEqual([`PATCH /api/v1/domains/${name}/rrsets/`])
    expect(f.zones.find((z) => z.name === name)!.records).toEqual([{ subname: 'www', type: 'A', ttl: 3600, records: ['198.51.100.2'] }])
  })
})
