// What stands between a domain and its HTTPS certificate, found by the domain check in real PowerDNS
// records: a CAA set that does not let Portico's certificate authority issue (RFC 8659), and an
// `_acme-challenge` CNAME that hands validation elsewhere. Each is a conflict of `kind: certificate`
// with its fix. The CA's identity comes from ACME_CAA_IDENTITIES (or the directory URL's known CA).
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { startPdns, type Pdns } from '../harness/pdns.ts'
import { provision, startPortico, type TestPortico, type Workspace } from '../harness/portico.ts'

const EDGE = 'edge.portico.test'
const CA = 'ca.portico-test.example'
let pdns: Pdns
let p: TestPortico
let ws: Workspace
let seq = 0

beforeAll(async () => {
  pdns = await startPdns()
  p = await startPortico({ DNS_RESOLVERS: pdns.dnsAddress, EDGE_CNAME_TARGET: EDGE, EDGE_APEX_IPV4: '127.0.0.1', ACME_DIRECTORY_URL: 'https://127.0.0.1:14000/dir', ACME_CAA_IDENTITIES: `${CA},other-name.example` })
  ws = await provision(p)
})

afterAll(async () => {
  await p?.close()
})

/** A fresh zone with `records` (name relative to the zone, type, values). */
async function zoneWith(records: [string, string, string[]][]): Promise<string> {
  const zone = `caa${++seq}${Date.now().toString(36)}.test`
  await pdns.createZone(zone)
  for (const [name, type, values] of records) await pdns.setRecords(name === '@' ? zone : `${name}.${zone}`, type, values)
  return zone
}

const check = async (domain: string, body: Record<string, unknown> = {}) => {
  const r = await p.api('POST', '/v1/domains:check', { token: ws.apiKey, body: { domain, ...body } })
  expect(r.status).toBe(200)
  return r.body.conflicts as any[]
}
const certificateConflicts = async (domain: string, body?: Record<string, unknown>) => (await check(domain, body)).filter((c) => c.kind === 'certificate')

describe('certificate conflicts in the domain check', () => {
  test('a CAA set at the apex that allows only another CA: the fix adds Portico\'s CA beside it', async () => {
    const zone = await zoneWith([['@', 'CAA', ['0 issue "letsencrypt.org"', '0 iodef "mailto:sec@example.com"']]])
    expect(await certificateConflicts(`shop.${zone}`)).toEqual([
      {
        kind: 'certificate',
        type: 'CAA',
        host: '@',
        value: '0 iodef "mailto:sec@example.com"\n0 issue "letsencrypt.org"',
        desired: { type: 'CAA', host: '@', value: `0 issue "${CA}"` },
        action: 'add',
        reason: 'caa_forbids_ca',
        blocks_certificate: true,
        fix: expect.stringContaining(`Add a CAA record at ${zone}: 0 issue "${CA}"`),
      },
    ])
    // Once the fix is in place, nothing stands in the way.
    await pdns.setRecords(zone, 'CAA', ['0 issue "letsencrypt.org"', `0 issue "${CA}"`])
    expect(await certificateConflicts(`shop.${zone}`)).toEqual([])
  })

  test('the relevant set is the closest one: the name\'s own wins over the apex\'s', async () => {
    const zone = await zoneWith([
      ['@', 'CAA', ['0 issue ";"']],
      ['shop', 'CAA', [`0 issue "other-name.example"`]],
    ])
    expect(await certificateConflicts(`shop.${zone}`)).toEqual([])
    // A sibling without its own set inherits the apex's "no CA at all".
    const blog = await certificateConflicts(`blog.${zone}`)
    expect(blog.map((c) => [c.host, c.reason, c.value])).toEqual([['@', 'caa_forbids_ca', '0 issue ";"']])
  })

  test('what else forbids: validation methods without HTTP-01, an unknown critical property; what does not: issuewild, iodef alone, CA names in any case', async () => {
    const forbids = ['0 issue "ca.portico-test.example; validationmethods=dns-01"', '128 tbs "x"\n0 issue "ca.portico-test.example"']
    for (const set of forbids) {
      const zone = await zoneWith([['@', 'CAA', set.split('\n')]])
      expect({ set, found: (await certificateConflicts(zone)).map((c) => c.reason) }).toEqual({ set, found: ['caa_forbids_ca'] })
    }
    const permits = ['0 issuewild ";"', '0 iodef "mailto:a@example.com"', '0 issue "CA.Portico-Test.Example"', '0 issue "ca.portico-test.example; validationmethods=http-01,dns-01"', '0 issue "other-name.example"']
    for (const set of permits) {
      const zone = await zoneWith([['@', 'CAA', [set]]])
      expect({ set, found: await certificateConflicts(zone) }).toEqual({ set, found: [] })
    }
  })

  test('with an apex-to-www redirect the www name is judged too', async () => {
    const zone = await zoneWith([['www', 'CAA', ['0 issue "letsencrypt.org"']]])
    expect(await certificateConflicts(zone)).toEqual([])
    expect((await certificateConflicts(zone, { www_redirect: true })).map((c) => c.host)).toEqual(['www'])
  })

  test('an _acme-challenge CNAME delegating validation elsewhere is reported with its fix; HTTP-01 still works, so it does not block', async () => {
    const zone = await zoneWith([['_acme-challenge.shop', 'CNAME', ['shop.acme.other-host.example.']]])
    expect(await certificateConflicts(`shop.${zone}`)).toEqual([
      {
        kind: 'certificate',
        type: 'CNAME',
        host: '_acme-challenge.shop',
        value: 'shop.acme.other-host.example',
        desired: { type: 'CNAME', host: 'shop', value: EDGE },
        action: 'remove',
        reason: 'acme_challenge_delegated',
        blocks_certificate: false,
        fix: expect.stringContaining('Remove this CNAME'),
      },
    ])
    // Routing conflicts keep their shape, with `kind: routing`.
    await pdns.setRecords(`shop.${zone}`, 'A', ['198.51.100.9'])
    expect((await check(`shop.${zone}`)).map((c) => [c.kind, c.type, c.host])).toEqual([
      ['routing', 'A', 'shop'],
      ['certificate', 'CNAME', '_acme-challenge.shop'],
    ])
  })

  test('a name whose current CNAME will be replaced is judged by its own zone, not by where the CNAME leads today', async () => {
    const zone = await zoneWith([
      ['old', 'CAA', ['0 issue ";"']],
      ['shop', 'CNAME', [`old.ZONE.`]],
    ])
    await pdns.setRecords(`shop.${zone}`, 'CNAME', [`old.${zone}.`])
    const conflicts = await check(`shop.${zone}`)
    expect(conflicts.filter((c) => c.kind === 'certificate')).toEqual([])
    expect(conflicts.map((c) => [c.kind, c.type, c.action])).toEqual([['routing', 'CNAME', 'replace']])
  })
})

describe('a live connection says whether its HTTPS is served', () => {
  test('live with no certificate yet is not secure; the edge serving it is (test/integration/certificates-on-live.test.ts)', async () => {
    const zone = await zoneWith([['shop', 'CNAME', [`${EDGE}.`]]])
    const c = await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: `shop.${zone}` } })
    const live = await p.api('POST', `/v1/connections/${c.body.id}:recheck`, { token: ws.apiKey })
    expect(live.body).toMatchObject({ status: 'live', certificate_status: null, secure: false })
    // A pending certificate: still not secure.
    await p.db`update connections set certificate_status = 'pending' where id = ${c.body.id}`
    expect((await p.api('GET', `/v1/connections/${c.body.id}`, { token: ws.apiKey })).body).toMatchObject({ certificate_status: 'pending', secure: false })
    // Issued but not yet accepted by the edge: still not secure.
    await p.db`update connections set certificate_status = 'issued' where id = ${c.body.id}`
    expect((await p.api('GET', `/v1/connections/${c.body.id}`, { token: ws.apiKey })).body.secure).toBe(false)
  })
})

describe('without a known CA identity (the edge\'s own issuers)', () => {
  test('only a CAA set that allows no CA at all is reported (remove it); a set allowing some CA and an _acme-challenge delegation are not judged', async () => {
    const none = await startPortico({ DNS_RESOLVERS: pdns.dnsAddress, EDGE_CNAME_TARGET: EDGE })
    try {
      const w = await provision(none)
      const check = async (domain: string) => (await none.api('POST', '/v1/domains:check', { token: w.apiKey, body: { domain } })).body.conflicts
      const forbidden = await zoneWith([['@', 'CAA', ['0 issue ";"', '0 issue "ca.invalid"']], ['_acme-challenge.shop', 'CNAME', ['x.other.example.']]])
      expect(await check(`shop.${forbidden}`)).toEqual([
        expect.objectContaining({ kind: 'certificate', type: 'CAA', host: '@', action: 'remove', reason: 'caa_forbids_ca', blocks_certificate: true, desired: { type: 'CAA', host: '@', value: '' } }),
      ])
      const some = await zoneWith([['@', 'CAA', ['0 issue "letsencrypt.org"']], ['_acme-challenge.shop', 'CNAME', ['x.other.example.']]])
      expect(await check(`shop.${some}`)).toEqual([])
    } finally {
      await none.close()
    }
  })
})
