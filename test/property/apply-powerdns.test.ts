// The apply/revert property through a real PowerDNS and the PowerDNS adapter: random existing zones
// and desired record sets, written through the HTTP API, read back, reverted: the zone as PowerDNS
// serves it afterwards is the zone before (SOA aside: PowerDNS bumps its serial on each edit).
import { describe, test, expect, beforeAll } from 'bun:test'
import fc from 'fast-check'
import { startPdns, type Pdns } from '../harness/pdns.ts'
import { PowerDnsProvider } from '../../src/adapters/dns-providers/powerdns.ts'
import { planApply, planRevert } from '../../src/domain/record-plan.ts'
import type { RRset, Zone } from '../../src/adapters/dns-providers/types.ts'
import { APEX, canonicalZone, desiredArb, zoneArb } from './arbitraries.ts'

let pdns: Pdns
let provider: PowerDnsProvider
let n = 0

beforeAll(async () => {
  pdns = await startPdns()
  provider = new PowerDnsProvider(pdns.apiUrl, pdns.apiKey)
})

const rename = (s: RRset, zone: string): RRset => ({ ...s, name: s.name === APEX ? zone : s.name.replace(new RegExp(`\\.${APEX.replace('.', '\\.')}$`), `.${zone}`) })
const withoutSoa = (z: RRset[]) => canonicalZone(z.filter((s) => s.type !== 'SOA'))

describe('apply then revert through PowerDNS', () => {
  test('leaves the zone exactly as it was', async () => {
    await fc.assert(
      fc.asyncProperty(zoneArb, desiredArb, async (generated, desired) => {
        const name = `p${Date.now().toString(36)}${++n}.test`
        await pdns.createZone(name)
        const zone: Zone = (await provider.listZones()).find((z) => z.name === name)!
        try {
          const seed = generated.filter((s) => s.type !== 'SOA' && s.type !== 'NS').map((s) => rename(s, name))
          await provider.writeChanges(zone, seed)
          const before = await provider.readRecords(zone)
          // Desired hosts are relative to the apex, so the generated set applies to this zone as is.
          const plan = planApply(before, desired, name)
          await provider.writeChanges(zone, plan.changes)
          const applied = await provider.readRecords(zone)
          expect(planApply(applied, desired, name, plan.entries).changes).toEqual([])
          await provider.writeChanges(zone, planRevert(applied, plan.entries).changes)
          expect(withoutSoa(await provider.readRecords(zone))).toEqual(withoutSoa(before))
        } finally {
          await pdns.deleteZone(name)
        }
      }),
      { numRuns: 40 },
    )
  }, 120_000)
})
