// Pure Connect rules: domain parsing, record planning and validation, verification outcomes and the
// lifecycle's timing (24 hours to failure, late-DNS schedule), with time as a parameter.
import { describe, test, expect } from 'bun:test'
import { isPublicIPv4, parseDomain } from '../../src/domain/hostnames.ts'
import { canonicalRecords, planRecords, recordSetProblems, type DnsRecord } from '../../src/domain/records.ts'
import { afterVerification, type LifecycleState } from '../../src/domain/lifecycle.ts'
import { verifyMany, verifyRecords } from '../../src/domain/verify.ts'
import type { Dns, Lookup, LookupType } from '../../src/adapters/dns.ts'
import { DAY, HOUR } from '../../src/clock.ts'

const target = { cname_target: 'edge.portico.test', apex_ipv4: ['203.0.114.10'] }

describe('domain parsing', () => {
  test('apex, subdomain and hosting platforms', () => {
    expect(parseDomain('Shop.Example.co.uk.')).toMatchObject({ domain: 'shop.example.co.uk', apex: 'example.co.uk', subdomain: 'shop', isApex: false, platform: false })
    expect(parseDomain('myapp.vercel.app')?.platform).toBe(true)
    expect(parseDomain('user.github.io')?.platform).toBe(true)
    expect(parseDomain('https://www.example.com/path')?.domain).toBe('www.example.com')
    expect(parseDomain('com')).toBeNull()
    expect(parseDomain('not a domain')).toBeNull()
  })

  test('public IPv4 addresses only', () => {
    for (const ip of ['10.0.0.1', '127.0.0.1', '169.254.169.254', '100.64.0.1', '192.168.1.1', '172.16.5.5', '0.0.0.0', '224.0.0.1', '192.0.2.1', '01.2.3.4']) {
      expect({ ip, ok: isPublicIPv4(ip) }).toEqual({ ip, ok: false })
    }
    expect(isPublicIPv4('93.184.216.34')).toBe(true)
  })
})

describe('record planning', () => {
  test('a subdomain is one CNAME to the target', () => {
    expect(planRecords(parseDomain('shop.example.com')!, target, null, false, 't')).toEqual([
      { type: 'CNAME', host: 'shop', value: 'edge.portico.test', ttl: 300, purpose: 'routing' },
    ])
  })

  test('an apex uses ALIAS-style records when the provider has them, else A records with an ownership TXT', () => {
    const apex = parseDomain('example.com')!
    expect(planRecords(apex, target, 'flattening', false, 't').map((r) => [r.type, r.host])).toEqual([['CNAME', '@']])
    const a = planRecords(apex, target, null, true, 'tok')
    expect(a).toContainEqual({ type: 'A', host: '@', value: '203.0.114.10', ttl: 300, purpose: 'routing' })
    expect(a).toContainEqual({ type: 'TXT', host: '_portico-challenge', value: 'portico-verify=tok', ttl: 300, purpose: 'ownership' })
    expect(a).toContainEqual({ type: 'CNAME', host: 'www', value: 'edge.portico.test', ttl: 300, purpose: 'www_redirect' })
    expect(planRecords(apex, { ...target, apex_ipv4: [] }, null, false, 't')).toEqual([])
  })

  test('integrator-authored sets are checked', () => {
    const parsed = parseDomain('shop.example.com')!
    const ok: DnsRecord[] = [
      { type: 'CNAME', host: 'shop', value: 'x.example.net' },
      { type: 'TXT', host: '_verify.shop', value: 'abc' },
      { type: 'SPFM', host: 'shop', value: 'include:_spf.mail.example' },
    ]
    expect(recordSetProblems(ok, parsed)).toEqual([{ field: 'records', message: 'shop.example.com: a CNAME cannot stand beside other records' }])
    expect(recordSetProblems(ok.slice(0, 2), parsed)).toEqual([])
    const bad = recordSetProblems(
      [
        { type: 'A', host: 'shop', value: '999.1.1.1' },
        { type: 'MX', host: 'shop', value: 'mx.example.net' },
        { type: 'TXT', host: '@', value: 'outside' },
      ],
      parsed,
    )
    expect(bad.map((p) => p.field)).toEqual(['records.0.value', 'records.1.value', 'records.2.host'])
  })

  test('canonical form ignores order and default TTL', () => {
    const a: DnsRecord[] = [{ type: 'A', host: '@', value: '1.2.3.4' }, { type: 'TXT', host: 'x', value: 'v' }]
    const b: DnsRecord[] = [{ type: 'TXT', host: 'x', value: 'v', ttl: 300 }, { type: 'A', host: '@', value: '1.2.3.4' }]
    expect(canonicalRecords(a)).toBe(canonicalRecords(b))
    expect(canonicalRecords(a)).not.toBe(canonicalRecords([{ ...a[0]!, value: '1.2.3.5' }, a[1]!]))
  })
})

function fakeDns(table: Record<string, Lookup>): Dns {
  return { lookup: async (name: string, type: LookupType) => table[`${name} ${type}`] ?? { status: 'nxdomain' } }
}

describe('verification', () => {
  const records: DnsRecord[] = [
    { type: 'A', host: '@', value: '203.0.114.10' },
    { type: 'TXT', host: '_portico-challenge', value: 'portico-verify=tok' },
  ]
  test('all, some, none and inconclusive', async () => {
    const both = fakeDns({ 'example.com A': { status: 'ok', values: ['203.0.114.10'] }, '_portico-challenge.example.com TXT': { status: 'ok', values: ['portico-verify=tok'] } })
    expect((await verifyRecords(both, 'example.com', records)).outcome).toBe('all')
    const one = fakeDns({ 'example.com A': { status: 'ok', values: ['203.0.114.10'] } })
    const v = await verifyRecords(one, 'example.com', records)
    expect(v.outcome).toBe('some')
    expect(v.records.map((r) => r.propagated)).toEqual([true, false])
    expect((await verifyRecords(fakeDns({}), 'example.com', records)).outcome).toBe('none')
    const broken = fakeDns({ 'example.com A': { status: 'error', error: 'timeout' } })
    expect((await verifyRecords(broken, 'example.com', records)).outcome).toBe('inconclusive')
  })

  test('a batch judges each set from its own answers, whatever lookups the sets before it needed', async () => {
    const dns = fakeDns({
      'example.com A': { status: 'ok', values: ['203.0.114.10'] },
      'edge.portico.test A': { status: 'ok', values: ['203.0.114.10'] },
      'www.example.org CNAME': { status: 'ok', values: ['elsewhere.example'] },
      'example.net TXT': { status: 'ok', values: ['portico-verify=net'] },
    })
    const sets = [
      // two lookups (a flattened apex), then none (served by the edge)
      { apex: 'example.com', records: [{ type: 'CNAME', host: '@', value: 'edge.portico.test' }, { type: 'REDIR301', host: 'www', value: 'https://example.com' }] as DnsRecord[] },
      { apex: 'example.org', records: [{ type: 'CNAME', host: 'www', value: 'edge.portico.test' }] as DnsRecord[] },
      { apex: 'example.net', records: [{ type: 'TXT', host: '@', value: 'portico-verify=net' }, { type: 'A', host: '@', value: '203.0.114.10' }] as DnsRecord[] },
    ]
    const batch = await verifyMany(dns, sets)
    expect(batch.map((v) => v.outcome)).toEqual(['all', 'none', 'some'])
    expect(batch[2]!.records.map((r) => r.propagated)).toEqual([true, false])
    expect(batch).toEqual(await Promise.all(sets.map((s) => verifyRecords(dns, s.apex, s.records))))
  })

  test('a question several sets of a batch ask is asked once, and each set is judged as if it had asked', async () => {
    const table: Record<string, Lookup> = {
      'example.com A': { status: 'ok', values: ['203.0.114.10'] },
      'example.org A': { status: 'ok', values: ['198.51.100.7'] },
      'edge.portico.test A': { status: 'ok', values: ['203.0.114.10'] },
    }
    const asked: string[] = []
    const dns: Dns = { lookup: async (name, type) => (asked.push(`${name} ${type}`), table[`${name} ${type}`] ?? { status: 'nxdomain' }) }
    const apex = (domain: string) => ({ apex: domain, records: [{ type: 'CNAME', host: '@', value: 'edge.portico.test' }] as DnsRecord[] })
    // Two flattened apexes share their target's addresses; one domain checked twice (two applications).
    const sets = [apex('example.com'), apex('example.org'), apex('example.com')]
    const batch = await verifyMany(dns, sets)
    expect(asked.sort()).toEqual(['edge.portico.test A', 'example.com A', 'example.org A'])
    expect(batch.map((v) => v.outcome)).toEqual(['all', 'none', 'all'])
    expect(batch).toEqual(await Promise.all(sets.map((s) => verifyRecords(fakeDns(table), s.apex, s.records))))
  })

  test('SPF merge is satisfied by an SPF record that includes the mechanisms', async () => {
    const dns = fakeDns({ 'example.com TXT': { status: 'ok', values: ['hello', 'v=spf1 include:_spf.google.com include:mail.example ~all'] } })
    const v = await verifyRecords(dns, 'example.com', [{ type: 'SPFM', host: '@', value: 'include:mail.example' }])
    expect(v.outcome).toBe('all')
  })
})

describe('lifecycle', () => {
  const t0 = new Date('2026-01-01T00:00:00Z')
  const none = { outcome: 'none' as const, records: [] }
  const all = { outcome: 'all' as const, records: [] }
  const propagating: LifecycleState = { status: 'propagating', created_at: t0, propagating_since: t0, error_code: null, error_message: null }
  const pending: LifecycleState = { status: 'pending', created_at: t0, propagating_since: null, error_code: null, error_message: null }

  test('propagating fails after 24 hours without its records, not before', () => {
    expect(afterVerification(propagating, none, new Date(t0.getTime() + 23 * HOUR)).status).toBe('propagating')
    const failed = afterVerification(propagating, none, new Date(t0.getTime() + DAY))
    expect(failed).toMatchObject({ status: 'failed', error_code: 'propagation_timeout', event: 'connection.failed' })
    expect(afterVerification(propagating, { outcome: 'inconclusive', records: [] }, new Date(t0.getTime() + 2 * DAY)).status).toBe('propagating')
  })

  test('pending never fails; after three days it is checked every six hours as setup_incomplete', () => {
    const early = afterVerification(pending, none, new Date(t0.getTime() + 2 * HOUR))
    expect(early.status).toBe('pending')
    expect(early.next_check_at!.getTime() - (t0.getTime() + 2 * HOUR)).toBe(15 * 60_000)
    const late = afterVerification(pending, none, new Date(t0.getTime() + 30 * DAY))
    expect(late).toMatchObject({ status: 'pending', error_code: 'setup_incomplete', event: null })
    expect(late.next_check_at!.getTime() - (t0.getTime() + 30 * DAY)).toBe(6 * HOUR)
    expect(afterVerification(pending, all, new Date(t0.getTime() + 30 * DAY))).toMatchObject({ status: 'live', event: 'connection.live', error_code: null })
  })

  test('checks come every few seconds while a person is likely at their DNS provider, then back off', () => {
    const gap = (c: LifecycleState, afterMs: number, v: { outcome: 'none' | 'inconclusive'; records: never[] } = none) =>
      afterVerification(c, v, new Date(t0.getTime() + afterMs)).next_check_at!.getTime() - (t0.getTime() + afterMs)
    for (const c of [pending, propagating]) {
      expect(gap(c, 0)).toBe(3_000)
      expect(gap(c, 90_000)).toBe(3_000)
      expect(gap(c, 5 * 60_000)).toBe(10_000)
      expect(gap(c, 30 * 60_000)).toBe(60_000)
    }
    expect(gap(pending, 2 * HOUR)).toBe(15 * 60_000)
    expect(gap(propagating, 2 * HOUR)).toBe(10 * 60_000)
    // A resolver failure later on is retried within a minute, not at the backed-off pace.
    expect(gap(propagating, 2 * HOUR, { outcome: 'inconclusive', records: [] })).toBe(60_000)
    // A connection said to be set up again (`:recheck` restarts propagating_since) is checked often again.
    expect(gap({ ...propagating, propagating_since: new Date(t0.getTime() + 5 * HOUR) }, 5 * HOUR + 1000)).toBe(3_000)
  })
})
