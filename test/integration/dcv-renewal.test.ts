// Delegated DCV after the move: renewals validate through the delegation with no customer action
// (the clock moved past renew_after); the monitor watches the delegation CNAME like any other record,
// and a removed delegation makes the renewal warn ahead of expiry instead of ordering a certificate
// the CA could only refuse; the DCV zone's server down makes the order wait, and say so.
// Portico reaches the DCV zone's PowerDNS API through a proxy this file can stop (the server down).
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { provision, type Workspace } from '../harness/portico.ts'
import { startServed, type Served } from '../harness/served.ts'
import { startPdns } from '../harness/pdns.ts'
import { freeLoopbackPort } from '../harness/edge.ts'
import { sweepEdge } from '../../src/jobs/edge-sweep.ts'
import { sweepMonitor } from '../../src/jobs/monitor-sweep.ts'
import { DCV_RETRY_MS } from '../../src/domain/certificates.ts'
import { AcmeIssuer } from '../../src/adapters/acme.ts'
import * as acme from 'acme-client'

let s: Served
let ws: Workspace
const tag = Date.now().toString(36)
const zone = `renew${tag}.test`
const dcvZone = `dcvr${tag}.test`

/** The DCV zone server's API as Portico reaches it: up, or down (connection refused). */
const proxy = {
  port: freeLoopbackPort(),
  target: '',
  server: null as ReturnType<typeof Bun.serve> | null,
  up() {
    this.server ??= Bun.serve({
      hostname: '127.0.0.1',
      port: this.port,
      fetch: async (req) => {
        const u = new URL(req.url)
        const r = await fetch(this.target + u.pathname + u.search, { method: req.method, headers: req.headers, body: req.method === 'GET' ? undefined : await req.text() })
        return new Response(await r.arrayBuffer(), { status: r.status, headers: { 'content-type': r.headers.get('content-type') ?? 'application/json' } })
      },
    })
  },
  down() {
    this.server?.stop(true)
    this.server = null
  },
}

/** Requests about the account Portico sends the CA (to its newAccount URL: finding or making it), counted as they leave. */
let registrations = 0
let newAccountUrl = ''
acme.axios.interceptors.request.use((req) => {
  if (newAccountUrl && req.url === newAccountUrl) registrations++
  return req
})

beforeAll(async () => {
  const pdns = await startPdns()
  await pdns.createZone(dcvZone)
  proxy.target = new URL(pdns.apiUrl).origin
  proxy.up()
  // Role `api`: no workers; each step is driven here, with the clock this file moves.
  s = await startServed(zone, { DCV_ZONE: dcvZone, DCV_PDNS_API_URL: `http://127.0.0.1:${proxy.port}/api/v1/servers/localhost`, DCV_PDNS_API_KEY: pdns.apiKey })
  ws = await provision(s.p)
  newAccountUrl = ((await (await fetch(s.pebble.directoryUrl, { tls: { ca: s.pebble.caPem } })).json()) as { newAccount: string }).newAccount
})

afterAll(async () => {
  proxy.down()
  await s?.stop()
})

const api = (method: string, path: string) => s.p.api(method, path, { token: ws.apiKey })
const fqdn = (host: string) => `${host}.${zone}`
const sweep = () => sweepEdge({ db: s.p.db, clock: s.p.clock, config: s.p.config, dns: s.p.services.dns, edge: s.p.services.edge!, issuer: s.p.services.issuer, dcv: s.p.services.dcv })
const monitor = () => sweepMonitor({ db: s.p.db, dns: s.p.services.dns, clock: s.p.clock, alerts: true })
async function add(records: { type: string; host: string; value: string }[]) {
  for (const r of records) await s.pdns.setRecords(fqdn(r.host), r.type, [r.type === 'CNAME' ? `${r.value}.` : `"${r.value}"`])
}
const connection = async (id: string) => (await api('GET', `/v1/connections/${id}`)).body
const certificate = async (id: string) => (await api('GET', `/v1/connections/${id}/ssl`)).body.certificate
/** Orders Pebble has taken, once its log has caught up (it is read as it comes). */
const orders = async () => (await Bun.sleep(300), s.pebble.orders())

/** A connection moved with pre-validation, live and complete; its id. */
async function moved(host: string): Promise<string> {
  const c = (await s.p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: fqdn(host), validation: 'before_cutover' } })).body
  await add(c.records)
  await api('POST', `/v1/connections/${c.id}:recheck`)
  await sweep()
  const routing = await connection(c.id)
  expect(routing.validation_stage).toBe('awaiting_routing')
  await add(routing.records.filter((r: { host: string }) => r.host === host))
  expect((await api('POST', `/v1/connections/${c.id}:recheck`)).body.validation_stage).toBe('complete')
  return c.id
}

/** Moves the clock past the certificate's renew_after. */
async function pastRenewal(id: string) {
  const cert = await certificate(id)
  s.p.clock.advance(new Date(cert.renew_after).getTime() + 60_000 - s.p.clock.now().getTime())
  return cert
}

describe('delegated DCV after the move', () => {
  test('the renewal validates through the delegation, with no customer action', async () => {
    const id = await moved('renewed')
    const customerZone = await s.pdns.listRecords(zone)
    const before = await pastRenewal(id)
    const servedBefore = (await s.viaEdge(fqdn('renewed'))).fingerprint
    const ordered = await orders()
    try {
      await sweep()
      const after = await certificate(id)
      expect(after).toMatchObject({ id: before.id, status: 'issued', challenge: 'dns-01', last_error: null, renewal_warning: null })
      expect(after.updated_at).not.toBe(before.updated_at)
      expect(await orders()).toBe(ordered + 1)
      expect((await s.viaEdge(fqdn('renewed'))).fingerprint).not.toBe(servedBefore)
      // Nothing in the customer's zone changed: the answer went to Portico's own zone.
      expect(await s.pdns.listRecords(zone)).toEqual(customerZone)
      const events = (await s.p.db`select payload from events where connection_id = ${id} and type = 'secure_status' order by id`) as { payload: { secure_status: string } }[]
      expect(events.map((e) => e.payload.secure_status)).toEqual(['pending', 'issued', 'issued'])
    } finally {
      s.p.clock.reset()
    }
  }, 60_000)

  test('a removed delegation: the monitor reports it with its repair, and the renewal warns ahead of expiry', async () => {
    const id = await moved('removed')
    const delegation = (await connection(id)).records.find((r: { purpose?: string }) => r.purpose === 'dcv_delegation')
    await monitor()
    await s.pdns.deleteRecords(fqdn(delegation.host), 'CNAME')
    try {
      // The monitor's next hourly check sees the delegation gone, like any other record.
      s.p.clock.advance(2 * 3_600_000)
      await monitor()
      const m = (await api('GET', `/v1/connections/${id}/monitor`)).body
      expect(m).toMatchObject({ result: 'drift', attention: 'action_required' })
      expect(m.drift).toEqual([{ subdomain: delegation.host, type: 'CNAME', verdict: 'record_missing', expected: [delegation.value], observed: [] }])
      expect(typeof m.repair.detail).toBe('string')
      const missing = (await s.p.db`select payload from events where connection_id = ${id} and type = 'domain.record_missing'`) as { payload: { data: { drift: { subdomain: string }[] } } }[]
      expect(missing.map((e) => e.payload.data.drift.map((d) => d.subdomain))).toEqual([[delegation.host]])

      // Renewal time: no order the CA could only refuse; a warning, said while the certificate still serves.
      const before = await pastRenewal(id)
      // Orders of this certificate (another connection's renewal may fall due in the same run).
      const attempts = async () => (await s.p.db`select attempts from certificates where id = ${before.id}`)[0].attempts as number
      const tried = await attempts()
      await sweep()
      const warned = await certificate(id)
      expect(warned).toMatchObject({ id: before.id, status: 'issued', not_after: before.not_after })
      expect(warned.renewal_warning).toContain(`${fqdn(delegation.host)} CNAME ${delegation.value}`)
      expect(warned.renewal_warning).toContain(`expires at ${before.not_after}`)
      expect(await attempts()).toBe(tried)
      const last = (await s.p.db`select payload from events where connection_id = ${id} and type = 'secure_status' order by id desc limit 1`) as { payload: { data: { certificate: { renewal_warning: string } } } }[]
      expect(last[0]!.payload.data.certificate.renewal_warning).toBe(warned.renewal_warning)
      // Said once: the next run finds it said.
      await sweep()
      expect((await s.p.db`select count(*)::int as n from events where connection_id = ${id} and type = 'secure_status'`)[0].n).toBe(3)

      // Put back: the renewal goes through and the warning is gone.
      await add([delegation])
      await sweep()
      const renewed = await certificate(id)
      expect(renewed).toMatchObject({ status: 'issued', renewal_warning: null })
      expect(await attempts()).toBe(tried + 1)
    } finally {
      s.p.clock.reset()
    }
  }, 60_000)

  test('ssl:renew with the delegation gone places no order: the certificate answers with its warning', async () => {
    const id = await moved('manual')
    const delegation = (await connection(id)).records.find((r: { purpose?: string }) => r.purpose === 'dcv_delegation')
    await s.pdns.deleteRecords(fqdn(delegation.host), 'CNAME')
    const before = await certificate(id)
    const attempts = async () => (await s.p.db`select attempts from certificates where id = ${before.id}`)[0].attempts as number
    const tried = await attempts()
    const ordered = await orders()
    const r = await api('POST', `/v1/connections/${id}/ssl:renew`)
    expect(r.status).toBe(200)
    expect(r.body.certificate).toMatchObject({ id: before.id, status: 'issued', not_after: before.not_after, last_error: null })
    expect(r.body.certificate.renewal_warning).toContain(`${fqdn(delegation.host)} CNAME ${delegation.value}`)
    expect(await attempts()).toBe(tried)
    expect(await orders()).toBe(ordered)
    const last = (await s.p.db`select payload from events where connection_id = ${id} and type = 'secure_status' order by id desc limit 1`) as { payload: { data: { certificate: { renewal_warning: string } } } }[]
    expect(last[0]!.payload.data.certificate.renewal_warning).toBe(r.body.certificate.renewal_warning)
    // Put back: the renewal goes through and the warning is gone.
    await add([delegation])
    const renewed = await api('POST', `/v1/connections/${id}/ssl:renew`)
    expect(renewed.body.certificate).toMatchObject({ status: 'issued', renewal_warning: null, challenge: 'dns-01' })
    expect(await attempts()).toBe(tried + 1)
  }, 60_000)

  test('the apex and the wildcard of one name share one delegation: both are issued and renewed through it', async () => {
    const apex = (await s.p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: fqdn('pair'), validation: 'before_cutover' } })).body
    const wild = (await s.p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: `*.${fqdn('pair')}` } })).body
    const shared = apex.records.find((r: { purpose?: string }) => r.purpose === 'dcv_delegation')
    expect(wild.records.find((r: { purpose?: string }) => r.purpose === 'dcv_delegation')).toEqual(shared)
    // The customer places the CNAME once for both; the two ownership tokens sit side by side at one name.
    const txt = [apex, wild].map((c) => c.records.find((r: { purpose?: string }) => r.purpose === 'ownership'))
    expect(txt[0].host).toBe(txt[1].host)
    await s.pdns.setRecords(fqdn(txt[0].host), 'TXT', txt.map((r) => `"${r.value}"`))
    await add([shared])
    for (const c of [apex, wild]) await api('POST', `/v1/connections/${c.id}:recheck`)
    await sweep()
    for (const c of [apex, wild]) expect((await connection(c.id)).validation_stage).toBe('awaiting_routing')
    for (const c of [apex, wild]) {
      const routing = await connection(c.id)
      await add(routing.records.filter((r: { purpose?: string }) => r.purpose !== 'ownership' && r.purpose !== 'dcv_delegation'))
      expect((await api('POST', `/v1/connections/${c.id}:recheck`)).body.validation_stage).toBe('complete')
    }
    const before = await Promise.all([apex, wild].map((c) => certificate(c.id)))
    for (const b of before) expect(b).toMatchObject({ status: 'issued', challenge: 'dns-01' })
    // Orders of each certificate (Pebble's not_before has whole seconds: a renewal may share it).
    const attempts = async (crt: string) => (await s.p.db`select attempts from certificates where id = ${crt}`)[0].attempts as number
    const tried = await Promise.all(before.map((b) => attempts(b.id)))
    // Renewal time for both: each renews through the same delegation.
    const latest = Math.max(...before.map((b) => new Date(b.renew_after).getTime()))
    s.p.clock.advance(latest + 60_000 - s.p.clock.now().getTime())
    try {
      await sweep()
      for (const [i, c] of [apex, wild].entries()) {
        const after = await certificate(c.id)
        expect(after).toMatchObject({ status: 'issued', challenge: 'dns-01', last_error: null, renewal_warning: null })
        expect(after.updated_at).not.toBe(before[i]!.updated_at)
        expect(await attempts(after.id)).toBe(tried[i]! + 1)
      }
    } finally {
      s.p.clock.reset()
    }
    for (const c of [apex, wild]) await api('POST', `/v1/connections/${c.id}:disconnect`)
  }, 60_000)

  test('the DCV zone server down: the order waits and says so, then goes through when it is back', async () => {
    const c = (await s.p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: fqdn('waits'), validation: 'before_cutover' } })).body
    await add(c.records)
    await api('POST', `/v1/connections/${c.id}:recheck`)
    const ordered = await orders()
    proxy.down()
    try {
      await sweep()
      const waiting = await connection(c.id)
      expect(waiting.validation_stage).toBe('issuing')
      expect(waiting.validation_detail).toContain("DCV zone's DNS server does not answer")
      // The certificate waits too: a DNS-01 order pending, not a failed HTTP-01 one.
      const cert = await certificate(c.id)
      expect(cert).toMatchObject({ status: 'pending', challenge: 'dns-01' })
      expect(cert.last_error).toContain('the order waits for it')
      expect(waiting.certificate_status).toBe('pending')
      // The CA was not asked.
      expect(await orders()).toBe(ordered)
    } finally {
      proxy.up()
    }
    // Tried again at its retry time.
    s.p.clock.advance(DCV_RETRY_MS + 1_000)
    try {
      await sweep()
      expect(await connection(c.id)).toMatchObject({ validation_stage: 'awaiting_routing', validation_detail: null })
      expect(await orders()).toBe(ordered + 1)
    } finally {
      s.p.clock.reset()
    }
  }, 60_000)

  test('the ACME account is registered once: a restarted process orders under the same account', async () => {
    // This file's first order found or made the account; every order since went under it.
    const sent = registrations
    expect(sent).toBeGreaterThan(0)
    const [{ account_url }] = await s.p.db`select account_url from acme_account where directory = ${s.pebble.directoryUrl}`
    expect(account_url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\//)
    // A fresh issuer, as a restarted or another process has: it orders without registering.
    const fresh = new AcmeIssuer(s.p.config.acme!, { db: s.p.db, secretsKey: s.p.config.secretsKey })
    const c = (await s.p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: fqdn('restarted'), validation: 'before_cutover' } })).body
    await add(c.records)
    await api('POST', `/v1/connections/${c.id}:recheck`)
    await sweepEdge({ db: s.p.db, clock: s.p.clock, config: s.p.config, dns: s.p.services.dns, edge: s.p.services.edge!, issuer: fresh, dcv: s.p.services.dcv })
    expect((await connection(c.id)).validation_stage).toBe('awaiting_routing')
    expect(registrations).toBe(sent)
  }, 60_000)
})
