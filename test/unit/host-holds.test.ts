// The adapter tests write CAA and MX only where the host's catalogue row says its zone holds them:
// the switch an adapter author sets (`caa: false`, `mx: false` in src/domain/providers.ts) instead of
// failing the shared contract for a host that cannot hold them.
import { describe, expect, test } from 'bun:test'
import { heldBy, unheldTypes } from '../harness/host-holds.ts'
import { PROVIDERS } from '../../src/domain/providers.ts'

const sets = [{ type: 'A' }, { type: 'MX' }, { type: 'CAA' }, { type: 'TXT' }]

describe('what a host holds', () => {
  test('a host without CAA (Wix) gets no CAA written; one that holds both gets everything', () => {
    expect(PROVIDERS.find((p) => p.id === 'wix')!.capabilities.caa).toBe(false)
    expect(unheldTypes('wix')).toEqual(['CAA'])
    expect(heldBy('wix', sets).map((s) => s.type)).toEqual(['A', 'MX', 'TXT'])
    expect(heldBy('cloudflare', sets).map((s) => s.type)).toEqual(['A', 'MX', 'CAA', 'TXT'])
  })

  test('every provider declares whether it holds MX (held unless its row says otherwise)', () => {
    for (const p of PROVIDERS) expect([p.id, typeof p.capabilities.mx]).toEqual([p.id, 'boolean'])
    expect(unheldTypes('not-in-the-catalogue')).toEqual([])
  })
})
