// GET /connections/{id}/status, the widget's long poll, against real DNS (PowerDNS on loopback): each
// record with what the last verification saw, conflicts as of the last verification (gone once the
// person removes the record in the way), HTTPS state from the certificate, a version to wait on, and the
// widget-token rules (own application, a domain-bound token only its own hostname). The domain check's
// answer stays inside its closed schema and names the asking application with its branding.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { Value } from '@sinclair/typebox/value'
import { startPdns, type Pdns } from '../harness/pdns.ts'
import { provision, startPortico, widgetToken, type TestPortico, type Workspace } from '../harness/portico.ts'
import { connectionStatus } from '../../src/domain/connection-status.ts'
import { ConnectionStatusSchema, DomainCheckSchema } from '../../src/ops/widget-schemas.ts'
import type { ConnectionRow } from '../../src/db/connections.ts'
import type { ApplicationRow } from '../../src/db/applications.ts'

let pdns: Pdns
let p: TestPortico
let ws: Workspace
let zone: string
const EDGE = 'edge.portico.test'
let seq = 0

beforeAll(async () => {
  pdns = await startPdns()
  p = await startPortico({ DNS_RESOLVERS: pdns.dnsAddress, EDGE_CNAME_TARGET: EDGE })
  ws = await provision(p)
  zone = `st${Date.now().toString(36)}.test`
  await pdns.createZone(zone)
})

afterAll(async () => {
  await p?.close()
})

async function connect(domain: string, token = ws.apiKey): Promise<string> {
  const r = await p.api('POST', '/v1/connections', { token, body: { domain, application_id: ws.appId } })
  expect([200, 201]).toContain(r.status)
  return r.body.id
}

const status = (id: string, token: string, query = '') => p.api('GET', `/v1/connections/${id}/status${query}`, { token })

describe('the domain check answer', () => {
  test('stays inside its closed schema and names the asking application', async () => {
    await pdns.setRecords(`busy.${zone}`, 'A', ['198.51.100.9'])
    const token = await widgetToken(p, ws)
    const r = await p.api('POST', '/v1/domains:check', { token, body: { domain: `busy.${zone}` } })
    expect(r.status).toBe(200)
    expect(Value.Check(DomainCheckSchema, r.body)).toBe(true)
    const name = (await p.db`select name from applications where id = ${ws.appId}`)[0]!.name
    expect(r.body.application).toEqual({ id: ws.appId, name, branding: null })
    // Closed: an answer with one field more is outside the schema.
    expect(Value.Check(DomainCheckSchema, { ...r.body, surprise: 1 })).toBe(false)
  })
})

describe('GET /connections/{id}/status', () => {
  test('records, conflicts as of the last verification, live; the version changes with them', async () => {
    const domain = `clash${++seq}.${zone}`
    await pdns.setRecords(domain, 'A', ['192.0.2.7'])
    const id = await connect(domain)
    const token = await widgetToken(p, ws)
    const first = await status(id, token)
    expect(first.status).toBe(200)
    expect(Value.Check(ConnectionStatusSchema, first.body)).toBe(true)
    expect(first.body).toMatchObject({ id, domain, status: 'pending', secure: 'not_served', records: [{ type: 'CNAME', host: domain.split('.')[0], value: EDGE, state: 'conflict' }] })
    expect(first.body.conflicts).toEqual([{ kind: 'routing', type: 'A', host: domain.split('.')[0], value: '192.0.2.7', desired: { type: 'CNAME', host: domain.split('.')[0], value: EDGE }, action: 'remove' }])

    // The person removes the record in the way; the next verification no longer reports it.
    await pdns.deleteRecords(domain, 'A')
    await p.api('POST', `/v1/connections/${id}:recheck`, { token })
    const cleared = await status(id, token)
    expect(cleared.body.conflicts).toEqual([])
    expect(cleared.body.records[0].state).toBe('waiting')
    expect(cleared.body.version).not.toBe(first.body.version)

    await pdns.setRecords(domain, 'CNAME', [`${EDGE}.`])
    await p.api('POST', `/v1/connections/${id}:recheck`, { token })
    const live = await status(id, token)
    expect(live.body).toMatchObject({ status: 'live', conflicts: [], records: [{ state: 'found' }] })
  })

  test('long polling: `after` the current version waits until something changes, or until `wait` is over', async () => {
    const domain = `wait${++seq}.${zone}`
    const id = await connect(domain)
    const token = await widgetToken(p, ws)
    const now = await status(id, token)
    const t0 = performance.now()
    const same = await status(id, token, `?after=${now.body.version}&wait=2`)
    expect(performance.now() - t0).toBeGreaterThanOrEqual(1900)
    expect(same.body.version).toBe(now.body.version)

    // A change while the request waits answers it at once with the new version.
    const t1 = performance.now()
    const waiting = status(id, token, `?after=${now.body.version}&wait=8`)
    await Bun.sleep(1200)
    await pdns.setRecords(domain, 'CNAME', [`${EDGE}.`])
    await p.api('POST', `/v1/connections/${id}:recheck`, { token })
    const changed = await waiting
    expect(performance.now() - t1).toBeLessThan(10_000)
    expect(changed.body.status).toBe('live')
    expect(changed.body.version).not.toBe(now.body.version)

    // A stale `after` answers at once.
    const t2 = performance.now()
    await status(id, token, `?after=stale&wait=8`)
    expect(performance.now() - t2).toBeLessThan(1000)
    expect((await status(id, token, '?wait=9')).status).toBe(400)
  })

  test('a widget token reaches its own connection only; a domain-bound one only its own hostname', async () => {
    const mine = `mine${++seq}.${zone}`
    const theirs = `theirs${seq}.${zone}`
    const mineId = await connect(mine)
    const theirsId = await connect(theirs)
    const bound = await widgetToken(p, ws, { domain: mine })
    expect((await status(mineId, bound)).status).toBe(200)
    expect((await status(theirsId, bound)).status).toBe(404)
    const other = await provision(p)
    const foreign = await widgetToken(p, other)
    expect((await status(mineId, foreign)).status).toBe(404)
    expect((await status(mineId, other.apiKey)).status).toBe(404)
    expect((await status(mineId, ws.apiKey)).status).toBe(200)
    expect((await p.api('GET', `/v1/connections/${mineId}/status`)).status).toBe(401)
  })

  test('HTTPS: securing until the certificate is issued, failed with the reason, not served when pointed elsewhere', async () => {
    const domain = `tls${++seq}.${zone}`
    await pdns.setRecords(domain, 'CNAME', [`${EDGE}.`])
    const id = await connect(domain)
    await p.api('POST', `/v1/connections/${id}:recheck`, { token: ws.apiKey })
    const [row] = (await p.db`select * from connections where id = ${id}`) as ConnectionRow[]
    const [app] = (await p.db`select * from applications where id = ${ws.appId}`) as ApplicationRow[]
    expect(row!.status).toBe('live')
    const deps = { db: p.db, dns: p.services.verifyDns, edgeTarget: EDGE, edge: true, issuer: true }
    expect((await connectionStatus(deps, row!, app!)).secure).toBe('securing')
    const now = new Date()
    await p.db`insert into certificates (id, tenant_id, application_id, connection_id, domain, names, status, managed, last_error, created_at, updated_at)
      values (${`crt_${id}`}, ${ws.tenantId}, ${ws.appId}, ${id}, ${domain}, ${[domain]}, 'failed', true, 'CAA record forbids the CA', ${now}, ${now})`
    expect(await connectionStatus(deps, row!, app!)).toMatchObject({ secure: 'failed', secure_error: 'CAA record forbids the CA' })
    await p.db`update certificates set status = 'issued', last_error = null where connection_id = ${id}`
    expect(await connectionStatus(deps, row!, app!)).toMatchObject({ secure: 'secured', secure_error: null })
    expect((await connectionStatus({ ...deps, edgeTarget: 'elsewhere.example' }, row!, app!)).secure).toBe('not_served')
    expect((await connectionStatus({ ...deps, edge: false }, row!, app!)).secure).toBe('not_served')
  })
})
