// A DNS host that cannot be reached at all (issue 46, D3): the connection refused, reset before an
// answer, a TLS handshake that fails. Nothing was refused, so Portico answers as for the host's own
// server error: 503 service_unavailable, reason provider_unreachable, with Retry-After; never a 422
// "the DNS provider refused the change". Every hosted adapter, through the one HTTP exchange.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { makeHosted } from '../../src/adapters/dns-providers/index.ts'
import { providerFailure } from '../../src/domain/provider-accounts.ts'
import { FAKE_CASES } from '../harness/provider-fakes/index.ts'
import type { Fake } from '../harness/provider-fakes/common.ts'

/** A loopback port nothing listens on. */
function closedPort(): number {
  const s = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const port = s.port
  s.stop(true)
  return port
}

let resetter: { port: number; stop(closeActive?: boolean): void }
beforeAll(() => {
  // Accepts the connection and closes it before any answer.
  resetter = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { open(sk) { sk.terminate() }, data() {} } })
})
afterAll(() => resetter.stop(true))

describe('every adapter: a host that cannot be reached is a 503 with Retry-After, not a refusal', () => {
  const fakes = new Map<string, Fake<any>>()
  beforeAll(() => FAKE_CASES.forEach((c) => fakes.set(c.id, c.start())))
  afterAll(() => fakes.forEach((f) => f.stop()))

  const ways: [string, (base: string) => string][] = [
    ['connection refused', (b) => b.replace(/^http:\/\/[^/]+/, `http://127.0.0.1:${closedPort()}`)],
    ['connection reset', (b) => b.replace(/^http:\/\/[^/]+/, `http://127.0.0.1:${resetter.port}`)],
    ['TLS handshake failed', (b) => b.replace(/^http:/, 'https:')],
  ]
  for (const c of FAKE_CASES) {
    test(c.id, async () => {
      const f = fakes.get(c.id)!
      for (const [way, to] of ways) {
        const p = makeHosted(c.id, f.credential, { [c.id]: to(c.base(f)) })!
        const err = await p.listZones().then(() => null, (e) => e)
        const e = providerFailure(err, c.id, 'www.example.com')
        const seen = { id: c.id, way, status: e.status, code: e.code, reason: (e.details as { reason?: string } | undefined)?.reason, wait: Number(e.headers['retry-after']) > 0 }
        expect(seen).toEqual({ id: c.id, way, status: 503, code: 'service_unavailable', reason: 'provider_unreachable', wait: true })
        expect(e.title).toContain('could not be reached')
      }
    })
  }
})
