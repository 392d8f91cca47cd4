// Pre-validation through delegated DCV, end to end with real daemons: PowerDNS serves the customer's
// zone and Portico's DCV zone, Pebble resolves through it and validates DNS-01 there, Caddy serves
// the certificate. The connection asks for the ownership TXT and the `_acme-challenge` delegation
// first, has its certificate on the edge before it asks for the routing record, and says which stage
// it is in at each step, with an event for each change.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { provision, type Workspace } from '../harness/portico.ts'
import { liveConnection, startServed, type Served } from '../harness/served.ts'
import { startPdns } from '../harness/pdns.ts'
import { sharedPortico } from '../harness/portico.ts'

let s: Served
let ws: Workspace
const tag = Date.now().toString(36)
const zone = `prev${tag}.test`
const dcvZone = `dcv${tag}.test`

beforeAll(async () => {
  const pdns = await startPdns()
  await pdns.createZone(dcvZone)
  s = await startServed(zone, { PORTICO_ROLE: 'all', DCV_ZONE: dcvZone, DCV_PDNS_API_URL: pdns.apiUrl, DCV_PDNS_API_KEY: pdns.apiKey })
  ws = await provision(s.p)
})

afterAll(async () => {
  await s?.stop()
})

const fqdn = (host: string) => `${host}.${zone}`
/** Adds records as the customer would at their DNS host (here, PowerDNS). */
async function add(records: { type: string; host: string; value: string }[]): Promise<void> {
  for (const r of records) await s.pdns.setRecords(r.host === '@' ? zone : fqdn(r.host), r.type, [r.type === 'CNAME' ? `${r.value}.` : r.type === 'TXT' ? `"${r.value}"` : r.value])
}

async function until<T>(what: string, fn: () => Promise<T | null | undefined | false>, withinMs = 30_000): Promise<T> {
  const end = performance.now() + withinMs
  for (;;) {
    const v = await fn()
    if (v) return v
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(100)
  }
}

describe('validation before cutover', () => {
  test('asks for the TXT and the delegation first, serves the certificate before asking for the routing record, then goes live on it', async () => {
    const domain = fqdn('shop')
    const created = await s.p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain, validation: 'before_cutover' } })
    expect(created.status).toBe(201)
    const c = created.body
    expect(c).toMatchObject({ validation: 'before_cutover', validation_stage: 'awaiting_records', status: 'pending' })
    // Step one only: the ownership TXT and the delegation; no routing record is asked for yet.
    expect(c.records.map((r: { type: string; host: string }) => `${r.type} ${r.host}`).sort()).toEqual(['CNAME _acme-challenge.shop', 'TXT _portico-challenge.shop'])
    const delegation = c.records.find((r: { type: string }) => r.type === 'CNAME')
    expect(delegation.value).toMatch(new RegExp(`^d[0-9a-f]{19}\\.${dcvZone.replace('.', '\\.')}$`))
    const steps = (await s.p.api('GET', `/v1/connections/${c.id}/records`, { token: ws.apiKey })).body.steps
    expect(steps.map((x: { step: string; done: boolean; asked?: boolean }) => [x.step, x.done, x.asked ?? null])).toEqual([['prove', false, null], ['route', false, false]])
    expect(steps[1].records).toEqual([expect.objectContaining({ type: 'CNAME', host: 'shop', value: s.edgeHost })])

    await add(c.records)
    const rechecked = await s.p.api('POST', `/v1/connections/${c.id}:recheck`, { token: ws.apiKey })
    // Proven is not live: the routing record is not there, and nothing would serve it yet.
    expect(rechecked.body.status).toBe('propagating')
    expect(['issuing', 'awaiting_routing']).toContain(rechecked.body.validation_stage)

    const routing = await until('awaiting_routing', async () => {
      const r = (await s.p.api('GET', `/v1/connections/${c.id}`, { token: ws.apiKey })).body
      return r.validation_stage === 'awaiting_routing' ? r : null
    })
    // The routing record is asked for now, beside the first step's.
    expect(routing.records.map((r: { type: string; host: string }) => `${r.type} ${r.host}`).sort()).toEqual(['CNAME _acme-challenge.shop', 'CNAME shop', 'TXT _portico-challenge.shop'])
    // Before any routing record exists, the edge already serves a valid certificate for the name.
    // (The edge holds it; Caddy takes a moment to load what its admin API accepted.)
    let served = ''
    for (let i = 0; i < 30 && !served; i++) {
      served = await s.viaEdge(domain).then((r) => r.names, () => '')
      if (!served) await Bun.sleep(200)
    }
    expect(served).toContain(domain)
    const cert = (await s.p.api('GET', `/v1/connections/${c.id}/ssl`, { token: ws.apiKey })).body.certificate
    expect(cert).toMatchObject({ status: 'issued', names: [domain], managed: true })
    const [{ challenge }] = await s.p.db`select challenge from certificates where id = ${cert.id}`
    expect(challenge).toBe('dns-01')
    // The DCV zone holds no answer once the order is done.
    expect((await s.pdns.listRecords(dcvZone)).filter((r) => r.type === 'TXT')).toEqual([])

    await add(routing.records.filter((r: { host: string }) => r.host === 'shop'))
    const live = await s.p.api('POST', `/v1/connections/${c.id}:recheck`, { token: ws.apiKey })
    expect(live.body).toMatchObject({ status: 'live', validation_stage: 'complete' })
    const events = (await s.p.db`select payload from events where connection_id = ${c.id} and type = 'connection.validation_stage' order by id`) as { payload: { data: { stage: string; previous: string } } }[]
    expect(events.map((e) => `${e.payload.data.previous}>${e.payload.data.stage}`)).toEqual(['awaiting_records>issuing', 'issuing>awaiting_routing', 'awaiting_routing>complete'])
    // No second order when it went live: the certificate it had is the one served.
    expect((await s.p.api('GET', `/v1/connections/${c.id}/ssl`, { token: ws.apiKey })).body.certificate.id).toBe(cert.id)
  }, 60_000)

  test('the domain check answers the two steps in order, and names the delegation Portico will ask for', async () => {
    const r = await s.p.api('POST', '/v1/domains:check', { token: ws.apiKey, body: { domain: fqdn('blog'), validation: 'before_cutover' } })
    expect(r.status).toBe(200)
    expect(r.body.validation).toMatchObject({ mode: 'before_cutover', available: true })
    expect(r.body.validation.steps.map((x: { step: string; records: { type: string; host: string }[] }) => [x.step, x.records.map((d) => `${d.type} ${d.host}`)])).toEqual([
      ['prove', ['TXT _portico-challenge.blog', 'CNAME _acme-challenge.blog']],
      ['route', ['CNAME blog']],
    ])
    expect(r.body.validation.steps[0].records[1].value).toBe(`<label issued at connect>.${dcvZone}`)
    // The first step is what the connection will carry first.
    expect(r.body.desired_records).toEqual(r.body.validation.steps[0].records)
    // A delegation already pointing into Portico's DCV zone is Portico's own, not a conflict.
    await s.pdns.setRecords(`_acme-challenge.${fqdn('blog')}`, 'CNAME', [`dabc.${dcvZone}.`])
    const again = await s.p.api('POST', '/v1/domains:check', { token: ws.apiKey, body: { domain: fqdn('blog'), validation: 'before_cutover' } })
    expect(again.body.conflicts).toEqual([])
    // One pointing elsewhere blocks the certificate: DNS-01 could not be answered.
    await s.pdns.setRecords(`_acme-challenge.${fqdn('blog')}`, 'CNAME', ['elsewhere.example.'])
    const other = await s.p.api('POST', '/v1/domains:check', { token: ws.apiKey, body: { domain: fqdn('blog'), validation: 'before_cutover' } })
    expect(other.body.conflicts).toEqual([expect.objectContaining({ reason: 'acme_challenge_delegated', blocks_certificate: true })])
  })

  test('the share page shows the two steps in order, the first one current', async () => {
    const c = (await s.p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: fqdn('docs'), validation: 'before_cutover' } })).body
    const link = (await s.p.api('POST', `/v1/connections/${c.id}/share`, { token: ws.apiKey })).body
    expect((await s.p.api('GET', `/v1/share/${link.token}`)).body.validation_stage).toBe('awaiting_records')
    for (const [lang, first] of [['en', 'Step 1 of 2'], ['de', 'Schritt 1 von 2'], ['ar', 'الخطوة 1 من 2']] as const) {
      const page = await s.p.app.handle(new Request(`http://portico.test/share/${link.token}?lang=${lang}`))
      expect(page.status).toBe(200)
      const html = await page.text()
      const stages = /<ol id="share-stages" class="stages">(.*?)<\/ol>/.exec(html)?.[1] ?? ''
      const items = [...stages.matchAll(/<li([^>]*)>(.*?)<\/li>/g)]
      expect(items).toHaveLength(2)
      expect(items[0]![1]).toContain('aria-current="step"')
      expect(items[0]![2]).toContain(first)
      expect(items[1]![1]).not.toContain('aria-current')
      // The steps come before the records they ask for.
      expect(html.indexOf('share-stages')).toBeLessThan(html.indexOf('share-records-h'))
    }
  })

  test('a wildcard connection: one certificate by DNS-01 serves every label, the name below it and a named host keep their own', async () => {
    const wildcard = `*.wild.${zone}`
    const created = await s.p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: wildcard } })
    expect(created.status).toBe(201)
    const c = created.body
    // DNS-01 is the only way to validate a wildcard: the delegation comes first, whatever was asked.
    expect(c).toMatchObject({ domain: wildcard, subdomain: '*.wild', validation: 'before_cutover', validation_stage: 'awaiting_records' })
    expect(c.records.map((r: { type: string; host: string }) => `${r.type} ${r.host}`).sort()).toEqual(['CNAME _acme-challenge.wild', 'TXT _portico-challenge.wild'])
    expect((await s.p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: `*.other.${zone}`, validation: 'http' } })).body).toMatchObject({ code: 'invalid_request' })
    await add(c.records)
    await s.p.api('POST', `/v1/connections/${c.id}:recheck`, { token: ws.apiKey })
    const routing = await until('awaiting_routing', async () => {
      const r = (await s.p.api('GET', `/v1/connections/${c.id}`, { token: ws.apiKey })).body
      return r.validation_stage === 'awaiting_routing' ? r : null
    })
    const route = routing.records.find((r: { host: string }) => r.host === '*.wild')
    expect(route).toMatchObject({ type: 'CNAME', value: s.edgeHost })
    await add([route])
    expect((await s.p.api('POST', `/v1/connections/${c.id}:recheck`, { token: ws.apiKey })).body).toMatchObject({ status: 'live', validation_stage: 'complete' })
    expect((await s.p.api('GET', `/v1/connections/${c.id}/ssl`, { token: ws.apiKey })).body.certificate.names).toEqual([wildcard])

    // The name below the wildcard and a named host beside it: connected on the usual path, each with its own certificate.
    const base = await liveConnection(s.p, s.pdns, ws.apiKey, zone, `wild.${zone}`)
    const named = await liveConnection(s.p, s.pdns, ws.apiKey, zone, `named.wild.${zone}`)
    for (const id of [base, named]) await until('its own certificate', async () => (await s.p.api('GET', `/v1/connections/${id}/ssl`, { token: ws.apiKey })).body.certificate?.status === 'issued')

    const served = async (host: string) => until(`the edge to serve ${host}`, () => s.viaEdge(host).then((r) => r, () => null))
    const [a, b, below, beside] = [await served(`a.wild.${zone}`), await served(`b.wild.${zone}`), await served(`wild.${zone}`), await served(`named.wild.${zone}`)]
    // One certificate for two different labels.
    expect(a.fingerprint).toBe(b.fingerprint)
    expect(a.names).toBe(`DNS:${wildcard}`)
    // The others are not served the wildcard's.
    expect(below.names).toBe(`DNS:wild.${zone}`)
    expect(beside.names).toBe(`DNS:named.wild.${zone}`)
    expect(new Set([a.fingerprint, below.fingerprint, beside.fingerprint]).size).toBe(3)
  }, 90_000)

  test('a connection that failed in the first step, revived, takes up the first step again: proving is still not live', async () => {
    const c = (await s.p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: fqdn('late'), validation: 'before_cutover' } })).body
    await s.p.api('POST', `/v1/connections/${c.id}:recheck`, { token: ws.apiKey })
    s.p.clock.advance(25 * 3_600_000)
    try {
      expect((await s.p.api('POST', `/v1/connections/${c.id}:recheck`, { token: ws.apiKey })).body).toMatchObject({ status: 'failed', validation_stage: 'failed', error_code: 'propagation_timeout' })
      await add(c.records)
      const revived = (await s.p.api('POST', `/v1/connections/${c.id}:recheck`, { token: ws.apiKey })).body
      expect(revived.status).toBe('propagating')
      expect(['issuing', 'awaiting_routing']).toContain(revived.validation_stage)
      const events = (await s.p.db`select payload from events where connection_id = ${c.id} and type = 'connection.validation_stage' order by id`) as { payload: { data: { stage: string } } }[]
      expect(events.map((e) => e.payload.data.stage).slice(0, 3)).toEqual(['failed', 'awaiting_records', 'issuing'])
    } finally {
      s.p.clock.reset()
    }
  })

  test('a custom routing set sent before cutover replaces the held routing records, not the first step', async () => {
    const c = (await s.p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: fqdn('custom'), validation: 'before_cutover' } })).body
    const mine = [{ type: 'CNAME', host: 'custom', value: `elsewhere.${zone}` }]
    const put = await s.p.api('PUT', `/v1/connections/${c.id}/records`, { token: ws.apiKey, body: { records: mine } })
    expect(put.status).toBe(200)
    expect(put.body.records).toEqual(c.records)
    expect(put.body.steps[1].records).toEqual(mine)
    expect((await s.p.api('GET', `/v1/connections/${c.id}`, { token: ws.apiKey })).body).toMatchObject({ records: c.records, records_source: 'custom', validation_stage: 'awaiting_records' })
  })

  test('a deployment without delegated DCV refuses it, and says why', async () => {
    const bare = await sharedPortico()
    const key = (await provision(bare)).apiKey
    const r = await bare.api('POST', '/v1/connections', { token: key, body: { domain: 'shop.example.com', validation: 'before_cutover' } })
    expect(r.status).toBe(400)
    expect(r.body).toMatchObject({ code: 'invalid_request', details: { reason: 'dcv_not_configured' } })
  })
})
