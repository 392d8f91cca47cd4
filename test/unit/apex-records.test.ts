// The records a customer is shown for a zone apex name the record their host really offers there
// (issue 46): Gandi's manual rail said `CNAME @` (purpose `routing_alias`, declared nowhere) while
// GET /v1/providers said Gandi's apex record is `alias`. Every provider of the catalogue is walked:
// alias → ALIAS, aname → ANAME, flattening → a CNAME at `@` the host flattens, none → A records; a
// hosted adapter's own apex record agrees; and every purpose a planned record can carry is declared in
// the OpenAPI document.
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { makeHosted } from '../../src/adapters/dns-providers/index.ts'
import { parseDomain } from '../../src/domain/hostnames.ts'
import { firstStepRecords } from '../../src/domain/prevalidation.ts'
import { PROVIDERS } from '../../src/domain/providers.ts'
import { planRecords, RECORD_PURPOSES, recordSetProblems } from '../../src/domain/records.ts'

const TARGET = { cname_target: 'edge.portico.test', apex_ipv4: ['203.0.113.10'] }
const EXPECTED: Record<string, string> = { alias: 'ALIAS', aname: 'ANAME', flattening: 'CNAME' }

describe('the apex record shown to the customer is the one the host offers', () => {
  test('every provider: its catalogue apex strategy decides the record type at @', () => {
    for (const p of PROVIDERS) {
      const records = planRecords(parseDomain('example.com')!, TARGET, p.capabilities.apex, true, 'tok')
      const routing = records.filter((r) => r.host === '@' && r.purpose?.startsWith('routing'))
      const want = p.capabilities.apex ? EXPECTED[p.capabilities.apex] : 'A'
      expect({ id: p.id, types: [...new Set(routing.map((r) => r.type as string))] }).toEqual({ id: p.id, types: [want!] })
      // Never a plain CNAME at the apex unless the host flattens it (RFC 1034 §3.6.2).
      if (p.capabilities.apex !== 'flattening') expect({ id: p.id, cname: records.some((r) => r.host === '@' && r.type === 'CNAME') }).toEqual({ id: p.id, cname: false })
    }
  })

  test('a hosted adapter writes the record the customer is shown (or flattens the CNAME shown)', () => {
    for (const p of PROVIDERS) {
      const adapter = makeHosted(p.id, 'x', {})
      if (!adapter || !p.capabilities.apex) continue
      const shown = EXPECTED[p.capabilities.apex]
      const writes = adapter.conventions.apex
      expect({ id: p.id, ok: writes === shown || (shown === 'CNAME' && (writes === 'CNAME' || writes === 'FLATTEN')) }).toEqual({ id: p.id, ok: true })
    }
    expect(planRecords(parseDomain('example.com')!, TARGET, PROVIDERS.find((p) => p.id === 'gandi')!.capabilities.apex, false, 'tok')).toEqual([
      { type: 'ALIAS', host: '@', value: 'edge.portico.test', ttl: 300, purpose: 'routing_alias' },
    ])
  })

  test('ALIAS and ANAME are apex records: refused below the apex', () => {
    const parsed = parseDomain('example.com')!
    expect(recordSetProblems([{ type: 'ALIAS', host: '@', value: 'edge.portico.test' }], parsed)).toEqual([])
    expect(recordSetProblems([{ type: 'ANAME', host: 'www', value: 'edge.portico.test' }], parsed)).toEqual([{ field: 'records.0.value', message: 'ANAME points the zone apex (host @) at a hostname; below it use a CNAME' }])
    expect(recordSetProblems([{ type: 'ALIAS', host: '@', value: 'edge.portico.test' }, { type: 'A', host: '@', value: '203.0.113.10' }], parsed)).toEqual([{ field: 'records', message: 'example.com: an ALIAS answers for the apex\'s addresses; it cannot stand beside A' }])
  })
})

describe('every purpose a planned record carries is declared in the OpenAPI document', () => {
  test('the purposes of every plan (each provider, apex and subdomain, with and without www, before cutover) are catalogued and documented', () => {
    const seen = new Set<string>()
    for (const p of PROVIDERS) {
      for (const domain of ['example.com', 'shop.example.com']) {
        for (const www of [true, false]) {
          for (const r of planRecords(parseDomain(domain)!, TARGET, p.capabilities.apex, www, 'tok')) seen.add(r.purpose!)
          for (const r of firstStepRecords(parseDomain(domain)!, 'tok', 'label', 'dcv.portico.test', www)) seen.add(r.purpose!)
        }
      }
    }
    expect([...seen].filter((s) => !(s in RECORD_PURPOSES))).toEqual([])
    const doc = JSON.parse(readFileSync('test/snapshots/openapi.json', 'utf8'))
    const purpose: string = doc.components.schemas.DnsRecord.properties.purpose.description
    for (const k of Object.keys(RECORD_PURPOSES)) expect({ k, declared: purpose.includes(`\`${k}\``) }).toEqual({ k, declared: true })
    expect(doc.components.schemas.DnsRecord.properties.type.enum ?? doc.components.schemas.DnsRecord.properties.type.anyOf.map((t: { const: string }) => t.const)).toEqual(expect.arrayContaining(['ALIAS', 'ANAME']))
  })
})
