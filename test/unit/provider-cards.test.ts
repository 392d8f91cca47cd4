// The providers' reference cards (src/adapters/dns-providers/<id>/card.ts) hold together: every section cites
// sources the card names; every card names the provider's documentation and a production client; a
// machine-readable description said to be carried is there as a fixture; the documented errors and
// rate limit are well formed; and docs/providers/README.md is what the cards render to.
import { describe, test, expect } from 'bun:test'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { CARDS } from '../harness/provider-cards/index.ts'
import { renderProviderDocs } from '../harness/provider-cards/render.ts'
import { HOSTED } from '../../src/adapters/dns-providers/index.ts'
import { PROVIDERS } from '../../src/domain/providers.ts'

const ROOT = join(import.meta.dir, '../..')

describe('reference cards', () => {
  for (const c of Object.values(CARDS)) {
    test(`${c.id}: every line names its sources`, () => {
      expect(c.id in HOSTED).toBe(true)
      const kinds = Object.values(c.sources).map((s) => s.kind)
      expect(kinds).toContain('docs')
      expect(kinds).toContain('client')
      for (const s of Object.values(c.sources)) if (s.fixture) expect({ fixture: s.fixture, exists: existsSync(join(ROOT, 'test/fixtures', s.fixture)) }).toEqual({ fixture: s.fixture, exists: true })
      const all = [c.base.cite, c.auth.cite, c.listing.cite, c.records.cite, c.ttl.cite, c.rateLimit.cite, c.errorsCite, ...c.quirks.map((q) => q.cite), ...(c.temporary ?? []).map((t) => t.cite)]
      for (const cite of all) {
        expect(cite.length).toBeGreaterThan(0)
        for (const k of cite) expect({ cite: k, known: k in c.sources }).toEqual({ cite: k, known: true })
      }
      expect(c.errors.some((e) => e.reason === 'auth')).toBe(true)
      expect(c.auth.accepted.length).toBeGreaterThan(0)
      expect(c.disagreements.length).toBeGreaterThan(0)
      expect(c.seeds('example.com').length).toBeGreaterThan(0)
    })
  }

  test('every provider counted automatic for end users has a card, and every hosted adapter has one', () => {
    const automatic = PROVIDERS.filter((p) => p.audience === 'end_user' && p.built.api_credential).map((p) => p.id)
    expect(automatic.length).toBeGreaterThan(30)
    expect(automatic.filter((id) => !(id in CARDS))).toEqual([])
    expect(Object.keys(HOSTED).filter((id) => !(id in CARDS))).toEqual([])
  })

  test('docs/providers/README.md is rendered from the cards (bun scripts/provider-cards-doc.ts)', () => {
    expect(readFileSync(join(ROOT, 'docs/providers/README.md'), 'utf8')).toBe(renderProviderDocs())
  })
})
