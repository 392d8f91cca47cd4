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

  test('every provider is well formed and ids are unique', () => {
    expect(PROVIDERS.length).toBeGreaterThanOrEqual(20)
    expect(new Set(PROVIDERS.map((p) => p.id)).size).toBe(PROVIDERS.length)
    for (const p of PROVIDERS) {
      expect(p.nameserver_patterns.length).toBeGreaterThan(0)
      expect(p.manual_steps.length).toBeGreaterThan(0)
      expect(p.dashboard_url).toStartWith('https://')
    }
  })

  test('the parity census counts each rail and capability', () => {
    const c = parityCensus()
    const n = (f: (p: (typeof PROVIDERS)[number]) => boolean) => PROVIDERS.filter(f).length
    expect(c.providers).toBe(PROVIDERS.length)
    expect(c.rails).toEqual({
      oauth: n((p) => p.capabilities.oauth),
      domain_connect: n((p) => p.capabilities.domain_connect.sync || p.capabilities.domain_connect.async),
      api_apply: n((p) => p.capabilities.api_apply),
      manual: PROVIDERS.length,
    })
    expect(c.capabilities.apex_alias + c.capabilities.apex_aname + c.capabilities.apex_flattening).toBe(c.capabilities.apex_any)
    expect(c.capabilities.apex_any).toBe(n((p) => p.capabilities.apex !== null))
    expect(c.capabilities.caa).toBe(n((p) => p.capabilities.caa))
    expect(c.capabilities.domain_connect_async).toBeLessThanOrEqual(c.rails.domain_connect)
    // Not every provider has every rail: the census must show the gaps.
    expect(c.rails.api_apply).toBeLessThan(PROVIDERS.length)
    expect(c.rails.oauth).toBeGreaterThan(0)
  })
})
