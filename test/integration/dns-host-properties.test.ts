// Properties every DNS adapter holds against its stand-in (issue 46), each with a test of the test:
// - an apex connection, on a zone holding SOA and NS (where the stand-in keeps them), MX, TXT and the
//   customer's old apex address, applies and reverts cleanly: the apex gets the host's own apex
//   record (HostConventions.apex: a flattened CNAME, ALIAS, ANAME) or A records, never a CNAME beside
//   the apex's other records; MX, TXT, NS and SOA stay as they were; a revert leaves the zone as it was;
// - a re-apply with nothing changed writes nothing: it sends exactly the requests a bare read sends
//   (the planner finds every set as the host stores it: names, hostnames, TXT quoting, TTL rounding);
// - the catalogue's apex capability (GET /v1/providers) is the adapter's own apex record.
// A deliberately broken adapter (a CNAME at the apex, a TTL the host rounds, a hostname read as
// relative) makes each property report a harm, so the properties can fail.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { HOSTED, makeHosted, ProviderError, type DnsProvider, type RRset } from '../../src/adapters/dns-providers/index.ts'
import { applyChanges, planApply, planRevert } from '../../src/domain/record-plan.ts'
import { PROVIDERS } from '../../src/domain/providers.ts'
import { parseDomain } from '../../src/domain/hostnames.ts'
import { isApexPointer, planRecords, type DnsRecord } from '../../src/domain/records.ts'
import type { Fake } from '../harness/provider-fakes/common.ts'
import { FAKE_CASES, type FakeCase } from '../harness/provider-fakes/index.ts'
import { canonicalZone } from '../property/arbitraries.ts'
import { heldBy } from '../harness/host-holds.ts'

const TARGET = { cname_target: 'edge.portico.test', apex_ipv4: ['203.0.113.10'] }
const OLD_APEX = '198.51.100.1'

const fakes = new Map<string, Fake<any>>()
beforeAll(() => FAKE_CASES.forEach((c) => fakes.set(c.id, c.start())))
afterAll(() => fakes.forEach((f) => f.stop()))

let n = 0
function setup(c: FakeCase) {
  const f = fakes.get(c.id)!
  const zoneName = `apex${++n}-${c.id}.example`
  f.addZone(zoneName)
  c.seedZone?.(zoneName, f)
  return { f, zoneName, provider: makeHosted(c.id, f.credential, { [c.id]: c.base(f) })! }
}

const apexSet = (zone: RRset[], name: string, type: string) => zone.find((s) => s.name === name && s.type === type)
const sortedValues = (s: RRset | undefined) => (s ? [...s.values].sort() : [])
/** The zone as Portico manages it: SOA and the apex NS (the host's own) left out. */
const managed = (z: RRset[]) => canonicalZone(z.filter((s) => s.type !== 'SOA' && !(s.type === 'NS' && s.name === z.find((x) => x.type === 'SOA')?.name)))

/** A connection's records, as POST /connections plans them with the catalogue's apex capability. */
function connectionRecords(providerId: string, domain: string): DnsRecord[] {
  const capability = PROVIDERS.find((p) => p.id === providerId)?.capabilities.apex ?? null
  // TTL 600: a value some hosts round (Linode, ClouDNS) or raise (a floor), so the re-apply sees their convention.
  return planRecords(parseDomain(domain)!, TARGET, capability, false, 'tok').map((r) => ({ ...r, ttl: 600 }))
}

/** Requests the stand-in received during `run`. */
async function requestsDuring(f: Fake<any>, run: () => Promise<unknown>): Promise<number> {
  const before = f.requests.length
  await run()
  return f.requests.length - before
}

const failed = (what: string, e: unknown) => `${what} failed: ${e instanceof ProviderError ? `${e.kind}: ${e.message}` : String(e)}`

/**
 * The harms seen connecting `host` of `zoneName` (`@`, the apex, or `shop`) through `provider`, then
 * re-applying and reverting; empty when every property holds. The zone holds the customer's apex
 * address, mail, an SPF policy and a verification at the apex, and a CNAME at shop to their old host.
 */
async function connectionHarms(f: Fake<any>, provider: DnsProvider, zoneName: string, host: '@' | 'shop'): Promise<string[]> {
  const harms: string[] = []
  const zone = (await provider.listZones()).find((z) => z.name === zoneName)
  if (!zone) return [`${zoneName} not listed`]
  const ttl = Math.max(3600, provider.minTtl ?? 0)
  const shop = `shop.${zoneName}`
  try {
    await provider.writeChanges(zone, heldBy(provider.id, [
      { name: zoneName, type: 'A', ttl, values: [OLD_APEX] },
      { name: zoneName, type: 'MX', ttl, values: [`10 mx1.${zoneName}`, `20 mx2.${zoneName}`] },
      { name: zoneName, type: 'TXT', ttl, values: ['v=spf1 include:_spf.mail.example ~all', 'site-verification=abc123'] },
      { name: shop, type: 'CNAME', ttl, values: ['old-host.example.net'] },
    ]))
  } catch (e) {
    return [failed('writing the customer\'s records', e)]
  }
  const before = await provider.readRecords(zone)
  const desired = connectionRecords(provider.id, host === '@' ? zoneName : shop)
  let plan
  try {
    plan = planApply(before, desired, zoneName, [], provider)
    await provider.writeChanges(zone, plan.changes)
  } catch (e) {
    return [failed(`the ${host} apply`, e)]
  }
  const after = await provider.readRecords(zone)
  const apexType = provider.conventions.apex
  if (host === '@') {
    const pointed = apexType && desired.some((r) => isApexPointer(r))
    if (apexType !== 'CNAME' && apexSet(after, zoneName, 'CNAME')) harms.push(`a CNAME stands at the zone apex beside ${after.filter((s) => s.name === zoneName && s.type !== 'CNAME').map((s) => s.type).join(', ')}`)
    const pointer = apexSet(after, zoneName, pointed ? apexType : 'A')
    const expected = pointed ? TARGET.cname_target : TARGET.apex_ipv4[0]
    if (!pointer || pointer.values.length !== 1 || pointer.values[0] !== expected) harms.push(`the apex does not point at ${expected}: ${JSON.stringify(after.filter((s) => s.name === zoneName))}`)
    if (pointed && apexType !== 'A' && apexSet(after, zoneName, 'A')) harms.push('the old apex address stands beside the apex record')
  } else {
    const cname = apexSet(after, shop, 'CNAME')
    if (JSON.stringify(cname?.values) !== JSON.stringify([TARGET.cname_target])) harms.push(`shop does not point at ${TARGET.cname_target}: ${JSON.stringify(cname ?? null)}`)
  }
  for (const type of ['MX', 'TXT', 'NS', 'SOA']) {
    const was = apexSet(before, zoneName, type)
    if (was && JSON.stringify(sortedValues(apexSet(after, zoneName, type))) !== JSON.stringify(sortedValues(was))) harms.push(`the apex ${type} changed: ${JSON.stringify(was.values)} → ${JSON.stringify(apexSet(after, zoneName, type)?.values ?? null)}`)
  }
  if (JSON.stringify(managed(after)) !== JSON.stringify(managed(applyChanges(before, plan.changes)))) harms.push('the zone read back is not the zone planned')
  // A re-apply with nothing changed: the same requests as a bare read, no write.
  const read = await requestsDuring(f, () => provider.readRecords(zone))
  let replan: ReturnType<typeof planApply> | undefined
  const reapply = await requestsDuring(f, async () => {
    replan = planApply(await provider.readRecords(zone), desired, zoneName, plan.entries, provider)
    await provider.writeChanges(zone, replan.changes)
  })
  if (replan!.changes.length > 0 || reapply !== read) harms.push(`a re-apply with nothing changed planned ${JSON.stringify(replan!.changes)} and sent ${reapply - read} request(s) beyond a read`)
  // Revert: the zone as it was, the record Portico replaced back.
  try {
    await provider.writeChanges(zone, planRevert(await provider.readRecords(zone), plan.entries).changes)
  } catch (e) {
    return [...harms, failed('the revert', e)]
  }
  const reverted = await provider.readRecords(zone)
  if (JSON.stringify(managed(reverted)) !== JSON.stringify(managed(before))) harms.push(`after the revert the zone is ${JSON.stringify(managed(reverted))}, not ${JSON.stringify(managed(before))}`)
  return harms
}

/** An adapter seen through a lens: its fields overridden, its reads transformed (a deliberately broken adapter). */
function broken(p: DnsProvider, fields: Partial<Record<keyof DnsProvider, unknown>>, read?: (sets: RRset[]) => RRset[]): DnsProvider {
  return new Proxy(p, {
    get(target, key) {
      if (key in fields) return fields[key as keyof DnsProvider]
      if (key === 'readRecords' && read) return async (...a: Parameters<DnsProvider['readRecords']>) => read(await target.readRecords(...a))
      const v = Reflect.get(target, key)
      return typeof v === 'function' ? v.bind(target) : v
    },
  })
}

describe('every adapter: a connection (the apex, on a zone with SOA, NS, MX and TXT there; a subdomain over an old CNAME) applies and reverts cleanly, and a re-apply writes nothing', () => {
  for (const c of FAKE_CASES) {
    test(`${c.id}: the apex (its apex record: ${makeHosted(c.id, 'x', {})!.conventions.apex ?? 'none, A records'})`, async () => {
      const { f, zoneName, provider } = setup(c)
      expect(await connectionHarms(f, provider, zoneName, '@')).toEqual([])
    })
    test(`${c.id}: a subdomain over the customer's old CNAME`, async () => {
      const { f, zoneName, provider } = setup(c)
      expect(await connectionHarms(f, provider, zoneName, 'shop')).toEqual([])
    })
  }
})

describe('the catalogue and the adapters agree on the apex', () => {
  test('GET /v1/providers says alias, aname or flattening exactly where the adapter writes ALIAS, ANAME or a flattened CNAME', () => {
    const word: Record<string, string> = { ALIAS: 'alias', ANAME: 'aname', CNAME: 'flattening' }
    for (const id of Object.keys(HOSTED)) {
      const adapter = makeHosted(id, 'x', {})!.conventions.apex
      const catalogue: string | null = PROVIDERS.find((p) => p.id === id)!.capabilities.apex
      expect({ id, catalogue }).toEqual({ id, catalogue: adapter ? (word[adapter] ?? adapter) : null })
    }
  })

  test('every adapter declares each convention with where it comes from', () => {
    for (const id of Object.keys(HOSTED)) {
      const c = makeHosted(id, 'x', {})!.conventions
      for (const k of ['names', 'hostnames', 'txt', 'ttl', 'temporary'] as const) expect({ id, k, said: c[k].length > 0 }).toEqual({ id, k, said: true })
      for (const k of ['apex', 'names', 'hostnames', 'txt', 'ttl', 'temporary'] as const) expect({ id, k, source: c.sources[k].length > 8 }).toEqual({ id, k, source: true })
    }
  })
})

describe('tests of the tests: a deliberately broken adapter makes each property fail', () => {
  const caseOf = (id: string) => FAKE_CASES.find((c) => c.id === id)!

  test('a CNAME written at the apex (the old planning, at a host with ALIAS) is a harm', async () => {
    for (const id of ['gandi', 'dnsimple', 'vercel', 'namecom']) {
      const { f, zoneName, provider } = setup(caseOf(id))
      const harms = await connectionHarms(f, broken(provider, { conventions: { ...provider.conventions, apex: 'CNAME' } }), zoneName, '@')
      expect({ id, harmed: harms.length > 0 }).toEqual({ id, harmed: true })
    }
  })

  test('a TTL written as asked where the host rounds it (Linode without its allowed values) makes the re-apply write', async () => {
    const { f, zoneName, provider } = setup(caseOf('linode'))
    const harms = await connectionHarms(f, broken(provider, { allowedTtls: undefined }), zoneName, 'shop')
    expect(harms.some((h) => h.startsWith('a re-apply with nothing changed'))).toBe(true)
  })

  test('a hostname read back as relative (DigitalOcean as it was read before) makes the re-apply write', async () => {
    const { f, zoneName, provider } = setup(caseOf('digitalocean'))
    // The adapter before issue 46 read DigitalOcean's dot-less hostnames as relative to the zone.
    const relative = (sets: RRset[]) => sets.map((s) => (s.type === 'CNAME' ? { ...s, values: s.values.map((v) => `${v}.${zoneName}`) } : s))
    const harms = await connectionHarms(f, broken(provider, {}, relative), zoneName, 'shop')
    expect(harms.some((h) => h.startsWith('a re-apply with nothing changed'))).toBe(true)
  })

  test('a TXT value written without the quotes the host requires (Vultr) fails the apex apply', async () => {
    const { f, zoneName, provider } = setup(caseOf('vultr'))
    const bare = broken(provider, {}) as DnsProvider
    // The adapter's TXT writer replaced by one that sends the text bare, as before issue 46.
    const inner = provider as unknown as { createItem: (...a: unknown[]) => Promise<void> }
    const api = (provider as unknown as { api: { call: (m: string, p: string, b?: unknown) => Promise<unknown> } }).api
    const original = inner.createItem
    inner.createItem = async (zone: unknown, name: unknown, type: unknown, ttl: unknown, value: unknown) => {
      const z = zone as { id: string; name: string }
      if (type !== 'TXT') return original.call(provider, zone, name, type, ttl, value)
      await api.call('POST', `/domains/${z.id}/records`, { name: name === z.name ? '' : String(name).slice(0, -(z.name.length + 1)), type, data: value, ttl })
    }
    try {
      expect((await connectionHarms(f, bare, zoneName, '@')).some((h) => / failed: write_failed: Vultr .*quotes/.test(h))).toBe(true)
    } finally {
      inner.createItem = original
    }
  })
})
