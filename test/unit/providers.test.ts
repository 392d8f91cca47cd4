import { describe, test, expect } from 'bun:test'
import { detectProvider, parityCensus, PROVIDERS } from '../../src/domain/providers.ts'

describe('provider catalog', () => {
  test('detects providers from nameservers, ignoring case and the trailing dot', () => {
    expect(detectProvider(['Dana.NS.Cloudflare.com.', 'walt.ns.cloudflare.com'])?.id).toBe('cloudflare')
    expect(detectProvider(['ns-1234.awsdns-56.org', 'ns-99.awsdns-12.co.uk'])?.id).toBe('route53')
    expect(detectProvider(['ns51.domaincontrol.com', 'ns52.domaincontrol.com'])?.id).toBe('godaddy')
    expect(detectProvider(['ns1.digitalocean.com'])?.id).toBe('digitalocean')
    expect(detectProvider(['dns1.registrar-servers.com'])?.id).toBe('namecheap')
    expect(detectProvider(['ns1.portico-test.test'])?.id).toBe('powerdns')
    expect(detectProvider(['ns1.example.net'])).toBeNull()
    expect(detectProvider([])).toBeNull()
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

  test('the parity census counts each rail', () => {
    const c = parityCensus()
    expect(c.providers).toBe(PROVIDERS.length)
    expect(c.rails.manual).toBe(PROVIDERS.length)
    expect(c.rails.api_key).toBe(PROVIDERS.filter((p) => p.capabilities.api_apply).length)
    expect(c.rails.domain_connect).toBe(PROVIDERS.filter((p) => p.capabilities.domain_connect.sync || p.capabilities.domain_connect.async).length)
    expect(c.capabilities.apex_alias_style).toBe(PROVIDERS.filter((p) => p.capabilities.apex).length)
  })
})
