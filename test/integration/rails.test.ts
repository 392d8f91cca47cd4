// The API-credential rail over a real PowerDNS: apply keeps CAA and TXT and merges SPF, re-applying
// the same set writes nothing, disconnect restores the zone exactly, a wrong key and a zone outside
// the key are told apart; provider accounts (continuous, one-time, needs_reconnect), managed
// re-apply, managed revert and the monitor's repair through the grant.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { startPdns, type Pdns, type PdnsRecord } from '../harness/pdns.ts'
import { provision, startPortico, type TestPortico, type Workspace } from '../harness/portico.ts'
import { sweepMonitor } from '../../src/jobs/monitor-sweep.ts'
import { MIN_GAP_MS } from '../../src/domain/monitor.ts'
import { HOUR } from '../../src/clock.ts'
import { HOSTED } from '../../src/adapters/dns-providers/index.ts'
import { eventsAlong } from '../../src/domain/transitions.ts'

const EDGE = 'edge.portico.test'
const EDGE_IPS = ['203.0.114.10', '203.0.114.11']
let pdns: Pdns
let p: TestPortico
let ws: Workspace
let seq = 0
const fresh = () => `r${Date.now().toString(36)}${++seq}.test`

beforeAll(async () => {
  pdns = await startPdns()
  p = await startPortico({ DNS_RESOLVERS: pdns.dnsAddress, EDGE_CNAME_TARGET: EDGE, EDGE_APEX_IPV4: EDGE_IPS.join(','), WEBHOOK_ALLOW_LOOPBACK: '1' })
  ws = await provision(p)
})

afterAll(async () => {
  await p?.close()
})

/** The zone's records without the SOA (PowerDNS bumps its serial on every API edit). */
async function snapshot(zone: string): Promise<string[]> {
  return (await pdns.listRecords(zone)).filter((r: PdnsRecord) => r.type !== 'SOA').map((r) => `${r.name} ${r.type} ${r.ttl} ${r.content}`).sort()
}
const rrset = async (name: string, type: string) => (await pdns.listRecords(name.split('.').slice(-2).join('.'))).filter((r) => r.name === `${name}.` && r.type === type).map((r) => r.content).sort()
const events = async (id: string) => (await p.db`select type, payload from events where connection_id = ${id} order by id`) as { type: string; payload: any }[]
const pdnsCred = (key = pdns.apiKey) => ({ credential: key, api_url: pdns.apiUrl })

async function connect(domain: string, token = ws.apiKey) {
  const c = await p.api('POST', '/v1/connections', { token, body: { domain } })
  expect(c.status).toBe(201)
  return c.body as { id: string; records: any[] }
}

describe('domain check', () => {
  test('PowerDNS needs the integrator\'s API URL, so the end-user API-credential rail is not advertised for it', async () => {
    const zone = fresh()
    await pdns.createZone(zone)
    const r = await p.api('POST', '/v1/domains:check', { token: ws.apiKey, body: { domain: `shop.${zone}` } })
    expect(r.body.provider).toBe('powerdns')
    expect(r.body.rails.apiKey.available).toBe(false)
    expect(r.body.recommended_rail).toBe('manual')
    // Every hosted adapter is advertised (rails-providers.test.ts checks one end to end); PowerDNS is not.
    expect([...p.services.connectAdapters.apiKey].sort()).toEqual(Object.keys(HOSTED).sort())
    expect(p.services.connectAdapters.apiKey.has('powerdns')).toBe(false)
  })
})

describe('apply with a one-time credential', () => {
  test('keeps CAA and TXT, merges SPF, is idempotent, and disconnect restores the zone exactly', async () => {
    const zone = fresh()
    await pdns.createZone(zone)
    await pdns.setRecords(zone, 'CAA', ['0 issue "letsencrypt.org"'], 3600)
    await pdns.setRecords(zone, 'TXT', ['"v=spf1 include:_spf.google.com ~all"', '"google-site-verification=abc123"'], 3600)
    await pdns.setRecords(zone, 'A', ['198.51.100.1'], 600)
    await pdns.setRecords(zone, 'MX', ['10 mx.example.net.'], 3600)
    await pdns.setRecords(`www.${zone}`, 'A', ['198.51.100.2'], 600)
    const before = await snapshot(zone)

    const c = await connect(zone)
    const records = [...c.records, { type: 'SPFM', host: '@', value: 'include:_spf.portico.test' }, { type: 'CNAME', host: 'www', value: EDGE }]
    expect((await p.api('PUT', `/v1/connections/${c.id}/records`, { token: ws.apiKey, body: { records } })).status).toBe(200)

    const applied = await p.api('POST', `/v1/connections/${c.id}/apply`, { token: ws.apiKey, body: pdnsCred() })
    expect(applied.status).toBe(200)
    expect(applied.body).toMatchObject({ changed: true, zone, account: null })
    expect(applied.body.connection).toMatchObject({ rail: 'api', managed: false, status: 'propagating', error_code: null })
    expect(await rrset(zone, 'CAA')).toEqual(['0 issue "letsencrypt.org"'])
    expect(await rrset(zone, 'TXT')).toEqual(['"google-site-verification=abc123"', '"v=spf1 include:_spf.google.com include:_spf.portico.test ~all"'])
    expect(await rrset(zone, 'A')).toEqual(EDGE_IPS)
    expect(await rrset(zone, 'MX')).toEqual(['10 mx.example.net.'])
    expect(await rrset(`www.${zone}`, 'CNAME')).toEqual([`${EDGE}.`])
    expect(await rrset(`www.${zone}`, 'A')).toEqual([])
    const token = c.records.find((r: any) => r.purpose === 'ownership').value
    expect(await rrset(`_portico-challenge.${zone}`, 'TXT')).toEqual([`"${token}"`])
    const ev = await events(c.id)
    expect(ev.map((e) => e.type)).toEqual(eventsAlong('created', 'records_replaced', 'records_written'))
    const appliedEv = ev.find((e) => e.type === 'connection.applied')!
    expect(appliedEv.payload.data.via).toBeUndefined()
    expect(appliedEv.payload.data.updated_objects).toContainEqual({ type: 'CNAME', host: 'www', name: `www.${zone}`, value: EDGE })

    // The same set again: 200, nothing written, no second event.
    const afterApply = await snapshot(zone)
    const again = await p.api('POST', `/v1/connections/${c.id}/apply`, { token: ws.apiKey, body: pdnsCred() })
    expect(again.status).toBe(200)
    expect(again.body).toMatchObject({ changed: false, updated_objects: [] })
    expect(await snapshot(zone)).toEqual(afterApply)
    expect((await events(c.id)).map((e) => e.type)).toEqual(eventsAlong('created', 'records_replaced', 'records_written', 'records_rewritten'))

    const live = await p.api('POST', `/v1/connections/${c.id}:recheck`, { token: ws.apiKey })
    expect(live.body.status).toBe('live')

    // No grant is held: removing needs the credential once; the refusal carries the removal plan.
    const refused = await p.api('DELETE', `/v1/connections/${c.id}`, { token: ws.apiKey })
    expect(refused.status).toBe(409)
    expect(refused.body.code).toBe('reauthorization_required')
    expect(refused.body.plan).toMatchObject({ connection_id: c.id, domain: zone, provider: 'powerdns', record_removal: 'automatic', default_choice: 'remove', removed: false })
    const aPlan = refused.body.plan.records.find((r: any) => r.type === 'A' && r.host === '@')
    expect(aPlan).toMatchObject({ change: 'replaced', action: 'delete', prior_source: 'provider', prior: [{ type: 'A', value: '198.51.100.1', ttl: 600, priority: null }] })
    expect(await snapshot(zone)).toEqual(afterApply) // nothing removed

    const wrong = await p.api('POST', `/v1/connections/${c.id}:disconnect`, { token: ws.apiKey, body: { credential: 'not-the-key' } })
    expect(wrong.status).toBe(409)
    expect(wrong.body.code).toBe('reauthorization_required')

    const out = await p.api('POST', `/v1/connections/${c.id}:disconnect`, { token: ws.apiKey, body: { credential: pdns.apiKey } })
    expect(out.status).toBe(200)
    expect(out.body.records).toMatchObject({ choice: 'remove', outcome: 'removed', via: 'api', left_in_place: [], failed: [] })
    expect(out.body.records.restored).toContainEqual({ type: 'A', name: zone, value: '198.51.100.1', note: expect.any(String) })
    expect(await snapshot(zone)).toEqual(before)
    const again2 = await p.api('POST', `/v1/connections/${c.id}:disconnect`, { token: ws.apiKey, body: { credential: pdns.apiKey } })
    expect(again2.body).toEqual(out.body)
    expect(JSON.stringify(await p.db`select details from audit_log where target_id = ${c.id}`)).not.toContain(pdns.apiKey)
  })

  test('concurrent applies are serialised: the prior is the zone before either, and disconnect restores it', async () => {
    const zone = fresh()
    await pdns.createZone(zone)
    await pdns.setRecords(`shop.${zone}`, 'A', ['198.51.100.9'], 600)
    const before = await snapshot(zone)
    const c = await connect(`shop.${zone}`)
    const results = await Promise.all([1, 2, 3].map(() => p.api('POST', `/v1/connections/${c.id}/apply`, { token: ws.apiKey, body: pdnsCred() })))
    const statuses = results.map((r) => r.status)
    expect(statuses).toContain(200)
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true)
    for (const r of results.filter((r) => r.status === 409)) expect(r.body.details.reason).toBe('write_in_progress')
    const out = await p.api('POST', `/v1/connections/${c.id}:disconnect`, { token: ws.apiKey, body: { credential: pdns.apiKey } })
    expect(out.status).toBe(200)
    expect(await snapshot(zone)).toEqual(before)
  })

  test('a wrong key is ProviderAuthenticationError, recorded as the diagnosis; nothing is written', async () => {
    const zone = fresh()
    await pdns.createZone(zone)
    const before = await snapshot(zone)
    const c = await connect(`shop.${zone}`)
    const r = await p.api('POST', `/v1/connections/${c.id}/apply`, { token: ws.apiKey, body: pdnsCred('wrong-key') })
    expect(r.status).toBe(422)
    expect(r.body.code).toBe('ProviderAuthenticationError')
    expect(JSON.stringify(r.body)).not.toContain('wrong-key')
    const got = await p.api('GET', `/v1/connections/${c.id}`, { token: ws.apiKey })
    expect(got.body).toMatchObject({ status: 'pending', rail: 'manual', error_code: 'ProviderAuthenticationError' })
    expect(await snapshot(zone)).toEqual(before)
  })

  test('a zone the key does not reach is zone_not_reached', async () => {
    const zone = fresh()
    await pdns.createZone(zone)
    const c = await connect(`shop.${zone}`)
    await pdns.deleteZone(zone) // the key's server no longer holds the zone
    const r = await p.api('POST', `/v1/connections/${c.id}/apply`, { token: ws.apiKey, body: pdnsCred() })
    expect(r.status).toBe(422)
    expect(r.body).toMatchObject({ code: 'dns_write_failed', details: { reason: 'zone_not_reached', domain: `shop.${zone}` } })
    expect((await p.api('GET', `/v1/connections/${c.id}`, { token: ws.apiKey })).body.error_code).toBe('zone_not_reached')
    // Nothing landed in the parent zone either.
    expect((await pdns.listRecords('test')).some((r) => r.name === `shop.${zone}.`)).toBe(false)
  })

  test('a TXT value held as several strings stays those strings beside Portico\'s values and is restored byte-identical', async () => {
    const zone = fresh()
    await pdns.createZone(zone)
    await pdns.setRecords(zone, 'TXT', ['"v=spf1 include:_spf.google.com " "include:mailgun.org -all"', '"v=DKIM1; k=rsa; p=MIIBIjANBgkqh" "kiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA"'], 3600)
    const before = await snapshot(zone)
    const c = await connect(zone)
    const records = [...c.records, { type: 'SPFM', host: '@', value: 'include:_spf.portico.test' }, { type: 'TXT', host: '@', value: 'portico-verify=1' }]
    expect((await p.api('PUT', `/v1/connections/${c.id}/records`, { token: ws.apiKey, body: { records } })).status).toBe(200)
    expect((await p.api('POST', `/v1/connections/${c.id}/apply`, { token: ws.apiKey, body: pdnsCred() })).status).toBe(200)
    expect(await rrset(zone, 'TXT')).toContain('"v=DKIM1; k=rsa; p=MIIBIjANBgkqh" "kiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA"')
    expect(await rrset(zone, 'TXT')).toContain('"v=spf1 include:_spf.google.com include:mailgun.org include:_spf.portico.test -all"')
    const out = await p.api('POST', `/v1/connections/${c.id}:disconnect`, { token: ws.apiKey, body: { credential: pdns.apiKey } })
    expect(out.status).toBe(200)
    expect(await snapshot(zone)).toEqual(before)
  })

  test('re-apply over a value the customer set since: recorded as the new prior, named in the answer, restored on disconnect', async () => {
    const zone = fresh()
    await pdns.createZone(zone)
    await pdns.setRecords(`app5.${zone}`, 'CNAME', ['old.host.example.'], 600)
    const c = await connect(`app5.${zone}`)
    const first = await p.api('POST', `/v1/connections/${c.id}/apply`, { token: ws.apiKey, body: pdnsCred() })
    expect(first.body.replaced).toEqual([{ name: `app5.${zone}`, type: 'CNAME', values: ['old.host.example'] }])
    await pdns.setRecords(`app5.${zone}`, 'CNAME', ['new.host.example.'], 600) // the customer's own change
    const again = await p.api('POST', `/v1/connections/${c.id}/apply`, { token: ws.apiKey, body: pdnsCred() })
    expect(again.status).toBe(200)
    expect(again.body).toMatchObject({ changed: true, replaced: [{ name: `app5.${zone}`, type: 'CNAME', values: ['new.host.example'] }] })
    expect(await rrset(`app5.${zone}`, 'CNAME')).toEqual([`${EDGE}.`])
    // A third apply with nothing changed replaces nothing and keeps that prior.
    expect((await p.api('POST', `/v1/connections/${c.id}/apply`, { token: ws.apiKey, body: pdnsCred() })).body).toMatchObject({ changed: false, replaced: [] })
    const out = await p.api('POST', `/v1/connections/${c.id}:disconnect`, { token: ws.apiKey, body: { credential: pdns.apiKey } })
    expect(out.status).toBe(200)
    expect(out.body.records.restored).toEqual([{ type: 'CNAME', name: `app5.${zone}`, value: 'new.host.example', note: expect.any(String) }])
    expect(await rrset(`app5.${zone}`, 'CNAME')).toEqual(['new.host.example.'])
  })

  test('a zone gone at the host: disconnect with the credential still finishes, naming every set left with its prior values', async () => {
    const zone = fresh()
    await pdns.createZone(zone)
    await pdns.setRecords(`shop.${zone}`, 'CNAME', ['old.host.example.'], 600)
    const c = await connect(`shop.${zone}`)
    expect((await p.api('POST', `/v1/connections/${c.id}/apply`, { token: ws.apiKey, body: pdnsCred() })).status).toBe(200)
    await pdns.deleteZone(zone) // deleted at the host: no credential will ever reach it again
    const out = await p.api('POST', `/v1/connections/${c.id}:disconnect`, { token: ws.apiKey, body: { credential: pdns.apiKey } })
    expect(out.status).toBe(200)
    expect(out.body).toMatchObject({ disconnected: true, serving: 'stopped', certificate: 'removed', monitoring: 'stopped' })
    expect(out.body.records).toMatchObject({ outcome: 'manual', via: 'api', removed: [], restored: [], failed: [] })
    expect(out.body.records.left_in_place).toContainEqual({ type: 'CNAME', name: `shop.${zone}`, value: EDGE, note: expect.any(String), prior_values: ['old.host.example'] })
    expect(out.body.records.manual_steps[0]).toContain(`The zone ${zone}`)
    expect(out.body.records.manual_steps.join('\n')).toContain(`set the CNAME record shop.${zone} back to old.host.example`)
    expect((await p.api('GET', `/v1/connections/${c.id}`, { token: ws.apiKey })).status).toBe(404) // closed: no serving, no monitoring
    expect((await events(c.id)).at(-1)!.type).toBe('connection.disconnected')
    // The same call again answers the same outcome.
    expect((await p.api('POST', `/v1/connections/${c.id}:disconnect`, { token: ws.apiKey, body: { credential: pdns.apiKey } })).body).toEqual(out.body)
  })

  test('the PowerDNS API URL goes through the SSRF guard', async () => {
    const zone = fresh()
    await pdns.createZone(zone)
    const c = await connect(`shop.${zone}`)
    const priv = await p.api('POST', `/v1/connections/${c.id}/apply`, { token: ws.apiKey, body: { credential: pdns.apiKey, api_url: 'http://10.0.0.1:8081/api/v1/servers/localhost' } })
    expect(priv.status).toBe(400)
    expect(priv.body.details[0]).toMatchObject({ field: 'api_url' })
    const meta = await p.api('POST', `/v1/connections/${c.id}/apply`, { token: ws.apiKey, body: { credential: pdns.apiKey, api_url: 'http://169.254.169.254/latest' } })
    expect(meta.status).toBe(400)
    const strict = await startPortico({ DNS_RESOLVERS: pdns.dnsAddress, EDGE_CNAME_TARGET: EDGE })
    try {
      const w = await provision(strict)
      const c2 = (await strict.api('POST', '/v1/connections', { token: w.apiKey, body: { domain: `www.${zone}` } })).body
      const loop = await strict.api('POST', `/v1/connections/${c2.id}/apply`, { token: w.apiKey, body: pdnsCred() })
      expect(loop.status).toBe(400)
      expect(loop.body.details[0].field).toBe('api_url')
    } finally {
      await strict.close()
    }
  })
})

describe('provider accounts', () => {
  async function account(access: 'continuous' | 'one_time' = 'continuous', token = ws.apiKey) {
    const r = await p.api('POST', '/v1/provider-accounts', { token, body: { provider: 'powerdns', ...pdnsCred(), label: 'our pdns', access } })
    expect(r.status).toBe(201)
    return r.body
  }

  test('a refused key is not saved; a listed account never shows its key', async () => {
    const w = await provision(p)
    const r = await p.api('POST', '/v1/provider-accounts', { token: w.apiKey, body: { provider: 'powerdns', ...pdnsCred('nope') } })
    expect(r.status).toBe(422)
    expect(r.body.code).toBe('ProviderAuthenticationError')
    expect((await p.api('GET', '/v1/provider-accounts', { token: w.apiKey })).body.accounts).toEqual([])
    await account('continuous', w.apiKey)
    const list = await p.api('GET', '/v1/provider-accounts', { token: w.apiKey })
    expect(list.body.accounts.length).toBe(1)
    expect(JSON.stringify(list.body)).not.toContain(pdns.apiKey)
    // Another tenant cannot see it.
    expect((await p.api('GET', `/v1/provider-accounts/${list.body.accounts[0].id}`, { token: ws.apiKey })).status).toBe(404)
  })

  test('an unsupported provider is a clear 400', async () => {
    const r = await p.api('POST', '/v1/provider-accounts', { token: ws.apiKey, body: { provider: 'hover', credential: 'x' } })
    expect(r.status).toBe(400)
    expect(r.body.details.reason).toBe('provider_unsupported')
  })

  test('continuous: connect per domain (zone_not_reached alone), managed re-apply, managed revert restores the zone', async () => {
    const w = await provision(p)
    const good = fresh()
    const gone = fresh()
    await pdns.createZone(good)
    await pdns.createZone(gone)
    await pdns.setRecords(`shop.${good}`, 'TXT', ['"keep-me"'])
    await pdns.setRecords(`shop.${good}`, 'CAA', ['0 issue "pki.goog"'])
    const before = await snapshot(good)
    const pre = await connect(`shop.${gone}`, w.apiKey)
    await pdns.deleteZone(gone)
    const a = await account('continuous', w.apiKey)
    expect(a).toMatchObject({ kind: 'api_key', provider: 'powerdns', access: 'continuous', scope: 'all', credential_held: true, status: 'active', can_manage: true, expires_at: null })
    expect(JSON.stringify(a)).not.toContain(pdns.apiKey)
    const sealed = (await p.db`select credential_sealed from provider_accounts where id = ${a.id}`)[0].credential_sealed as string
    expect(sealed).toStartWith('v1.')
    expect(sealed).not.toContain(pdns.apiKey)

    const r = await p.api('POST', `/v1/provider-accounts/${a.id}/connect`, { token: w.apiKey, body: { application_id: w.appId, domains: [`shop.${good}`, `shop.${gone}`] } })
    expect(r.status).toBe(200)
    expect(r.body.results[0]).toMatchObject({ domain: `shop.${good}`, status: 'connected' })
    // The customer's records the CNAME took the place of are named.
    expect(r.body.results[0].message).toContain(`replacing CAA shop.${good} → 0 issue "pki.goog"; TXT shop.${good} → keep-me`)
    expect(r.body.results[1]).toMatchObject({ domain: `shop.${gone}`, status: 'failed', error_code: 'zone_not_reached', connection_id: pre.id })
    expect(r.body.account).toMatchObject({ domains: [`shop.${good}`], credential_held: true })
    const id = r.body.results[0].connection_id
    expect(await rrset(`shop.${good}`, 'CNAME')).toEqual([`${EDGE}.`])
    expect(await rrset(`shop.${good}`, 'TXT')).toEqual([]) // a CNAME cannot stand beside them: removed, recorded
    const conn = await p.api('GET', `/v1/connections/${id}`, { token: w.apiKey })
    expect(conn.body).toMatchObject({ managed: true, rail: 'api' })

    // Someone repoints the CNAME; :reapply puts it back, re-verifies, and names the value it replaced,
    // which becomes the prior: the customer's latest word for the name, not what stood before connecting.
    await pdns.setRecords(`shop.${good}`, 'CNAME', ['elsewhere.example.net.'])
    const re = await p.api('POST', `/v1/connections/${id}:reapply`, { token: w.apiKey })
    expect(re.status).toBe(200)
    expect(re.body).toMatchObject({ changed: true, updated_objects: [{ type: 'CNAME', host: 'shop', name: `shop.${good}`, value: EDGE }] })
    expect(re.body.replaced).toEqual([{ name: `shop.${good}`, type: 'CNAME', values: ['elsewhere.example.net'] }])
    expect(re.body.connection.status).toBe('live')
    const ev = await events(id)
    const updated = ev.find((e) => e.type === 'connection.records.updated')!
    expect(updated.payload.data.updated_objects).toEqual([{ type: 'CNAME', host: 'shop', name: `shop.${good}`, value: EDGE }])
    // The value the re-apply replaced is in the event as in the answer (issue 46), and the connect's
    // connection.applied names the customer's records it took the place of.
    expect(updated.payload.data.replaced).toEqual([{ name: `shop.${good}`, type: 'CNAME', values: ['elsewhere.example.net'] }])
    expect(ev.find((e) => e.type === 'connection.applied')!.payload.data.replaced).toEqual([
      { name: `shop.${good}`, type: 'CAA', values: ['0 issue "pki.goog"'] },
      { name: `shop.${good}`, type: 'TXT', values: ['keep-me'] },
    ])
    expect(updated.payload.data.records_propagated).toEqual([{ type: 'CNAME', host: 'shop', value: EDGE }])

    // Managed: DELETE reverts through the grant to the customer's latest: their CNAME, and the TXT and
    // CAA they had given up for it stay gone (a CNAME cannot stand beside them).
    const del = await p.api('DELETE', `/v1/connections/${id}`, { token: w.apiKey })
    expect(del.status).toBe(200)
    expect(del.body.records).toMatchObject({ outcome: 'removed', via: 'api', left_in_place: [] })
    expect(del.body.records.restored).toContainEqual({ type: 'CNAME', name: `shop.${good}`, value: 'elsewhere.example.net', note: expect.any(String) })
    expect(await rrset(`shop.${good}`, 'CNAME')).toEqual(['elsewhere.example.net.'])
    expect((await snapshot(good)).filter((r) => !r.startsWith(`shop.${good}.`))).toEqual(before.filter((r) => !r.startsWith(`shop.${good}.`)))
    expect((await snapshot(good)).filter((r) => r.startsWith(`shop.${good}.`))).toEqual([`shop.${good}. CNAME 300 elsewhere.example.net.`])
    expect((await events(id)).at(-1)!.type).toBe('connection.disconnected')
  })

  test('a manual connection cannot be re-applied', async () => {
    const zone = fresh()
    await pdns.createZone(zone)
    const c = await connect(`shop.${zone}`)
    const r = await p.api('POST', `/v1/connections/${c.id}:reapply`, { token: ws.apiKey })
    expect(r.status).toBe(409)
  })

  test('one-time: the key is deleted after connecting; a second use and an account past its hour are 409', async () => {
    const zone = fresh()
    await pdns.createZone(zone)
    const a = await account('one_time')
    const left = Date.parse(a.expires_at) - p.clock.now().getTime()
    expect(left).toBeGreaterThan(HOUR - 5_000)
    expect(left).toBeLessThanOrEqual(HOUR)
    const r = await p.api('POST', `/v1/provider-accounts/${a.id}/connect`, { token: ws.apiKey, body: { application_id: ws.appId, domains: [`app.${zone}`] } })
    expect(r.status).toBe(200)
    expect(r.body.results[0].status).toBe('connected')
    expect(r.body.account).toMatchObject({ credential_held: false, access: 'one_time' })
    expect((await p.db`select credential_sealed from provider_accounts where id = ${a.id}`)[0].credential_sealed).toBeNull()
    const conn = await p.api('GET', `/v1/connections/${r.body.results[0].connection_id}`, { token: ws.apiKey })
    expect(conn.body.managed).toBe(false)
    const second = await p.api('POST', `/v1/provider-accounts/${a.id}/connect`, { token: ws.apiKey, body: { application_id: ws.appId, domains: [`b.${zone}`] } })
    expect(second.status).toBe(409)

    const late = await account('one_time')
    p.clock.advance(HOUR)
    const expired = await p.api('POST', `/v1/provider-accounts/${late.id}/connect`, { token: ws.apiKey, body: { application_id: ws.appId, domains: [`c.${zone}`] } })
    expect(expired.status).toBe(409)
    expect(expired.body.code).toBe('account_expired')
    expect(await rrset(`c.${zone}`, 'CNAME')).toEqual([])
  })

  test('a key the provider stops accepting: needs_reconnect, reapply.failed, and removal asks to re-authorize', async () => {
    const zone = fresh()
    await pdns.createZone(zone)
    const a = await account()
    const r = await p.api('POST', `/v1/provider-accounts/${a.id}/connect`, { token: ws.apiKey, body: { application_id: ws.appId, domains: [`shop.${zone}`] } })
    const id = r.body.results[0].connection_id
    // The integrator revokes the key at the provider: the stored one no longer works.
    const { seal } = await import('../../src/domain/provider-accounts.ts')
    await p.db`update provider_accounts set credential_sealed = ${seal(p.config, 'revoked-key')} where id = ${a.id}`
    const re = await p.api('POST', `/v1/connections/${id}:reapply`, { token: ws.apiKey })
    expect(re.status).toBe(422)
    expect(re.body.code).toBe('ProviderAuthenticationError')
    expect((await events(id)).map((e) => e.type)).toContain('connection.reapply.failed')
    const got = await p.api('GET', `/v1/provider-accounts/${a.id}`, { token: ws.apiKey })
    expect(got.body).toMatchObject({ status: 'needs_reconnect', credential_held: true })
    const again = await p.api('POST', `/v1/provider-accounts/${a.id}/connect`, { token: ws.apiKey, body: { application_id: ws.appId, domains: [`x.${zone}`] } })
    expect(again.status).toBe(422)
    const del = await p.api('DELETE', `/v1/connections/${id}`, { token: ws.apiKey })
    expect(del.status).toBe(409)
    expect(del.body.code).toBe('reauthorization_required')
    expect(del.body.plan.records).toContainEqual(expect.objectContaining({ type: 'CNAME', host: 'shop', value: EDGE, change: 'created', action: 'delete', prior: [] }))
    // With a credential given once, the removal goes through.
    const ok = await p.api('POST', `/v1/connections/${id}:disconnect`, { token: ws.apiKey, body: { credential: pdns.apiKey } })
    expect(ok.status).toBe(200)
    expect(await rrset(`shop.${zone}`, 'CNAME')).toEqual([])
  })

  test('a key revoked for good: leave_records finishes the disconnect without the provider, naming every record left with its prior values', async () => {
    const zone = fresh()
    await pdns.createZone(zone)
    await pdns.setRecords(`shop.${zone}`, 'CNAME', ['old.host.example.'], 600)
    const a = await account()
    const r = await p.api('POST', `/v1/provider-accounts/${a.id}/connect`, { token: ws.apiKey, body: { application_id: ws.appId, domains: [`shop.${zone}`] } })
    const id = r.body.results[0].connection_id
    const { seal } = await import('../../src/domain/provider-accounts.ts')
    await p.db`update provider_accounts set credential_sealed = ${seal(p.config, 'revoked-key')} where id = ${a.id}`
    expect((await p.api('POST', `/v1/connections/${id}:disconnect`, { token: ws.apiKey })).status).toBe(409) // as documented: a chance to re-authorize
    const out = await p.api('POST', `/v1/connections/${id}:disconnect`, { token: ws.apiKey, body: { leave_records: true } })
    expect(out.status).toBe(200)
    expect(out.body).toMatchObject({ disconnected: true, serving: 'stopped', monitoring: 'stopped' })
    expect(out.body.records).toMatchObject({ outcome: 'manual', removed: [], restored: [] })
    expect(out.body.records.left_in_place).toContainEqual({ type: 'CNAME', name: `shop.${zone}`, value: EDGE, note: expect.any(String), prior_values: ['old.host.example'] })
    expect(out.body.records.manual_steps.join('\n')).toContain(`set the CNAME record shop.${zone} back to old.host.example`)
    expect(await rrset(`shop.${zone}`, 'CNAME')).toEqual([`${EDGE}.`]) // nothing sent to the provider
    expect((await p.api('GET', `/v1/connections/${id}`, { token: ws.apiKey })).status).toBe(404)
  })

  test('a refusal does the same wherever it is met (src/domain/grants.ts): the table, site by site', async () => {
    const zone = fresh()
    await pdns.createZone(zone)
    const a = await account()
    const r = await p.api('POST', `/v1/provider-accounts/${a.id}/connect`, { token: ws.apiKey, body: { application_id: ws.appId, domains: [`shop.${zone}`] } })
    const id = r.body.results[0].connection_id
    const { seal } = await import('../../src/domain/provider-accounts.ts')
    await p.db`update provider_accounts set credential_sealed = ${seal(p.config, 'revoked-key')} where id = ${a.id}`
    const state = async () => {
      const [acc] = await p.db`select status, last_error from provider_accounts where id = ${a.id}`
      const [con] = await p.db`select reauthorize_needed_at is not null as flagged from connections where id = ${id}`
      const failed = (await events(id)).filter((e) => e.type === 'connection.reapply.failed').length
      return { account: acc.status as string, told: typeof acc.last_error === 'string' && acc.last_error.length > 0, flagged: con.flagged as boolean, failed }
    }
    const reset = async () => {
      await p.db`update provider_accounts set status = 'active', last_error = null where id = ${a.id}`
      await p.db`update connections set reauthorize_needed_at = null where id = ${id}`
    }
    const refusal = { reason: 'credential_refused', provider_message: expect.any(String) }

    // use: a saved account connects — the account needs a new key; the connection is not flagged.
    const use = await p.api('POST', `/v1/provider-accounts/${a.id}/connect`, { token: ws.apiKey, body: { application_id: ws.appId, domains: [`x.${zone}`] } })
    expect(use.status).toBe(422)
    expect(use.body.details).toMatchObject(refusal)
    expect(await state()).toEqual({ account: 'needs_reconnect', told: true, flagged: false, failed: 0 })
    await reset()

    // managed (:reapply): the account, the connection's re-consent flag and connection.reapply.failed.
    const re = await p.api('POST', `/v1/connections/${id}:reapply`, { token: ws.apiKey })
    expect(re.status).toBe(422)
    expect(re.body.details).toMatchObject(refusal)
    expect(await state()).toEqual({ account: 'needs_reconnect', told: true, flagged: true, failed: 1 })
    await reset()

    // managed (the monitor's repair rail): the same, and the repair says why it did not fix.
    const [row] = await p.db`select * from connections where id = ${id}`
    const repair = await p.services.monitorRepair!.repair(row, [])
    expect(repair).toEqual({ fixed: false, detail: 'The DNS provider refused the stored grant; re-authorize the connection.' })
    expect(await state()).toEqual({ account: 'needs_reconnect', told: true, flagged: true, failed: 2 })
    await reset()

    // removal through the stored grant: 409 with the plan; the account is flagged, the connection not.
    const del = await p.api('DELETE', `/v1/connections/${id}`, { token: ws.apiKey })
    expect(del.status).toBe(409)
    expect(del.body).toMatchObject({ code: 'reauthorization_required', details: refusal })
    expect(del.body.plan.access_detail).toBe('The provider refused the stored grant; it was revoked or expired')
    expect(await state()).toEqual({ account: 'needs_reconnect', told: true, flagged: false, failed: 2 })
    await reset()

    // A credential given once and refused flags nothing: it was never Portico's to keep.
    const once = await p.api('POST', `/v1/connections/${id}:disconnect`, { token: ws.apiKey, body: { credential: 'another-wrong-key' } })
    expect(once.status).toBe(409)
    expect(once.body.plan.access_detail).toBe('The provider refused the credential given')
    expect(await state()).toEqual({ account: 'active', told: false, flagged: false, failed: 2 })
  })
})

describe('monitor repair through the grant', () => {
  test('a record deleted at the provider is put back by the sweep (auto_fixed)', async () => {
    const zone = fresh()
    await pdns.createZone(zone)
    const w = await provision(p)
    const a = (await p.api('POST', '/v1/provider-accounts', { token: w.apiKey, body: { provider: 'powerdns', ...pdnsCred() } })).body
    const r = await p.api('POST', `/v1/provider-accounts/${a.id}/connect`, { token: w.apiKey, body: { application_id: w.appId, domains: [`shop.${zone}`] } })
    const id = r.body.results[0].connection_id
    expect((await p.api('POST', `/v1/connections/${id}:recheck`, { token: w.apiKey })).body.status).toBe('live')
    const deps = { db: p.db, dns: p.services.dns, clock: p.clock, alerts: false, repair: p.services.monitorRepair }
    expect(deps.repair).toBeDefined()
    await sweepMonitor(deps)
    await pdns.deleteRecords(`shop.${zone}`, 'CNAME')
    p.clock.advance(HOUR + MIN_GAP_MS)
    await sweepMonitor(deps)
    expect(await rrset(`shop.${zone}`, 'CNAME')).toEqual([`${EDGE}.`])
    const m = (await p.api('GET', `/v1/connections/${id}/monitor`, { token: w.apiKey })).body
    expect(m).toMatchObject({ result: 'ok', attention: null, repair: { automatic: true, via: 'managed_dns' } })
    expect(m.action).toMatchObject({ kind: 'auto_fixed' })
    expect(m.history.map((h: { kind: string }) => h.kind)).toContain('auto_fixed')
  })

  test('a repair over a value the customer set since names it, and disconnect restores that value', async () => {
    const zone = fresh()
    await pdns.createZone(zone)
    const w = await provision(p)
    const a = (await p.api('POST', '/v1/provider-accounts', { token: w.apiKey, body: { provider: 'powerdns', ...pdnsCred() } })).body
    const r = await p.api('POST', `/v1/provider-accounts/${a.id}/connect`, { token: w.apiKey, body: { application_id: w.appId, domains: [`shop.${zone}`] } })
    const id = r.body.results[0].connection_id
    expect((await p.api('POST', `/v1/connections/${id}:recheck`, { token: w.apiKey })).body.status).toBe('live')
    const deps = { db: p.db, dns: p.services.dns, clock: p.clock, alerts: false, repair: p.services.monitorRepair }
    await sweepMonitor(deps)
    await pdns.setRecords(`shop.${zone}`, 'CNAME', ['new.host.example.'], 600)
    p.clock.advance(HOUR + MIN_GAP_MS)
    await sweepMonitor(deps)
    expect(await rrset(`shop.${zone}`, 'CNAME')).toEqual([`${EDGE}.`])
    const m = (await p.api('GET', `/v1/connections/${id}/monitor`, { token: w.apiKey })).body
    expect(m.action).toMatchObject({ kind: 'auto_fixed' })
    expect(JSON.stringify(m)).toContain(`CNAME shop.${zone} → new.host.example`)
    // The repair record names it as structured data too, as :reapply's answer and event do (issue 46).
    expect(m.history.find((h: any) => h.kind === 'auto_fixed').detail.replaced).toEqual([{ name: `shop.${zone}`, type: 'CNAME', values: ['new.host.example'] }])
    const del = await p.api('DELETE', `/v1/connections/${id}`, { token: w.apiKey })
    expect(del.status).toBe(200)
    expect(await rrset(`shop.${zone}`, 'CNAME')).toEqual(['new.host.example.'])
  })
})
