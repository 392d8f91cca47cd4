// Do no harm, as a property over every hosted adapter (test/harness/do-no-harm.ts): each stand-in's zone
// is seeded with its provider's own shapes (from its reference card, src/adapters/dns-providers/<id>/card.ts)
// beside a common baseline (long non-ASCII TXT, SPF, MX, records at the names Portico writes); apply,
// re-apply and revert leave everything outside Portico's plan byte-identical at the stand-in, zone
// settings included, and the revert reads back exactly as before. Where a seed stands in the plan's way
// and cannot be written back, the apply refuses before writing. A test of the test: an adapter patched
// to drop a record it does not understand is caught.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { makeHosted, type DnsProvider } from '../../src/adapters/dns-providers/index.ts'
import type { Fake } from '../harness/provider-fakes/common.ts'
import { FAKE_CASES, type FakeCase } from '../harness/provider-fakes/index.ts'
import { CARDS } from '../harness/provider-cards/index.ts'
import { doNoHarm, refusesBlocked, type HarmCase } from '../harness/do-no-harm.ts'
import { OPENAPI } from '../harness/provider-fakes/openapi.ts'

const fakes = new Map<string, Fake<any>>()
beforeAll(() => FAKE_CASES.forEach((c) => fakes.set(c.id, c.start())))
afterAll(() => fakes.forEach((f) => f.stop()))

let n = 0
const harmCase = (c: FakeCase, provider?: DnsProvider): HarmCase => {
  const f = fakes.get(c.id)!
  return {
    fake: f,
    provider: provider ?? makeHosted(c.id, f.credential, { [c.id]: c.base(f) })!,
    card: CARDS[c.id],
    rowKey: c.rowKey,
    volatile: c.volatile,
    seedRow: c.seedRow,
    seedZone: c.seedZone,
  }
}

for (const c of FAKE_CASES) {
  const card = CARDS[c.id]
  const shapes = card ? card.seeds('zone.example').map((s) => s.shape + (s.blocks ? ' (stands in the way)' : '')) : []
  describe(`${c.id} does no harm`, () => {
    test(`apply, re-apply and revert leave everything outside the plan as it was${shapes.length ? ` (seeded: ${shapes.join('; ')})` : ' (baseline shapes)'}`, async () => {
      expect(await doNoHarm(harmCase(c), `harm${++n}-${c.id}.example`)).toEqual([])
    })
    if (card?.seeds('zone.example').some((s) => s.blocks)) {
      test('what stands in the way and cannot be written back makes the apply refuse before writing', async () => {
        expect(await refusesBlocked(harmCase(c), `blocked${++n}-${c.id}.example`)).toEqual([])
      })
    }
    const spec = OPENAPI[c.id]
    if (spec) {
      // The provider's own shapes, as the stand-in answered them above, are shapes its published description allows.
      test(`with the provider's own shapes seeded, what was sent and answered follows its published description`, () => {
        const report = spec.document.check(fakes.get(c.id)!.exchanges)
        expect(report.violations.filter((v) => !spec.exceptions.some((e) => e.match.test(v)))).toEqual([])
        expect(report.checked).toBeGreaterThan(0)
      })
    }
  })
}

describe('the do-no-harm check itself', () => {
  test('an adapter patched to drop a record kind it does not understand is caught', async () => {
    const c = FAKE_CASES.find((x) => x.id === 'namecheap')!
    const f = fakes.get('namecheap')!
    const p = makeHosted('namecheap', f.credential, { namecheap: c.base(f) })! as any
    // The harm the check must see: a whole-zone writer that leaves out what it does not know.
    const hosts = p.hosts.bind(p)
    p.hosts = async (zone: unknown) => {
      const r = await hosts(zone)
      return { ...r, hosts: r.hosts.filter((h: { Type: string }) => h.Type !== 'URL301') }
    }
    const violations = await doNoHarm(harmCase(c, p), `harm-check${++n}.example`)
    expect(violations.some((v) => v.includes('URL301'))).toBe(true)
  })

  test('an adapter that drops the zone\'s mail setting is caught', async () => {
    const c = FAKE_CASES.find((x) => x.id === 'namecheap')!
    const f = fakes.get('namecheap')!
    const p = makeHosted('namecheap', f.credential, { namecheap: c.base(f) })! as any
    const hosts = p.hosts.bind(p)
    p.hosts = async (zone: unknown) => ({ ...(await hosts(zone)), result: {} })
    const violations = await doNoHarm(harmCase(c, p), `harm-check${++n}.example`)
    expect(violations.some((v) => v.includes('settings'))).toBe(true)
  })
})
