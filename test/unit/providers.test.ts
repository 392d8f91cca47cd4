import { describe, test, expect } from 'bun:test'
import { detectProvider, parityCensus, providerById, PROVIDERS } from '../../src/domain/providers.ts'

describe('provider catalog', () => {
  test('detects providers from nameservers, ignoring case and the trailing dot', () => {
    expect(detectProvider(['Dana.NS.Cloudflare.com.', 'walt.ns.cloudflare.com'])?.id).toBe('cloudflare')
    expect(detectProvider(['DANA.NS.CLOUDFLARE.COM.'])?.id).toBe('cloudflare')
    expect(detectProvider(['ns-1234.awsdns-56.org', 'ns-99.awsdns-12.co.uk'])?.id).toBe('route53')
    expect(detectProvider(['ns51.domaincontrol.com', 'ns52.domaincontrol.com'])?.id).toBe('godaddy')
    expect(detectProvider(['ns1.digitalocean.com.', 'ns2.digitalocean.com.'])?.id).toBe('digitalocean')
    expect(detectProvider(['dns1.registrar-servers.com'])?.id).toBe('namecheap')
    expect(detectProvider(['ns1.portico-test.test.'])?.id).toBe('powerdns')
  })

  test('unknown or look-alike nameservers are no provider', () => {
    expect(detectProvider(['ns1.example.net'])).toBeNull()
    expect(detectProvider([])).toBeNull()
    // A pattern anchors on the whole hostname: a provider's name inside another domain is not it.
    expect(detectProvider(['dana.ns.cloudflare.com.evil.example'])).toBeNull()
    expect(detectProvider(['ns1.digitalocean.com-fake.net'])).toBeNull()
  })

  test('the provider matching most nameservers wins a mixed set', () => {
    expect(detectProvider(['ns1.digitalocean.com', 'ns2.digitalocean.com', 'dana.ns.cloudflare.com'])?.id).toBe('digitalocean')
  })

  test('capabilities follow the providers\' documented features', () => {
    expect(providerById('cloudflare')?.capabilities).toMatchObject({ api_apply: true, apex: 'flattening' })
    expect(providerById('godaddy')?.capabilities.domain_connect).toEqual({ sync: true, async: true })
    expect(providerById('hover')?.capabilities).toMatchObject({ api_apply: false, oauth: false, apex: null })
    expect(providerById('namecom')?.capabilities.apex).toBe('aname')
  })

  test('every provider advertises sign-in exactly where it is built, and an API rail only where the host has an API (issue 46: Gandi said oauth with none built)', () => {
    for (const p of PROVIDERS) {
      expect({ id: p.id, oauth: p.capabilities.oauth }).toEqual({ id: p.id, oauth: p.built.oauth })
      if (p.built.api_credential) expect({ id: p.id, api_apply: p.capabilities.api_apply }).toEqual({ id: p.id, api_apply: true })
    }
    expect(providerById('gandi')).toMatchObject({ capabilities: { oauth: false }, built: { oauth: false } })
    expect(providerById('ovh')).toMatchObject({ capabilities: { oauth: false }, built: { oauth: false } })
    expect(providerById('digitalocean')).toMatchObject({ capabilities: { oauth: true }, built: { oauth: true } })
  })

  test('NS1 and Netlify, which share NS1\'s nameserver fleet, are told apart by shard', () => {
    // Netlify DNS is served from NS1's fleet on any shard: nameservers tell the fleet, the credential tells which.
    expect(detectProvider(['dns1.p03.nsone.net', 'dns2.p03.nsone.net', 'dns3.p03.nsone.net', 'dns4.p03.nsone.net'])?.id).toBe('ns1')
    expect(detectProvider(['dns1.p07.nsone.net', 'dns2.p07.nsone.net'])?.id).toBe('ns1')
    expect(providerById('netlify')?.shares_nameservers_with).toBe('ns1')
    expect(providerById('lightsail')?.shares_nameservers_with).toBe('route53')
    expect(detectProvider(['ns1.your-server.de', 'ns.second-ns.com', 'ns3.second-ns.de'])?.id).toBe('hetzner-robot')
    expect(detectProvider(['hydrogen.ns.hetzner.com', 'oxygen.ns.hetzner.com', 'helium.ns.hetzner.de'])?.id).toBe('hetzner')
    expect(detectProvider(['dns1.p01.nsone.net', 'dns2.p01.nsone.net', 'dns3.p01.nsone.net', 'dns4.p01.nsone.net'])?.id).toBe('ns1')
    expect(detectProvider(['dns1.p12.nsone.net', 'dns2.p12.nsone.net'])?.id).toBe('ns1')
    expect(detectProvider(['hydrogen.ns.hetzner.com', 'oxygen.ns.hetzner.com', 'helium.ns.hetzner.de'])?.id).toBe('hetzner')
    expect(detectProvider(['ns1.desec.io', 'ns2.desec.org'])?.id).toBe('desec')
    expect(detectProvider(['kiki.bunny.net', 'coco.bunny.net'])?.id).toBe('bunny')
  })

  test('no two providers\' nameserver patterns can match the same hostname', () => {
    const clashes: string[] = []
    for (let i = 0; i < PROVIDERS.length; i++) {
      for (let j = i + 1; j < PROVIDERS.length; j++) {
        for (const a of PROVIDERS[i]!.nameserver_patterns) {
          for (const b of PROVIDERS[j]!.nameserver_patterns) if (overlap(a, b)) clashes.push(`${PROVIDERS[i]!.id} ${a} ~ ${PROVIDERS[j]!.id} ${b}`)
        }
      }
    }
    expect(clashes).toEqual([])
    // The check itself finds overlaps where they exist.
    expect(overlap('dns*.p*.nsone.net', 'dns*.p01.nsone.net')).toBe(true)
    expect(overlap('*.ns.cloudflare.com', 'dana.*.cloudflare.com')).toBe(true)
    expect(overlap('ns-*.awsdns-*.com', '*.ns.cloudflare.com')).toBe(false)
    expect(overlap('ns*.name.com', 'ns*.hover.com')).toBe(false)
    expect(overlap('*.gandi.net', '*.bunny.net')).toBe(false)
  })

  test('the catalog holds seventy providers or more, ranked, with logo and token metadata', () => {
    expect(PROVIDERS.length).toBeGreaterThanOrEqual(70)
    expect(PROVIDERS.map((p) => p.rank)).toEqual(PROVIDERS.map((_, i) => i + 1))
    for (const p of PROVIDERS) {
      if (p.logo !== null) expect(p.logo).toMatch(/^[a-z0-9]+$/)
      if (p.built.api_credential && p.id !== 'powerdns') {
        expect(p.token_url).toStartWith('https://')
        expect(p.token_scopes.length).toBeGreaterThan(0)
      }
    }
    for (const id of ['dynadot', 'linode', 'vultr', 'ns1', 'desec', 'bunny', 'namesilo', 'hostinger', 'infomaniak', 'scaleway', 'exoscale', 'constellix', 'akamai', 'alibaba-cloud-dns', 'dnspod']) expect(providerById(id)).toBeDefined()
  })

  test('every provider is well formed and ids are unique', () => {
    expect(PROVIDERS.length).toBeGreaterThanOrEqual(20)
    expect(new Set(PROVIDERS.map((p) => p.id)).size).toBe(PROVIDERS.length)
    for (const p of PROVIDERS) {
      // Only a provider served from another's nameservers has none of its own, and names that one.
      if (p.shares_nameservers_with) expect(providerById(p.shares_nameservers_with)?.nameserver_patterns.length).toBeGreaterThan(0)
      else expect(p.nameserver_patterns.length).toBeGreaterThan(0)
      expect(p.manual_steps.length).toBeGreaterThan(0)
      expect(p.dashboard_url).toStartWith('https://')
    }
  })

  test('the census counts built adapters per rail apart from what providers offer, for end users only', () => {
    const c = parityCensus()
    // PowerDNS needs the integrator's own API URL: catalogued, not counted as a rail a domain owner has.
    const END_USER = PROVIDERS.filter((p) => p.audience === 'end_user')
    expect(PROVIDERS.filter((p) => p.audience === 'integrator').map((p) => p.id)).toEqual(['powerdns'])
    expect(c.built.automatic_providers).not.toContain('powerdns')
    expect(c.built.api_credential).toBe(END_USER.filter((p) => p.built.api_credential).length)
    expect(c.built.oauth).toBe(END_USER.filter((p) => p.built.oauth).length)
    expect(c.built.automatic_providers).toEqual(END_USER.filter((p) => p.built.api_credential || p.built.oauth).map((p) => p.id))
    expect(c.built.automatic).toBe(c.built.automatic_providers.length)
    // Offering an API is not having an adapter: the two counts differ.
    expect(c.built.api_credential).toBeLessThanOrEqual(c.rails.api_apply)
    for (const p of PROVIDERS) if (p.built.api_credential) expect({ id: p.id, api: p.capabilities.api_apply }).toEqual({ id: p.id, api: true })
  })

  test('the parity census counts each rail and capability', () => {
    const c = parityCensus()
    const END_USER = PROVIDERS.filter((p) => p.audience === 'end_user')
    const n = (f: (p: (typeof PROVIDERS)[number]) => boolean) => END_USER.filter(f).length
    expect(c.providers).toBe(END_USER.length)
    expect(c.rails).toEqual({
      oauth: n((p) => p.capabilities.oauth),
      domain_connect: n((p) => p.capabilities.domain_connect.sync || p.capabilities.domain_connect.async),
      api_apply: n((p) => p.capabilities.api_apply),
      manual: END_USER.length,
    })
    expect(c.capabilities.apex_alias + c.capabilities.apex_aname + c.capabilities.apex_flattening).toBe(c.capabilities.apex_any)
    expect(c.capabilities.apex_any).toBe(n((p) => p.capabilities.apex !== null))
    expect(c.capabilities.caa).toBe(n((p) => p.capabilities.caa))
    expect(c.capabilities.domain_connect_async).toBeLessThanOrEqual(c.rails.domain_connect)
    // Not every provider has every rail: the census must show the gaps.
    expect(c.rails.api_apply).toBeLessThan(END_USER.length)
    expect(c.rails.oauth).toBeGreaterThan(0)
  })
})

/** Whether two nameserver patterns (`*` = one or more of [a-z0-9-], within one label) can match one
 * hostname: a walk over pairs of positions in both patterns, each `*` read as one character then zero
 * or more. */
function overlap(a: string, b: string): boolean {
  type Tok = { kind: 'lit'; c: string } | { kind: 'one' } | { kind: 'any' }
  const toks = (p: string): Tok[] => [...p.toLowerCase()].flatMap((c): Tok[] => (c === '*' ? [{ kind: 'one' }, { kind: 'any' }] : [{ kind: 'lit', c }]))
  const x = toks(a)
  const y = toks(b)
  const seen = new Set<string>()
  const stack: [number, number][] = [[0, 0]]
  const fits = (s: Tok, t: Tok) => (s.kind === 'lit' && t.kind === 'lit' ? s.c === t.c : s.kind === 'lit' ? s.c !== '.' : t.kind === 'lit' ? t.c !== '.' : true)
  while (stack.length) {
    const [i, j] = stack.pop()!
    const k = `${i},${j}`
    if (seen.has(k)) continue
    seen.add(k)
    if (i === x.length && j === y.length) return true
    const s = x[i]
    const t = y[j]
    if (s?.kind === 'any') stack.push([i + 1, j])
    if (t?.kind === 'any') stack.push([i, j + 1])
    if (!s || !t || !fits(s, t)) continue
    // Both consume one character; an `any` may consume more and stays.
    stack.push([s.kind === 'any' ? i : i + 1, t.kind === 'any' ? j : j + 1])
  }
  return false
}
