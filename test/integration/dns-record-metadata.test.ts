// A record's own attributes at the host stay with it when Portico writes its set (issue 46): Cloudflare
// keeps a `comment` and `tags` on every DNS record (https://developers.cloudflare.com/dns/manage-dns-records/reference/record-attributes/),
// which a record created afresh does not have. The SPF value Portico merges terms into is rewritten as
// a new record (Cloudflare's batch: delete, then post), so it must carry its record's comment and tags;
// so must a value written again with a new TTL. The rule is the per-record write's
// (src/adapters/dns-providers/record-based.ts), for every host whose records carry attributes.
import { describe, test, expect, afterAll } from 'bun:test'
import { makeHosted, type DnsProvider } from '../../src/adapters/dns-providers/index.ts'
import { planApply, planRevert } from '../../src/domain/record-plan.ts'
import { startCloudflareFake, type CfRecord } from '../../src/adapters/dns-providers/cloudflare/stand-in.ts'
import { startRoute53Fake, type R53Set } from '../../src/adapters/dns-providers/route53/stand-in.ts'
import { startDesecFake, type DesecRRset } from '../../src/adapters/dns-providers/desec/stand-in.ts'
import type { Fake } from '../harness/provider-fakes/common.ts'
import { fakeCase as azure, type AzRRset } from '../../src/adapters/dns-providers/azure/stand-in.ts'
import { fakeCase as google, type GRRset } from '../../src/adapters/dns-providers/google-cloud-dns/stand-in.ts'
import { fakeCase as hetzner, type HzRRset } from '../../src/adapters/dns-providers/hetzner/stand-in.ts'

const cf = startCloudflareFake()
afterAll(() => cf.stop())
const provider = makeHosted('cloudflare', cf.credential, { cloudflare: cf.url + '/client/v4' }) as DnsProvider

let n = 0
function seed(records: Partial<CfRecord>[]) {
  const name = `meta${++n}.example`
  const z = cf.addZone(name)
  for (const r of records) z.records.push({ id: `rec${n}${z.records.length}`.padEnd(32, '0'), zone_id: z.id, zone_name: name, ttl: 3600, proxied: false, ...r } as CfRecord)
  return { name, z }
}

describe('cloudflare: a record keeps its comment and tags', () => {
  test('the SPF value Portico merges into keeps its comment and tags; disconnect restores the value with them', async () => {
    const { name, z } = seed([{ type: 'TXT', name: '', content: '"v=spf1 include:_spf.google.com ~all"', comment: 'mail: Google Workspace', tags: ['team:mail'] }])
    z.records[0]!.name = name
    const zone = (await provider.listZones()).find((x) => x.name === name)!
    const current = await provider.readRecords(zone)
    const plan = planApply(current, [{ type: 'SPFM', host: '@', value: 'include:_spf.portico.test' }], name, [], provider)
    await provider.writeChanges(zone, plan.changes)
    expect(z.records).toEqual([expect.objectContaining({ type: 'TXT', content: '"v=spf1 include:_spf.google.com include:_spf.portico.test ~all"', comment: 'mail: Google Workspace', tags: ['team:mail'] })])
    const revert = planRevert(await provider.readRecords(zone), plan.entries)
    await provider.writeChanges(zone, revert.changes)
    expect(z.records).toEqual([expect.objectContaining({ type: 'TXT', content: '"v=spf1 include:_spf.google.com ~all"', comment: 'mail: Google Workspace', tags: ['team:mail'] })])
  })

  test('a value written again with another TTL keeps its comment, tags and proxy status', async () => {
    const { name, z } = seed([{ type: 'A', name: '', content: '198.51.100.7', proxied: true, comment: 'origin', tags: ['env:prod'] }])
    z.records[0]!.name = name
    const zone = (await provider.listZones()).find((x) => x.name === name)!
    await provider.writeChanges(zone, [{ name, type: 'A', ttl: 300, values: ['198.51.100.7'] }])
    expect(z.records).toEqual([expect.objectContaining({ type: 'A', content: '198.51.100.7', ttl: 300, proxied: true, comment: 'origin', tags: ['env:prod'] })])
  })

  test('a test of the test: a value that replaces another is a new record, without the old one\'s comment', async () => {
    const { name, z } = seed([{ type: 'A', name: '', content: '198.51.100.7', comment: 'old server' }])
    z.records[0]!.name = name
    const zone = (await provider.listZones()).find((x) => x.name === name)!
    await provider.writeChanges(zone, [{ name, type: 'A', ttl: 3600, values: ['203.0.113.10'] }])
    expect(z.records).toEqual([expect.objectContaining({ type: 'A', content: '203.0.113.10' })])
    expect(z.records[0]!.comment).toBeUndefined()
  })
})

// A TXT value held as several strings (people and tools split long SPF values where they like:
// `"v=spf1 include:_spf.google.com " "include:mailgun.org -all"`; RFC 7208 §3.3 joins them without a
// space) is one value to Portico, and goes back to the host as the same strings: restored byte-identical,
// kept as it was when Portico adds a value beside it, and named exactly in a Route 53 DELETE
// (https://docs.aws.amazon.com/Route53/latest/APIReference/API_ChangeResourceRecordSets.html: a DELETE
// must match the set). deSEC keeps the strings as sent (https://desec.readthedocs.io/en/latest/dns/rrsets.html).

const SPLIT_SPF = '"v=spf1 include:_spf.google.com " "include:mailgun.org -all"'
const SPLIT_DKIM = '"v=DKIM1; k=rsa; p=MIIBIjANBgkqh" "kiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA"'
const desired = [
  { type: 'SPFM' as const, host: '@', value: 'include:_spf.portico.test' },
  { type: 'TXT' as const, host: '@', value: 'portico-verify=1' },
]

const hosts: { id: string; start: () => Fake<any>; base: (f: Fake<any>) => string; seed: (f: Fake<any>, zone: string) => void; txt: (f: Fake<any>, zone: string) => string[] }[] = [
  {
    id: 'route53',
    start: () => startRoute53Fake(),
    base: (f) => f.url,
    seed: (f, zone) => f.addZone(zone).records.push({ name: `${zone}.`, type: 'TXT', ttl: 300, values: [SPLIT_SPF, SPLIT_DKIM] } as R53Set),
    txt: (f, zone) => (f.zones.find((z) => z.name === zone)!.records as R53Set[]).filter((s) => s.type === 'TXT').flatMap((s) => s.values).sort(),
  },
  {
    id: 'desec',
    start: () => startDesecFake(),
    base: (f) => f.url + '/api/v1',
    seed: (f, zone) => f.addZone(zone).records.push({ subname: '', type: 'TXT', ttl: 3600, records: [SPLIT_SPF, SPLIT_DKIM] } as DesecRRset),
    txt: (f, zone) => (f.zones.find((z) => z.name === zone)!.records as DesecRRset[]).filter((s) => s.type === 'TXT').flatMap((s) => s.records).sort(),
  },
  {
    // Azure carries a TXT value as its strings (`TXTRecords[].value: string[]`,
    // https://learn.microsoft.com/rest/api/dns/record-sets/create-or-update#txtrecord).
    id: 'azure',
    start: () => azure.start(),
    base: (f) => azure.base(f),
    seed: (f, zone) => f.addZone(zone).records.push({ name: '@', type: 'TXT', properties: { TTL: 3600, TXTRecords: [{ value: ['v=spf1 include:_spf.google.com ', 'include:mailgun.org -all'] }, { value: ['v=DKIM1; k=rsa; p=MIIBIjANBgkqh', 'kiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA'] }] } } as AzRRset),
    txt: (f, zone) =>
      (f.zones.find((z) => z.name === zone)!.records as AzRRset[]).filter((s) => s.type === 'TXT').flatMap((s) => (s.properties.TXTRecords as { value: string[] }[]).map((r) => r.value.map((x) => `"${x}"`).join(' '))).sort(),
  },
  {
    // Google keeps rrdatas as zone-file text; a change's deletion must match the set exactly
    // (https://cloud.google.com/dns/docs/reference/rest/v1/changes/create).
    id: 'google-cloud-dns',
    start: () => google.start(),
    base: (f) => google.base(f),
    seed: (f, zone) => f.addZone(zone).records.push({ kind: 'dns#resourceRecordSet', name: `${zone}.`, type: 'TXT', ttl: 300, rrdatas: [SPLIT_SPF, SPLIT_DKIM] } as GRRset),
    txt: (f, zone) => (f.zones.find((z) => z.name === zone)!.records as GRRset[]).filter((s) => s.type === 'TXT').flatMap((s) => s.rrdatas ?? []).sort(),
  },
  {
    // Hetzner's records carry zone-file text values (https://docs.hetzner.cloud/reference/cloud#zone-rrsets).
    id: 'hetzner',
    start: () => hetzner.start(),
    base: (f) => hetzner.base(f),
    seed: (f, zone) => f.addZone(zone).records.push({ id: '@/TXT', name: '@', type: 'TXT', ttl: 3600, records: [{ value: SPLIT_SPF }, { value: SPLIT_DKIM }] } as HzRRset),
    txt: (f, zone) => (f.zones.find((z) => z.name === zone)!.records as HzRRset[]).filter((s) => s.type === 'TXT').flatMap((s) => s.records.map((r) => r.value)).sort(),
  },
  {
    id: 'cloudflare',
    start: () => startCloudflareFake(),
    base: (f) => f.url + '/client/v4',
    seed: (f, zone) => {
      const z = f.addZone(zone)
      for (const content of [SPLIT_SPF, SPLIT_DKIM]) z.records.push({ id: `txt${z.records.length}`.padEnd(32, '0'), zone_id: z.id, zone_name: zone, type: 'TXT', name: zone, content, ttl: 3600, proxied: false })
    },
    txt: (f, zone) => (f.zones.find((z) => z.name === zone)!.records as CfRecord[]).filter((r) => r.type === 'TXT').map((r) => r.content).sort(),
  },
]

for (const h of hosts) {
  describe(`${h.id}: a TXT value held as several strings`, () => {
    test('is kept as it was beside Portico\'s values, and restored byte-identical', async () => {
      const f = h.start()
      try {
        const zone = `split${++n}-${h.id}.example`
        h.seed(f, zone)
        const before = h.txt(f, zone)
        const p = makeHosted(h.id, f.credential, { [h.id]: h.base(f) }) as DnsProvider
        const z = (await p.listZones()).find((x) => x.name === zone)!
        const current = await p.readRecords(z)
        expect(current.find((s) => s.type === 'TXT')!.values.sort()).toEqual(['v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA', 'v=spf1 include:_spf.google.com include:mailgun.org -all'])
        const plan = planApply(current, desired, zone, [], p)
        await p.writeChanges(z, plan.changes)
        const applied = h.txt(f, zone)
        expect(applied).toContain(SPLIT_DKIM) // untouched: the same strings
        expect(applied.some((v) => v.includes('include:_spf.portico.test'))).toBe(true)
        await p.writeChanges(z, planRevert(await p.readRecords(z), plan.entries).changes)
        expect(h.txt(f, zone)).toEqual(before)
      } finally {
        f.stop()
      }
    })
  })
}
