// fast-check generators of valid zones (a CNAME never beside other data, at most one SPF value per
// name) and valid desired record sets, shared by the in-memory and the PowerDNS property tests.
import fc from 'fast-check'
import type { RRset } from '../../src/adapters/dns-providers/types.ts'
import type { DnsRecord } from '../../src/domain/records.ts'

export const APEX = 'prop.test'
const HOSTS = ['@', 'www', 'shop', 'mail', '_portico-challenge'] as const
const abs = (h: string) => (h === '@' ? APEX : `${h}.${APEX}`)

const ipv4 = fc.tuple(fc.integer({ min: 1, max: 223 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 1, max: 254 })).map((p) => p.join('.'))
const ipv6 = fc.integer({ min: 1, max: 0xfffe }).map((n) => `2001:db8::${n.toString(16)}`)
const word = fc.stringMatching(/^[a-z0-9]{1,12}$/)
const ttl = fc.constantFrom(60, 300, 3600)
const txt = fc.oneof(word.map((w) => `verify=${w}`), fc.constant('hello world'))
const caa = fc.constantFrom('0 issue "letsencrypt.org"', '0 issue "pki.goog"', '0 iodef "mailto:sec@prop.test"')
const host = fc.constantFrom('mx1.prop.test', 'mx2.example.net', 'target.example.org')
const spf = fc.constantFrom('v=spf1 include:_spf.google.com ~all', 'v=spf1 mx -all', 'v=spf1 a include:mail.example.net ?all')

const uniq = <T>(a: fc.Arbitrary<T[]>) => a.map((xs) => [...new Set(xs)])

function setsAt(name: string, apex: boolean): fc.Arbitrary<RRset[]> {
  const some = fc.record(
    {
      A: uniq(fc.array(ipv4, { minLength: 1, maxLength: 3 })),
      AAAA: uniq(fc.array(ipv6, { minLength: 1, maxLength: 2 })),
      TXT: fc.tuple(uniq(fc.array(txt, { maxLength: 2 })), fc.option(spf)).map(([t, s]) => [...t, ...(s ? [s] : [])]).filter((v) => v.length > 0),
      CAA: uniq(fc.array(caa, { minLength: 1, maxLength: 2 })),
      MX: uniq(fc.array(fc.tuple(fc.constantFrom(10, 20), host).map(([p, h]) => `${p} ${h}`), { minLength: 1, maxLength: 2 })),
    },
    { requiredKeys: [] },
  )
  const toSets = (o: Record<string, string[] | undefined>, t: number) =>
    Object.entries(o)
      .filter(([, v]) => v && v.length)
      .map(([type, values]) => ({ name, type, ttl: t, values: values! }))
  const plain = fc.tuple(some, ttl).map(([o, t]) => toSets(o, t))
  if (apex) return plain
  return fc.oneof(plain, fc.tuple(host, ttl).map(([h, t]) => [{ name, type: 'CNAME', ttl: t, values: [h] }]))
}

export const zoneArb: fc.Arbitrary<RRset[]> = fc.tuple(...HOSTS.map((h) => setsAt(abs(h), h === '@'))).map((parts) => [
  { name: APEX, type: 'SOA', ttl: 3600, values: ['ns1.portico-test.test. hostmaster.prop.test. 1 10800 3600 604800 3600'] },
  { name: APEX, type: 'NS', ttl: 3600, values: ['ns1.portico-test.test', 'ns2.portico-test.test'] },
  ...parts.flat(),
])

function desiredAt(h: string): fc.Arbitrary<DnsRecord[]> {
  const ttlOpt = fc.option(ttl, { nil: undefined })
  const rec = (type: DnsRecord['type'], value: string, t?: number, priority?: number): DnsRecord => ({ type, host: h, value, ...(t ? { ttl: t } : {}), ...(priority !== undefined ? { priority } : {}) })
  const others = fc.record(
    {
      A: fc.tuple(uniq(fc.array(ipv4, { minLength: 1, maxLength: 2 })), ttlOpt).map(([ips, t]) => ips.map((ip) => rec('A', ip, t))),
      TXT: fc.tuple(txt, ttlOpt).map(([v, t]) => [rec('TXT', v, t)]),
      CAA: caa.map((v) => [rec('CAA', v)]),
      SPFM: fc.constantFrom('include:_spf.portico.test', 'include:mail.example.net', 'ip4:192.0.2.1').map((v) => [rec('SPFM', v)]),
      MX: fc.tuple(fc.constantFrom(5, 10), host).map(([p, v]) => [rec('MX', v, undefined, p)]),
    },
    { requiredKeys: [] },
  ).map((o) => Object.values(o).flat() as DnsRecord[])
  if (h === '@') return others
  return fc.oneof(others, fc.tuple(host, ttlOpt).map(([v, t]) => [rec('CNAME', v, t)]))
}

export const desiredArb: fc.Arbitrary<DnsRecord[]> = fc
  .tuple(...HOSTS.map((h) => fc.option(desiredAt(h), { nil: [] as DnsRecord[] })))
  .map((parts) => parts.flat())
  .filter((d) => d.length > 0)

/** A zone as a sorted list of `name type ttl value` lines, for equality. */
export function canonicalZone(zone: RRset[]): string[] {
  return zone.flatMap((s) => s.values.map((v) => `${s.name} ${s.type} ${s.ttl} ${v}`)).sort()
}
