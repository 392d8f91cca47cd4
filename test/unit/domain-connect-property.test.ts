// Property tests of the Domain Connect engine over generated templates, so nothing rests on the 60
// published samples alone: (1) the parser accepts exactly what the public template.schema accepts;
// (2) every accepted template, with its variables filled, either applies or answers a typed refusal
// (never throws), and applying the result again changes nothing.
import { describe, test, expect } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import Ajv from 'ajv'
import fc from 'fast-check'
import { parseTemplate } from '../../src/domain/domain-connect/template.ts'
import { applyTemplate, type ZoneRecord } from '../../src/domain/domain-connect/apply.ts'
import { compatibleGroups, fillVariables } from '../harness/dc-variables.ts'

const SCHEMA = JSON.parse(readFileSync(join(import.meta.dir, '../fixtures/domain-connect/template.schema'), 'utf8'))
const validateSchema = new Ajv({ strict: false, allErrors: true }).compile(SCHEMA)
const DOMAIN = 'example.test'

const ZONE: ZoneRecord[] = [
  { type: 'NS', name: DOMAIN, data: 'ns1.dns.test', ttl: 86400 },
  { type: 'A', name: DOMAIN, data: '192.0.2.10', ttl: 3600 },
  { type: 'CNAME', name: `www.${DOMAIN}`, data: 'old.host.test', ttl: 3600 },
  { type: 'MX', name: DOMAIN, data: 'mx.old.test', ttl: 3600, priority: 10 },
  { type: 'TXT', name: DOMAIN, data: 'v=spf1 include:_spf.old.test -all', ttl: 3600 },
  { type: 'TXT', name: `_dmarc.${DOMAIN}`, data: 'v=DMARC1; p=none', ttl: 3600 },
  { type: 'CAA', name: DOMAIN, data: '0 issue "letsencrypt.org"', ttl: 3600 },
]

const host = fc.constantFrom('@', '', 'www', 'app', '_dmarc', 'mail.sub', '*', '%sub%', '%host%', 'x.%domain%.', '%sel%._domainkey', 'Shop')
const hostname = fc.constantFrom('target.sender.test', '@', '%target%', '%sub%.sender.test', 'edge.sender.test.')
const numberField = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 0, max: 100_000 }) },
  { weight: 2, arbitrary: fc.constantFrom('3600', '60', ' 300 ', '%ttl%', '%prio%') },
  // Refused by the schema: a variable with a digit in it, no digit at all, a fraction.
  { weight: 1, arbitrary: fc.constantFrom('%ttl1%', 'abc', 1.5 as number | string) },
)
const maybe = <T,>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined, freq: 4 })

const TYPES = ['A', 'AAAA', 'CNAME', 'NS', 'TXT', 'MX', 'SPFM', 'SRV', 'REDIR301', 'REDIR302', 'APEXCNAME', 'CAA', 'TLSA', 'HTTPS', 'TYPE65'] as const

const record = fc
  .record({
    type: fc.constantFrom(...TYPES),
    host: maybe(host),
    name: maybe(host),
    pointsTo: maybe(fc.oneof(hostname, fc.constantFrom('198.51.100.7', '2001:db8::7', '%ip%'))),
    target: maybe(fc.oneof(hostname, fc.constantFrom('https://www.target.test/', '%url%', '.'))),
    data: maybe(fc.constantFrom('v=verify', '"quoted" "twice"', '%txt%', '0 issue "%ca%"', '3 1 1 %hash%', 'k=%key% d=%domain%', '1 . alpn=h2')),
    ttl: maybe(numberField),
    priority: maybe(numberField),
    weight: maybe(numberField),
    port: maybe(numberField),
    service: maybe(fc.constantFrom('sip', '_xmpp', '%svc%')),
    protocol: maybe(fc.constantFrom('tcp', '_udp', '%proto%')),
    spfRules: maybe(fc.constantFrom('include:spf.sender.test', 'ip4:198.51.100.0/24 include:%spf%', '%spf%', 'a mx ~all')),
    groupId: maybe(fc.constantFrom('g1', 'g2', 'g3')),
    essential: maybe(fc.constantFrom('Always', 'OnApply', 'onapply')),
    txtConflictMatchingMode: maybe(fc.constantFrom('None', 'All', 'Prefix')),
    txtConflictMatchingPrefix: maybe(fc.constantFrom('v=spf1', 'google-site-verification=', '%prefix%')),
  })
  .map((r) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined)))

const template = fc.record({
  providerId: fc.constant('sp.test'),
  providerName: fc.constant('SP'),
  serviceId: fc.constant('svc'),
  serviceName: fc.constant('Service'),
  hostRequired: maybe(fc.boolean()),
  syncBlock: maybe(fc.boolean()),
  records: fc.array(record, { minLength: 0, maxLength: 6 }),
}).map((t) => Object.fromEntries(Object.entries(t).filter(([, v]) => v !== undefined)))

describe('Domain Connect engine over generated templates', () => {
  test('the parser accepts exactly what template.schema accepts', () => {
    let accepted = 0
    fc.assert(
      fc.property(template, (json) => {
        const schema = validateSchema(json)
        const parsed = parseTemplate(json)
        if (schema) accepted++
        expect(parsed.ok, `schema says ${schema}: ${JSON.stringify(json)} ${parsed.ok ? '' : parsed.errors.join('; ')}`).toBe(schema)
      }),
      { numRuns: 3000, seed: 20261122 },
    )
    // The generator must reach valid templates often enough for the second property to mean something.
    expect(accepted).toBeGreaterThan(300)
  })

  test('accepted templates apply or refuse with a code, and re-applying changes nothing', () => {
    const codes = new Map<string, number>()
    let applied = 0
    fc.assert(
      fc.property(template, fc.boolean(), (json, withHost) => {
        const parsed = parseTemplate(json)
        if (!parsed.ok) return
        const t = parsed.template
        const params = fillVariables(t)
        const h = t.hostRequired || withHost ? 'shop' : undefined
        const groupIds = compatibleGroups(t, DOMAIN, h, params)
        const first = applyTemplate({ template: t, domain: DOMAIN, host: h, params, groupIds, zone: ZONE })
        if (!first.ok) {
          codes.set(first.code, (codes.get(first.code) ?? 0) + 1)
          expect(['invalid_domain', 'host_required', 'no_matching_group', 'missing_variable', 'invalid_value', 'not_applicable']).toContain(first.code)
          return
        }
        applied++
        for (const r of first.records) {
          if (r.type === 'SPFM') continue
          expect(first.result.some((z) => z.type === r.type && z.name === r.name && z.data === r.data && z.priority === r.priority), `${r.type} ${r.name} ${r.data}`).toBe(true)
        }
        const second = applyTemplate({ template: t, domain: DOMAIN, host: h, params, groupIds, zone: first.result })
        if (!second.ok) throw new Error(second.error)
        expect(second.toAdd).toEqual([])
        expect(second.toDelete).toEqual([])
      }),
      { numRuns: 3000, seed: 20261123 },
    )
    expect(applied).toBeGreaterThan(200)
  })
})
