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
