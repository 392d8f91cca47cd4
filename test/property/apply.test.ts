// Property: for random existing zones and random desired record sets, apply then disconnect leaves
// the zone exactly as it was; re-applying the same set changes nothing; CAA and non-SPF TXT values
// that were there survive the apply. Runs the planner (src/domain/record-plan.ts) on in-memory zones here;
// test/property/apply-powerdns.test.ts runs the same property through PowerDNS.
import { describe, test, expect } from 'bun:test'
import fc from 'fast-check'
import { applyChanges, planApply, planRevert } from '../../src/domain/record-plan.ts'
import type { RRset } from '../../src/adapters/dns-providers/types.ts'
import { zoneArb, desiredArb, canonicalZone, APEX } from './arbitraries.ts'

describe('apply then revert', () => {
  test('leaves the zone as it was, and a re-apply writes nothing', () => {
    fc.assert(
      fc.property(zoneArb, desiredArb, (zone: RRset[], desired) => {
        const plan = planApply(zone, desired, APEX)
        const applied = applyChanges(zone, plan.changes)
        // Idempotent: the same records against the applied zone need no write.
        const again = planApply(applied, desired, APEX, plan.entries)
        expect(again.changes).toEqual([])
        // Kept: every CAA value and every non-SPF TXT value that was there is still there.
        for (const s of zone.filter((s) => s.type === 'CAA' || s.type === 'TXT')) {
          const after = applied.find((a) => a.name === s.name && a.type === s.type)
          const cnameNow = applied.some((a) => a.name === s.name && a.type === 'CNAME')
          if (!cnameNow) for (const v of s.values.filter((v) => !/^v=spf1/i.test(v))) expect(after?.values).toContain(v)
        }
        const reverted = applyChanges(applied, planRevert(applied, again.entries).changes)
        expect(canonicalZone(reverted)).toEqual(canonicalZone(zone))
      }),
      { numRuns: 500 },
    )
  })
})
