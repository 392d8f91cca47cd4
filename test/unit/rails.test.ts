// Unit checks of the rails' building blocks: SigV4 against AWS's published example, SPF merging,
// TXT quoting, and the planner's record-set rules.
import { describe, test, expect } from 'bun:test'
import { signV4 } from '../../src/adapters/dns-providers/sigv4.ts'
import { chooseZone, quoteTxt, unquoteTxt, zoneFor, type RRset } from '../../src/adapters/dns-providers/types.ts'
import { applyChanges, mergeSpf, planApply, planRevert, replacedRecords, storedTtl, unmergeSpf } from '../../src/domain/record-plan.ts'
import type { DnsRecord } from '../../src/domain/records.ts'

describe('SigV4', () => {
  test('matches the example in the AWS documentation (IAM ListUsers, 2015-08-30)', () => {
    const signed = signV4({
      method: 'GET',
      url: new URL('https://iam.amazonaws.com/?Action=ListUsers&Version=2010-05-08'),
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
      body: '',
      accessKeyId: 'AKIDEXAMPLE',
      secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
      region: 'us-east-1',
      service: 'iam',
      now: new Date('2015-08-30T12:36:00Z'),
    })
    expect(signed['x-amz-date']).toBe('20150830T123600Z')
    expect(signed.authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/iam/aws4_request, SignedHeaders=content-type;host;x-amz-date, Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7',
    )
  })
})

describe('SPF merge', () => {
  test('adds terms before the all term, once, and takes them out again', () => {
    const m = mergeSpf('v=spf1 include:_spf.google.com ~all', ['include:_spf.portico.test', 'include:_spf.google.com'])
    expect(m).toEqual({ value: 'v=spf1 include:_spf.google.com include:_spf.portico.test ~all', added: ['include:_spf.portico.test'] })
    expect(unmergeSpf(m.value, m.added)).toBe('v=spf1 include:_spf.google.com ~all')
    expect(mergeSpf('v=spf1 mx redirect=_spf.example.net', ['ip4:192.0.2.1']).value).toBe('v=spf1 mx ip4:192.0.2.1 redirect=_spf.example.net')
    expect(mergeSpf(null, ['include:a.example']).value).toBe('v=spf1 include:a.example ~all')
  })
})

describe('TXT quoting', () => {
  test('long values split into 255-byte strings and join back; quotes and backslashes escaped', () => {
    const long = 'x'.repeat(300)
    expect(quoteTxt(long)).toBe(`"${'x'.repeat(255)}" "${'x'.repeat(45)}"`)
    expect(unquoteTxt(quoteTxt(long))).toBe(long)
    expect(unquoteTxt(quoteTxt('say "hi" \\ bye'))).toBe('say "hi" \\ bye')
    expect(unquoteTxt('"a\\065b"')).toBe('aAb')
    // 255 bytes, not characters: 128 two-byte characters are 256 bytes, so two strings, split between characters.
    const wide = 'é'.repeat(128)
    expect(quoteTxt(wide)).toBe(`"${'é'.repeat(127)}" "é"`)
    expect(unquoteTxt(quoteTxt(wide))).toBe(wide)
    // \DDD are bytes: the UTF-8 bytes of é (195 169) decode to é, not to two latin1 characters.
    expect(unquoteTxt('"caf\\195\\169"')).toBe('café')
    expect(unquoteTxt('"\\240\\159" "\\152\\128"')).toBe('😀')
  })
})

describe('planner: a host\'s apex record, TTL values, and what a disconnect could not put back', () => {
  const zone = [
    { name: 'ex.test', type: 'SOA', ttl: 3600, values: ['ns. host. 1 2 3 4 5'] },
    { name: 'ex.test', type: 'NS', ttl: 3600, values: ['ns1.host.example', 'ns2.host.example'] },
    { name: 'ex.test', type: 'A', ttl: 3600, values: ['198.51.100.1'] },
    { name: 'ex.test', type: 'MX', ttl: 3600, values: ['10 mx.ex.test'] },
  ]
  const apexCname: DnsRecord[] = [{ type: 'CNAME', host: '@', value: 'edge.example.net', purpose: 'routing_alias' }]

  test('at the apex the host\'s own record is written (ALIAS here), the address set goes, MX, NS and SOA stay', () => {
    const plan = planApply(zone, apexCname, 'ex.test', [], { conventions: { apex: 'ALIAS' } })
    expect(plan.changes).toEqual([
      { name: 'ex.test', type: 'A', ttl: 3600, values: [] },
      { name: 'ex.test', type: 'ALIAS', ttl: 300, values: ['edge.example.net'] },
    ])
    expect(applyChanges(zone, plan.changes).some((s) => s.type === 'CNAME')).toBe(false)
  })

  test('a host without an apex record refuses a hostname at the apex before anything is written', () => {
    expect(() => planApply(zone, apexCname, 'ex.test', [], { conventions: { apex: null } })).toThrow(/no record that points an apex at a hostname/)
  })

  test('a TTL is raised to the floor and rounded up to a value the host keeps', () => {
    const linode = { allowedTtls: [300, 3600, 7200] }
    expect([30, 300, 301, 600, 3600, 9000].map((t) => storedTtl(t, linode))).toEqual([300, 300, 3600, 3600, 3600, 7200])
    expect(storedTtl(60, { minTtl: 600 })).toBe(600)
    const plan = planApply([], [{ type: 'CNAME', host: 'shop', value: 'edge.example.net', ttl: 600 }], 'ex.test', [], linode)
    expect(plan.changes[0]!.ttl).toBe(3600)
  })

  test('a set changed or removed at the provider since is left in place and named with the values it had before', () => {
    const old = [...zone, { name: 'www.ex.test', type: 'CNAME', ttl: 1800, values: ['old-host.example.net'] }]
    const plan = planApply(old, [{ type: 'CNAME', host: 'www', value: 'edge.example.net' }], 'ex.test')
    const removedSince = applyChanges(old, [...plan.changes, { name: 'www.ex.test', type: 'CNAME', ttl: 300, values: [] }])
    expect(planRevert(removedSince, plan.entries).left_in_place).toEqual([{ type: 'CNAME', name: 'www.ex.test', value: '', note: expect.stringContaining('removed at the provider'), prior_values: ['old-host.example.net'] }])
    const changedSince = applyChanges(old, [...plan.changes, { name: 'www.ex.test', type: 'CNAME', ttl: 300, values: ['someone-else.example.org'] }])
    expect(planRevert(changedSince, plan.entries).left_in_place).toEqual([{ type: 'CNAME', name: 'www.ex.test', value: 'someone-else.example.org', note: expect.stringContaining('changed at the provider'), prior_values: ['old-host.example.net'] }])
  })
})

describe('planner', () => {
  const zone = [
    { name: 'ex.test', type: 'SOA', ttl: 3600, values: ['ns. host. 1 2 3 4 5'] },
    { name: 'shop.ex.test', type: 'TXT', ttl: 300, values: ['keep'] },
    { name: 'ex.test', type: 'CAA', ttl: 300, values: ['0 issue "letsencrypt.org"'] },
  ]
  test('a CNAME replaces what stands at its name, recording each removed set with its prior', () => {
    const plan = planApply(zone, [{ type: 'CNAME', host: 'shop', value: 'edge.example.net' }], 'ex.test')
    expect(plan.changes).toEqual([
      { name: 'shop.ex.test', type: 'TXT', ttl: 300, values: [] },
      { name: 'shop.ex.test', type: 'CNAME', ttl: 300, values: ['edge.example.net'] },
    ])
    expect(plan.entries).toEqual([
      { name: 'shop.ex.test', type: 'CNAME', change: 'created', prior: null, written: { ttl: 300, values: ['edge.example.net'] } },
      { name: 'shop.ex.test', type: 'TXT', change: 'removed', prior: { ttl: 300, values: ['keep'] }, written: { ttl: 300, values: [] } },
    ])
  })
  test("desired TTLs below the provider's minimum are raised to it, so a re-apply changes nothing", () => {
    const desired: DnsRecord[] = [{ type: 'A', host: 'shop', value: '203.0.113.10', ttl: 300 }, { type: 'TXT', host: '_v', value: 'tok' }]
    const plan = planApply(zone, desired, 'ex.test', [], { minTtl: 3600 })
    expect(plan.changes).toEqual([
      { name: 'shop.ex.test', type: 'A', ttl: 3600, values: ['203.0.113.10'] },
      { name: '_v.ex.test', type: 'TXT', ttl: 3600, values: ['tok'] },
    ])
    const stored = [...zone, ...plan.changes]
    expect(planApply(stored, desired, 'ex.test', plan.entries, { minTtl: 3600 }).changes).toEqual([])
    // Without the floor the same zone would be rewritten at TTL 300 on every apply.
    expect(planApply(stored, desired, 'ex.test', plan.entries).changes.map((c) => c.ttl)).toContain(300)
  })
  test('a zone with one TTL (Dynadot): every set is planned with the zone\'s TTL, raised to the floor', () => {
    const one = [
      { name: 'ex.test', type: 'SOA', ttl: 3600, values: ['ns1.ex.test. hostmaster.ex.test. 1 7200 900 1209600 300'] },
      { name: 'ex.test', type: 'TXT', ttl: 1800, values: ['keep'] },
      { name: 'ex.test', type: 'MX', ttl: 1800, values: ['10 mx.ex.test'] },
    ]
    const desired: DnsRecord[] = [{ type: 'A', host: 'shop', value: '203.0.113.10', ttl: 300 }, { type: 'TXT', host: '@', value: 'tok', ttl: 60 }]
    const plan = planApply(one, desired, 'ex.test', [], { uniformTtl: true })
    expect(plan.changes).toEqual([
      { name: 'ex.test', type: 'TXT', ttl: 1800, values: ['keep', 'tok'] },
      { name: 'shop.ex.test', type: 'A', ttl: 1800, values: ['203.0.113.10'] },
    ])
    expect(planApply([...one.filter((s) => s.type !== 'TXT'), ...plan.changes], desired, 'ex.test', plan.entries, { uniformTtl: true }).changes).toEqual([])
    // An empty zone takes the default TTL, or the floor when that is higher.
    expect(planApply([], desired, 'ex.test', [], { uniformTtl: true, minTtl: 3600 }).changes.map((c) => c.ttl)).toEqual([3600, 3600])
    // Without the rule the desired TTLs would be written, and the zone's other records would change with them.
    expect(planApply(one, desired, 'ex.test').changes.find((c) => c.type === 'A')?.ttl).toBe(300)
  })
  test('CAA is merged, never replaced; SOA is never touched', () => {
    const plan = planApply(zone, [{ type: 'CAA', host: '@', value: '0 issue "pki.goog"' }], 'ex.test')
    expect(plan.changes).toEqual([{ name: 'ex.test', type: 'CAA', ttl: 300, values: ['0 issue "letsencrypt.org"', '0 issue "pki.goog"'] }])
  })
  test('the zone of a domain is at or below it; the longest wins', () => {
    const zones = [{ id: '1', name: 'test' }, { id: '2', name: 'ex.test' }, { id: '3', name: 'a.ex.test' }]
    expect(zoneFor(zones, 'b.a.ex.test')?.id).toBe('3')
    expect(zoneFor(zones, 'www.ex.test')?.id).toBe('2')
  })
  test('a re-apply over a value set since makes it the prior; over Portico\'s own value with another TTL it keeps the first prior', () => {
    const before: RRset[] = [{ name: 'shop.ex.test', type: 'CNAME', ttl: 600, values: ['old.host.example'] }]
    const desired: DnsRecord[] = [{ type: 'CNAME', host: 'shop', value: 'edge.portico.test', ttl: 300 }]
    const first = planApply(before, desired, 'ex.test')
    const theirs: RRset[] = [{ name: 'shop.ex.test', type: 'CNAME', ttl: 600, values: ['new.host.example'] }]
    const over = planApply(theirs, desired, 'ex.test', first.entries)
    expect(over.entries[0]!.prior).toEqual({ ttl: 600, values: ['new.host.example'] })
    expect(replacedRecords(theirs, over, first.entries)).toEqual([{ name: 'shop.ex.test', type: 'CNAME', values: ['new.host.example'] }])
    const retimed: RRset[] = [{ name: 'shop.ex.test', type: 'CNAME', ttl: 3600, values: ['edge.portico.test'] }]
    expect(planApply(retimed, desired, 'ex.test', first.entries).entries[0]!.prior).toEqual({ ttl: 600, values: ['old.host.example'] })
  })
  test('a merged set (SPF, TXT, CAA) the customer edited since, then re-applied: the disconnect takes only Portico\'s values out and keeps the edit', () => {
    const apex = 'ex.test'
    const before: RRset[] = [
      { name: apex, type: 'TXT', ttl: 1800, values: ['v=spf1 mx -all', 'google-site-verification=abc'] },
      { name: apex, type: 'CAA', ttl: 1800, values: ['0 issue "letsencrypt.org"'] },
    ]
    const desired: DnsRecord[] = [
      { type: 'SPFM', host: '@', value: 'include:spf.portico.example' },
      { type: 'TXT', host: '@', value: 'portico-verify=1' },
      { type: 'CAA', host: '@', value: '0 issue "pki.goog"' },
    ]
    const first = planApply(before, desired, apex)
    const written = applyChanges(before, first.changes)
    // The customer adds an SPF include, a TXT value and a CAA value of their own.
    const edited = written.map((s) =>
      s.type === 'TXT'
        ? { ...s, values: [...s.values.map((v) => v.replace(' -all', ' include:new.example -all')), 'other-verification=xyz'] }
        : s.type === 'CAA' ? { ...s, values: [...s.values, '0 issue "sectigo.com"'] } : s,
    )
    const want = (z: RRset[]) => z.filter((s) => s.type !== 'SOA').map((s) => ({ type: s.type, values: [...s.values].sort() })).sort((a, b) => a.type.localeCompare(b.type))
    const kept = [
      { type: 'CAA', values: ['0 issue "letsencrypt.org"', '0 issue "sectigo.com"'] },
      { type: 'TXT', values: ['google-site-verification=abc', 'other-verification=xyz', 'v=spf1 mx include:new.example -all'] },
    ]
    // Disconnected straight away, and after a re-apply (which finds nothing to write).
    expect(want(applyChanges(edited, planRevert(edited, first.entries).changes))).toEqual(kept)
    const again = planApply(edited, desired, apex, first.entries)
    expect(again.changes).toEqual([])
    expect(want(applyChanges(edited, planRevert(edited, again.entries).changes))).toEqual(kept)
  })
  test('two copies of a zone whose host does not say their name servers cannot be told apart: zone_ambiguous, never the first listed', async () => {
    const copies = [{ id: 'acct1/ex.test', name: 'ex.test' }, { id: 'acct2/ex.test', name: 'ex.test' }]
    const delegated = async () => ['ns1.dnsimple.com', 'ns2.dnsimple-edge.net']
    await expect(chooseZone({}, copies, 'www.ex.test', delegated)).rejects.toMatchObject({ kind: 'zone_ambiguous', zoneIds: ['acct1/ex.test', 'acct2/ex.test'] })
    // Told by their name servers, the delegated one is taken; a lone copy needs no lookup at all.
    const told = [{ ...copies[0]!, nameServers: ['ns1.other.example'] }, { ...copies[1]!, nameServers: ['ns2.dnsimple-edge.net.', 'NS1.dnsimple.com'] }]
    expect((await chooseZone({}, told, 'www.ex.test', delegated))?.id).toBe('acct2/ex.test')
    expect((await chooseZone({}, [copies[0]!], 'www.ex.test', async () => { throw new Error('not asked') }))?.id).toBe('acct1/ex.test')
    expect(await chooseZone({}, copies, 'www.other.test', delegated)).toBeNull()
  })
})
