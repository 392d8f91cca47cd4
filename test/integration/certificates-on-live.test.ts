// A connection going live gets Portico's certificate at once, woken by the database, with every cron
// sweep stopped: Caddy on loopback serves it without a visitor having asked for one.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { EDGE, provision, type Workspace } from '../harness/portico.ts'
import { startServed, stopSweepCrons, type Served } from '../harness/served.ts'
import { AcmeIssuer } from '../../src/adapters/acme.ts'

let s: Served
let ws: Workspace
const zone = `onlive${Date.now().toString(36)}.test`

beforeAll(async () => {
  s = await startServed(zone, { PORTICO_ROLE: 'all', CERT_CONCURRENCY: '4' })
  await stopSweepCrons(s.p)
  ws = await provision(s.p)
})

afterAll(async () => {
  await s?.stop()
})

/** Creates connections for `hosts` with their CNAMEs already published, and clicks "I have added them". */
async function goLive(hosts: string[]): Promise<string[]> {
  const ids: string[] = []
  for (const h of hosts) {
    await s.pdns.setRecords(`${h}.${zone}`, 'CNAME', [`${s.edgeHost}.`])
    const c = await s.p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: `${h}.${zone}` } })
    expect(c.status).toBe(201)
    ids.push(c.body.id)
  }
  for (const id of ids) expect((await s.p.api('POST', `/v1/connections/${id}:recheck`, { token: ws.apiKey })).body.status).toBe('live')
  return ids
}

async function waitIssued(id: string, withinMs: number): Promise<any> {
  const until = performance.now() + withinMs
  for (;;) {
    const cert = (await s.p.api('GET', `/v1/connections/${id}/ssl`, { token: ws.apiKey })).body.certificate
    if (cert?.status === 'issued' || performance.now() > until) return cert
    await Bun.sleep(100)
  }
}

describe('certificates when a connection goes live', () => {
  test('a live connection gets its certificate without a sweep, and the edge serves it', async () => {
    const [id] = await goLive(['shop'])
    const cert = await waitIssued(id!, 20_000)
    expect(cert).toMatchObject({ status: 'issued', names: [`shop.${zone}`], managed: true })
    // The row says issued once stored; the edge has it a moment later.
    let served = ''
    for (let i = 0; i < 50 && !served.includes(`shop.${zone}`); i++) {
      served = await s.viaEdge(`shop.${zone}`).then((r) => r.names, () => '')
      if (!served) await Bun.sleep(100)
    }
    expect(served).toContain(`shop.${zone}`)
    // The connection says so: live, and secure once the edge has confirmed it holds the certificate
    // (recorded just after the edge took it, so a reader can see the edge serve it a moment before).
    let conn = (await s.p.api('GET', `/v1/connections/${id}`, { token: ws.apiKey })).body
    for (let i = 0; i < 50 && !conn.secure; i++) {
      await Bun.sleep(100)
      conn = (await s.p.api('GET', `/v1/connections/${id}`, { token: ws.apiKey })).body
    }
    expect(conn).toMatchObject({ status: 'live', certificate_status: 'issued', secure: true })
    // GET …/ssl followed each step, and so did the events.
    const events = await s.p.db`select payload from events where connection_id = ${id!} and type = 'secure_status' order by id`
    expect(events.map((e: { payload: { secure_status: string } }) => e.payload.secure_status)).toEqual(['pending', 'issued'])
  }, 30_000)

  test('several going live together are ordered side by side, one certificate each', async () => {
    const ids = await goLive(['a', 'b', 'c', 'd', 'e', 'f'])
    for (const id of ids) expect((await waitIssued(id, 45_000))?.status).toBe('issued')
    // One row per connection; an order that failed on a loaded machine was tried again within seconds.
    const rows = (await s.p.db`select connection_id, attempts from certificates where connection_id = any(${ids})`) as { attempts: number }[]
    expect(rows).toHaveLength(ids.length)
    for (const r of rows) expect(r.attempts).toBeLessThanOrEqual(1)
  }, 90_000)

  test('after a restart, or in a second process, the first order uses the account the CA already has', async () => {
    const [id] = await goLive(['again'])
    expect((await waitIssued(id!, 20_000))?.status).toBe('issued')
    // A new issuer, as a restarted process or another worker has it: same database, same account key.
    const fresh = new AcmeIssuer(s.p.config.acme!, { db: s.p.db, secretsKey: s.p.config.secretsKey })
    const issued = await fresh.issue([`again.${zone}`])
    expect(issued.certPem).toContain('BEGIN CERTIFICATE')
    expect(issued.notAfter.getTime()).toBeGreaterThan(Date.now())
  }, 30_000)

  test('a kept account the CA no longer knows (lost, deactivated, a CA started again): the order makes it again and keeps the new one', async () => {
    const [id] = await goLive(['lost'])
    expect((await waitIssued(id!, 20_000))?.status).toBe('issued')
    const directory = s.p.config.acme!.directoryUrl
    const [{ account_url: real }] = await s.p.db`select account_url from acme_account where directory = ${directory}`
    const lost = real.replace(/[^/]+$/, 'ffffffffffffffff')
    await s.p.db`update acme_account set account_url = ${lost} where directory = ${directory}`
    const fresh = new AcmeIssuer(s.p.config.acme!, { db: s.p.db, secretsKey: s.p.config.secretsKey })
    const issued = await fresh.issue([`lost.${zone}`])
    expect(issued.certPem).toContain('BEGIN CERTIFICATE')
    const [{ account_url: kept }] = await s.p.db`select account_url from acme_account where directory = ${directory}`
    expect(kept).not.toBe(lost)
  }, 30_000)

  test('while Portico orders or holds a name’s certificate, the edge is not approved to order another', async () => {
    const [id] = await goLive(['gate'])
    await waitIssued(id!, 20_000)
    const r = await s.p.api('POST', `/v1/internal/ask?domain=gate.${zone}`, { headers: { 'x-edge-auth': EDGE } })
    expect(r.body).toEqual({ approved: false })
  }, 30_000)
})
