// Provider behaviour the shared contract (dns-adapter-contract.test.ts) does not reach, each from the
// provider's reference card (test/harness/provider-cards/): how zones are found, how a credential in
// the form the provider issues it is read, which refusals are the credential's and which the zone's.
import { describe, test, expect, afterAll } from 'bun:test'
import { makeHosted, ProviderError } from '../../src/adapters/dns-providers/index.ts'
import { RETRY_LIMITS } from '../../src/adapters/dns-providers/http.ts'
import { seedWixZone, startWixFake } from '../harness/provider-fakes/wix.ts'

const errorOf = (p: Promise<unknown>) => p.then(() => null, (e) => (e instanceof ProviderError ? e : Promise.reject(e)))

describe('Wix', () => {
  const f = startWixFake()
  afterAll(() => f.stop())
  const [account, key] = f.credential.split(/:(.*)/s) as [string, string]

  test('zones are the connected domains Wix holds a zone for and the registered ones; a domain connected by pointing is passed over', async () => {
    f.addZone('connected-wix.example')
    f.addZone('bought-at-wix.example')
    f.registered.add('bought-at-wix.example')
    f.addZone('pointed-wix.example')
    f.pointing.add('pointed-wix.example')
    const names = (await makeHosted('wix', f.credential, { wix: f.url })!.listZones()).map((z) => z.name).sort()
    expect(names).toEqual(['bought-at-wix.example', 'connected-wix.example'])
  })

  test('the key and account id are read in the forms Wix shows them: either order, JSON, NAME=value lines', async () => {
    for (const form of [`${key}:${account}`, JSON.stringify({ accountId: account, apiKey: key }), `WIX_API_KEY=${key}\nWIX_ACCOUNT_ID=${account}`, `${account}\n${key}`]) {
      expect(Array.isArray(await makeHosted('wix', form, { wix: f.url })!.listZones())).toBe(true)
    }
  })

  test('a wrong key (401) and a wrong account id (404 TARGET_ACCOUNT_NOT_FOUND) are the credential, a domain of another account is a zone not reached', async () => {
    expect((await errorOf(makeHosted('wix', `${account}:IST.wrong`, { wix: f.url })!.listZones()))?.kind).toBe('auth')
    const wrongAccount = await errorOf(makeHosted('wix', `${crypto.randomUUID()}:${key}`, { wix: f.url })!.readRecords({ id: 'connected-wix.example', name: 'connected-wix.example' }))
    expect([wrongAccount?.kind, wrongAccount?.message]).toEqual(['auth', expect.stringContaining('TARGET_ACCOUNT_NOT_FOUND')])
    const other = await errorOf(makeHosted('wix', f.credential, { wix: f.url })!.readRecords({ id: 'someone-else.example', name: 'someone-else.example' }))
    expect(other?.kind).toBe('zone_not_found')
  })

  test('a set is replaced by deleting its record object as it stands and adding the new one in one PATCH; the SOA and NS stay', async () => {
    const name = 'replace-wix.example'
    f.addZone(name)
    seedWixZone(name, f)
    const p = makeHosted('wix', f.credential, { wix: f.url })!
    const zone = { id: name, name }
    await p.writeChanges(zone, [{ name, type: 'TXT', ttl: 3600, values: ['a=1'] }])
    const before = f.requests.length
    await p.writeChanges(zone, [{ name, type: 'TXT', ttl: 3600, values: ['a=1', 'b=2'] }])
    expect(f.requests.slice(before)).toEqual([`GET /domains/v1/dns-zones/${name}`, `PATCH /domains/v1/dns-zones/${name}`])
    expect(f.zones.find((z) => z.name === name)!.records.map((r) => `${r.type} ${r.values.join(',')}`).sort()).toEqual(['NS ns0.wixdns.net,ns1.wixdns.net', 'SOA ns0.wixdns.net. support.wix.com. 1 10800 3600 604800 3600', 'TXT a=1,b=2'])
    const e = await errorOf(p.writeChanges(zone, [{ name, type: 'NS', ttl: 3600, values: ['ns.elsewhere.example'] }]))
    expect(e?.kind).toBe('unrepresentable')
  })

  test('a 429 without a wait is backed off and tried again; one that lasts is reported as a rate limit', async () => {
    const p = makeHosted('wix', f.credential, { wix: f.url })!
    f.throttleNext(undefined, 1)
    const started = Date.now()
    expect((await p.listZones()).length).toBeGreaterThan(0)
    expect(Date.now() - started).toBeGreaterThanOrEqual(900)
    const attempts = RETRY_LIMITS.attempts
    RETRY_LIMITS.attempts = 1
    f.throttleNext(undefined, 3)
    const e = await errorOf(p.listZones()).finally(() => {
      RETRY_LIMITS.attempts = attempts
      f.throttleNext(undefined, 0)
    })
    expect(e?.kind).toBe('rate_limited')
  })
})
