// Verification asks each zone's own nameservers, without recursion, so no resolver cache stands
// between a customer's DNS change and Portico. Real PowerDNS answers on port 53 of loopback addresses
// as the zones' nameservers; a real PowerDNS Recursor stands in front of it as DNS_RESOLVERS, with its
// negative cache at its default, as production has.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { randomBytes } from 'node:crypto'
import { AUTH_NAMESERVERS, DEFAULT_NAMESERVERS, startOtherPdns, startPdns, type Pdns } from '../harness/pdns.ts'
import { startRecursor, type Recursor } from '../harness/recursor.ts'
import { provision, startPortico, type TestPortico } from '../harness/portico.ts'
import { Resolver } from '../../src/adapters/resolver.ts'
import { AuthoritativeDns } from '../../src/adapters/authoritative.ts'
import { verifyRecords } from '../../src/domain/verify.ts'

const EDGE = 'edge.portico.test'
const tag = Date.now().toString(36)
let pdns: Pdns
let other: Pdns
let recursor: Recursor
let viaRecursor: Resolver
let auth: AuthoritativeDns

/** An address on loopback where nothing listens on port 53: a nameserver that is down. */
const deadAddress = () => `127.${64 + (randomBytes(1)[0]! & 63)}.${randomBytes(1)[0]}.${1 + (randomBytes(1)[0]! % 254)}`

beforeAll(async () => {
  pdns = await startPdns()
  if (pdns.nsAddresses.length === 0) throw new Error('these tests run as root: the nameservers listen on port 53')
  recursor = await startRecursor(`${pdns.nsAddresses[0]}:53`)
  viaRecursor = new Resolver({ servers: [recursor.address], timeoutMs: 800 })
  auth = new AuthoritativeDns(viaRecursor)
})

afterAll(async () => {
  await viaRecursor?.close()
  await recursor?.stop()
  await other?.stop()
})

const cname = (host: string) => [{ type: 'CNAME' as const, host, value: EDGE, ttl: 300 }]

describe('lookups at the zone’s own nameservers', () => {
  test('a zone delegated to servers with addresses is asked directly', async () => {
    const zone = `direct${tag}.test`
    await pdns.createZone(zone, { nameservers: AUTH_NAMESERVERS })
    await pdns.setRecords(`shop.${zone}`, 'CNAME', [`${EDGE}.`])
    expect(await auth.lookup(`shop.${zone}`, 'CNAME')).toEqual({ status: 'ok', values: [EDGE], via: 'authoritative' })
    expect(await auth.lookup(`none.${zone}`, 'CNAME')).toEqual({ status: 'nxdomain', via: 'authoritative' })
  })

  test('behind a caching recursor, a name asked while missing is seen the moment it is written', async () => {
    const zone = `negcache${tag}.test`
    await pdns.createZone(zone, { nameservers: AUTH_NAMESERVERS })
    const name = `shop.${zone}`
    expect((await viaRecursor.lookup(name, 'CNAME')).status).toBe('nxdomain')
    expect((await auth.lookup(name, 'CNAME')).status).toBe('nxdomain')
    await pdns.setRecords(name, 'CNAME', [`${EDGE}.`])
    // The recursor keeps its cached NXDOMAIN (the zone's negative TTL is an hour) ...
    expect((await viaRecursor.lookup(name, 'CNAME')).status).toBe('nxdomain')
    // ... while the zone's own servers answer the new record.
    expect(await auth.lookup(name, 'CNAME')).toEqual({ status: 'ok', values: [EDGE], via: 'authoritative' })
    const v = await verifyRecords(auth, zone, cname('shop'))
    expect(v).toMatchObject({ outcome: 'all', via: 'authoritative' })
  })

  test('a CNAME leaving the zone is followed at the target zone’s servers', async () => {
    const [a, b] = [`alias${tag}.test`, `target${tag}.test`]
    await pdns.createZone(a, { nameservers: AUTH_NAMESERVERS })
    await pdns.createZone(b, { nameservers: AUTH_NAMESERVERS })
    await pdns.setRecords(`www.${a}`, 'CNAME', [`app.${b}.`])
    await pdns.setRecords(`app.${b}`, 'A', ['192.0.2.7'])
    expect(await auth.lookup(`www.${a}`, 'A')).toEqual({ status: 'ok', values: ['192.0.2.7'], cname: `app.${b}`, via: 'authoritative' })
  })

  test('a lame delegation (one of two nameservers down) is inconclusive, naming the server, never "not propagated"', async () => {
    const zone = `lame${tag}.test`
    const lame = `lame${tag}.auth.test.`
    await pdns.setRecords(lame, 'A', [deadAddress()])
    await pdns.createZone(zone, { nameservers: [AUTH_NAMESERVERS[0]!, lame] })
    const v = await verifyRecords(auth, zone, cname('shop'))
    expect(v.outcome).toBe('inconclusive')
    expect(v.error).toContain(`lame${tag}.auth.test`)
    expect(v.error).toContain('timeout')
    // The record appearing at the server that answers does not make a verdict either.
    await pdns.setRecords(`shop.${zone}`, 'CNAME', [`${EDGE}.`])
    expect((await verifyRecords(auth, zone, cname('shop'))).outcome).toBe('inconclusive')
  })

  test('a zone whose only nameservers do not answer is inconclusive, naming them; the resolvers\' NXDOMAIN is not a verdict', async () => {
    const zone = `silent${tag}.test`
    const [a, b] = [`silent-a${tag}.auth.test.`, `silent-b${tag}.auth.test.`]
    await pdns.setRecords(a, 'A', [deadAddress()])
    await pdns.setRecords(b, 'A', [deadAddress()])
    await pdns.createZone(zone, { nameservers: [a, b] })
    // The recursor answers for the name (its own view: NXDOMAIN, or a failure) ...
    expect(['nxdomain', 'error']).toContain((await viaRecursor.lookup(`shop.${zone}`, 'CNAME')).status)
    // ... and the check says the zone could not be asked, and which servers did not answer.
    const v = await verifyRecords(auth, zone, cname('shop'))
    expect(v.outcome).toBe('inconclusive')
    expect(v.via).toBe('authoritative')
    expect(v.error).toContain(`no nameserver of ${zone} could be asked`)
    expect(v.error).toContain(`silent-a${tag}.auth.test`)
    expect(v.error).toContain(`silent-b${tag}.auth.test`)
  })

  test('two nameservers that disagree are inconclusive, naming both and what each said', async () => {
    other = await startOtherPdns()
    const zone = `split${tag}.test`
    const second = `other${tag}.auth.test.`
    await pdns.setRecords(second, 'A', [other.nsAddresses[0]!])
    const ns = [AUTH_NAMESERVERS[0]!, second]
    await pdns.createZone(zone, { nameservers: ns })
    await other.createZone(zone, { nameservers: ns })
    await pdns.setRecords(`shop.${zone}`, 'CNAME', [`${EDGE}.`])
    await other.setRecords(`shop.${zone}`, 'CNAME', ['old-host.example.'])
    const v = await verifyRecords(auth, zone, cname('shop'))
    expect(v.outcome).toBe('inconclusive')
    expect(v.error).toContain('disagree')
    expect(v.error).toContain(`${AUTH_NAMESERVERS[0]!.slice(0, -1)} (${pdns.nsAddresses[0]}:53): ${EDGE}`)
    expect(v.error).toContain(`other${tag}.auth.test (${other.nsAddresses[0]}:53): old-host.example`)
    // Once they agree, the check has its verdict.
    await other.setRecords(`shop.${zone}`, 'CNAME', [`${EDGE}.`])
    expect((await verifyRecords(auth, zone, cname('shop'))).outcome).toBe('all')
  })

  test('a zone whose nameservers have no address is read through the resolvers, and the result says so', async () => {
    const zone = `noaddr${tag}.test`
    await pdns.createZone(zone, { nameservers: DEFAULT_NAMESERVERS })
    await pdns.setRecords(`shop.${zone}`, 'CNAME', [`${EDGE}.`])
    // Straight at the authoritative server as the resolver (a recursor would fail on the lame
    // delegation itself): the zone's servers cannot be asked, so the resolver's view decides.
    const direct = new Resolver({ servers: [pdns.dnsAddress] })
    try {
      expect(await verifyRecords(new AuthoritativeDns(direct), zone, cname('shop'))).toMatchObject({ outcome: 'all', via: 'recursive' })
    } finally {
      await direct.close()
    }
  })
})

describe('through Portico, behind a caching recursor', () => {
  let p: TestPortico

  afterAll(async () => {
    await p?.close()
  })

  test('a name first checked while missing goes live within 10 s of its record being added, without a click', async () => {
    p = await startPortico({ DNS_RESOLVERS: recursor.address, EDGE_CNAME_TARGET: EDGE, PORTICO_ROLE: 'all' })
    const ws = await provision(p)
    const zone = `noclick${tag}.test`
    await pdns.createZone(zone, { nameservers: AUTH_NAMESERVERS })
    const c = await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: `shop.${zone}` } })
    expect(c.status).toBe(201)
    expect(c.body.status).toBe('pending')
    // The first check asked for the name before it existed: the recursor now caches NXDOMAIN for it.
    expect((await viaRecursor.lookup(`shop.${zone}`, 'CNAME')).status).toBe('nxdomain')
    await Bun.sleep(1000)
    await pdns.setRecords(`shop.${zone}`, 'CNAME', [`${EDGE}.`])
    const written = performance.now()
    let body: any = c.body
    while (body.status !== 'live' && performance.now() - written < 15_000) {
      await Bun.sleep(100)
      body = (await p.api('GET', `/v1/connections/${c.body.id}`, { token: ws.apiKey })).body
    }
    expect(body.status).toBe('live')
    expect(performance.now() - written).toBeLessThan(10_000)
    expect(body.propagation.checked_via).toBe('authoritative')
    expect((await viaRecursor.lookup(`shop.${zone}`, 'CNAME')).status).toBe('nxdomain')
  }, 30_000)
})
