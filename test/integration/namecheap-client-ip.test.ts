// Namecheap checks every call's ClientIp against the account's whitelist (IPv4 only). The address is
// the credential's third part or, when the credential names none, the operator's NAMECHEAP_CLIENT_IP
// (src/config.ts); with neither, the adapter refuses with a typed reason before sending anything
// (it used to send 127.0.0.1, which Namecheap refuses).
import { describe, test, expect, afterAll } from 'bun:test'
import { loadConfig, ConfigError } from '../../src/config.ts'
import { makeHosted, ProviderError } from '../../src/adapters/dns-providers/index.ts'
import { startNamecheapFake } from '../../src/adapters/dns-providers/namecheap/stand-in.ts'

const nc = startNamecheapFake(undefined, undefined, '203.0.113.77')
nc.addZone('ip-namecheap.example')
afterAll(() => nc.stop())
const [user, key] = nc.credential.split(':') as [string, string]
const env = { SECRETS_KEY: '11'.repeat(32), DNS_RESOLVERS: '127.0.0.1:53', APP_ENV: 'test' }
const errorOf = (p: Promise<unknown>) => p.then(() => null, (e) => (e instanceof ProviderError ? e : Promise.reject(e)))

describe('NAMECHEAP_CLIENT_IP', () => {
  test('a setting: an IPv4 address, or unset; anything else stops startup with the reason', () => {
    expect(loadConfig({ ...env }).namecheapClientIp).toBeNull()
    expect(loadConfig({ ...env, NAMECHEAP_CLIENT_IP: ' 203.0.113.77 ' }).namecheapClientIp).toBe('203.0.113.77')
    for (const bad of ['2001:db8::1', '203.0.113.256', '203.0.113', 'api.example.com', '203.0.113.07']) {
      expect(() => loadConfig({ ...env, NAMECHEAP_CLIENT_IP: bad })).toThrow(ConfigError)
      expect(() => loadConfig({ ...env, NAMECHEAP_CLIENT_IP: bad })).toThrow(/NAMECHEAP_CLIENT_IP must be the IPv4 address/)
    }
  })

  test('neither the credential nor the setting names an address: refused before anything is sent', async () => {
    const before = nc.requests.length
    const e = await errorOf(makeHosted('namecheap', `${user}:${key}`, { namecheap: nc.url })!.listZones())
    expect(e?.kind).toBe('permission')
    expect(e?.message).toContain('NAMECHEAP_CLIENT_IP')
    expect(e?.message).not.toContain(key)
    expect(nc.requests.length).toBe(before)
  })

  test('the setting is used when the credential names no address; the credential\'s own address wins', async () => {
    const viaSetting = makeHosted('namecheap', `${user}:${key}`, { namecheap: nc.url }, { namecheapClientIp: '203.0.113.77' })!
    expect((await viaSetting.listZones()).map((z) => z.name)).toContain('ip-namecheap.example')
    const viaCredential = makeHosted('namecheap', `${user}:${key}:203.0.113.77`, { namecheap: nc.url }, { namecheapClientIp: '198.51.100.1' })!
    expect((await viaCredential.listZones()).map((z) => z.name)).toContain('ip-namecheap.example')
    // A setting Namecheap has not whitelisted for this account is Namecheap's 1011150: a permission.
    const e = await errorOf(makeHosted('namecheap', `${user}:${key}`, { namecheap: nc.url }, { namecheapClientIp: '198.51.100.1' })!.listZones())
    expect(e?.kind).toBe('permission')
    expect(e?.message).toContain('1011150')
  })

  test('a credential whose third part is not an IPv4 address is refused as a bad credential, unsent', async () => {
    const before = nc.requests.length
    const e = await errorOf(makeHosted('namecheap', `${user}:${key}:not-an-address`, { namecheap: nc.url }, { namecheapClientIp: '203.0.113.77' })!.listZones())
    expect(e?.kind).toBe('auth')
    expect(e?.message).toContain('IPv4')
    expect(nc.requests.length).toBe(before)
  })
})
