// A share link beside a guesser, from the visitors' side: the share page reads the API with each
// visitor's own address (TRUST_PROXY honoured), so someone guessing share tokens spends their own
// budget and the real link keeps opening for everyone else, its "I have added them" form too.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { startPdns, type Pdns } from '../harness/pdns.ts'
import { provision, type Workspace } from '../harness/portico.ts'
import { livePortico, type LivePortico } from '../harness/agents.ts'

let pdns: Pdns
let p: LivePortico
let ws: Workspace
let zone: string

beforeAll(async () => {
  pdns = await startPdns()
  // The default budget (30 failed checks a minute per address); the test's proxy is the loopback peer.
  p = await livePortico({ DNS_RESOLVERS: pdns.dnsAddress, EDGE_CNAME_TARGET: 'edge.portico.test', TRUST_PROXY: '127.0.0.1' })
  ws = await provision(p)
  zone = `g${Date.now().toString(36)}.test`
  await pdns.createZone(zone)
})

afterAll(async () => {
  await p?.stop()
})

const visit = (path: string, client: string, init: RequestInit = {}) =>
  fetch(`${p.url}${path}`, { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string>), 'x-forwarded-for': client } })

describe('a share link beside a guesser', () => {
  test('100 guessed tokens from one address: the guesser waits; the real link opens for other visitors, its form re-checks', async () => {
    const c = await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: `shop.${zone}` } })
    expect(c.status).toBe(201)
    const s = await p.api('POST', `/v1/connections/${c.body.id}/share`, { token: ws.apiKey })
    expect(s.status).toBe(201)
    const link = new URL(s.body.url).pathname

    const guesses: number[] = []
    for (let i = 0; i < 100; i++) guesses.push((await visit(`/share/${crypto.randomUUID().replaceAll('-', '')}`, '198.51.100.9')).status)
    expect(guesses.filter((g) => g === 404)).toHaveLength(30)
    const waited = guesses.filter((g) => g === 429)
    expect(waited).toHaveLength(70)

    // Everyone else: the link works, page and form alike.
    for (const visitor of ['203.0.113.5', '203.0.113.6', '2001:db8::5']) {
      const page = await visit(link, visitor)
      expect(page.status).toBe(200)
      expect(await page.text()).toContain(`shop.${zone}`)
      const form = await visit(link, visitor, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'lang=en' })
      expect(form.status).toBe(303)
    }
    // Each visitor is counted on their own: another visitor's mistyped link is told it does not work
    // (404), not made to wait for the guesser's budget.
    expect((await visit(`${link}x`, '203.0.113.7')).status).toBe(404)
    // A neighbour of the guesser holding the real link is not refused either: the link is known valid.
    expect((await visit(link, '198.51.100.10')).status).toBe(200)
    // The guesser itself is told to wait, not that the link is broken for everyone.
    const again = await visit(`/share/${crypto.randomUUID().replaceAll('-', '')}`, '198.51.100.9')
    expect(again.status).toBe(429)
    expect(Number(again.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
  })
})

describe('the share page\'s form from another site', () => {
  test('"I have added them" posted cross-site is refused (403, saying why) and nothing runs; from the page itself it re-checks', async () => {
    const c = await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: `form.${zone}` } })
    expect(c.status).toBe(201)
    const s = await p.api('POST', `/v1/connections/${c.body.id}/share`, { token: ws.apiKey })
    const link = new URL(s.body.url).pathname
    const form = { 'content-type': 'application/x-www-form-urlencoded' }
    const crossSite = await visit(link, '203.0.113.40', { method: 'POST', headers: { ...form, origin: 'https://attacker.example', 'sec-fetch-site': 'cross-site' }, body: 'lang=en' })
    expect(crossSite.status).toBe(403)
    expect(await crossSite.text()).toContain('This form was sent from another site')
    // Without Sec-Fetch-Site, an Origin of another site is refused the same way.
    expect((await visit(link, '203.0.113.40', { method: 'POST', headers: { ...form, origin: 'https://attacker.example' }, body: 'lang=en' })).status).toBe(403)
    // Nothing ran: 40 cross-site posts of guessed tokens spent none of the address's failure budget.
    for (let i = 0; i < 40; i++) expect((await visit(`/share/${crypto.randomUUID().replaceAll('-', '')}`, '203.0.113.41', { method: 'POST', headers: { ...form, 'sec-fetch-site': 'cross-site' }, body: '' })).status).toBe(403)
    expect((await visit(`/share/${crypto.randomUUID().replaceAll('-', '')}`, '203.0.113.41')).status).toBe(404)
    const own = await visit(link, '203.0.113.40', { method: 'POST', headers: { ...form, 'sec-fetch-site': 'same-origin' }, body: 'lang=en' })
    expect(own.status).toBe(303)
    expect(own.headers.get('location')).toBe(`${link}?lang=en`)
  })
})
