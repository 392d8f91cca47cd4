// Every mutation of the foundation lands in the audit log with the right actor; owners and admins read
// their tenant's log, the management key every tenant's.
import { describe, test, expect, beforeAll } from 'bun:test'
import { MGMT, PROV, provision, sharedPortico, type TestPortico } from '../harness/portico.ts'

let p: TestPortico
beforeAll(async () => {
  p = await sharedPortico()
})

describe('audit log', () => {
  test('each foundation mutation is recorded with its actor', async () => {
    const t = await p.api('POST', '/v1/tenants', { token: MGMT, body: { name: 'Audited' } })
    const prov = await p.api('POST', '/v1/tenants:provision', { token: PROV, body: { tenant_name: 'Audit Co', owner_email: 'o@audit.example' } })
    const tenant = prov.body.tenant_id
    const key = prov.body.api_key
    const keyId = (await p.api('GET', `/v1/applications/${prov.body.application_id}/keys`, { token: key })).body.keys[0].id
    const app = await p.api('POST', '/v1/applications', { token: key, body: { name: 'Second' } })
    const k = await p.api('POST', `/v1/applications/${app.body.id}/keys`, { token: key, body: { role: 'admin' } })
    await p.api('DELETE', `/v1/applications/${app.body.id}/keys/${k.body.id}`, { token: key })
    await p.api('POST', `/v1/tenants/${tenant}/default-key`, { token: PROV })
    await p.api('POST', '/v1/tokens', { body: { application_id: app.body.id, client_secret: app.body.client_secret } })
    const inv = await p.api('POST', '/v1/members', { token: key, body: { email: 'dev@audit.example' } })
    await p.api('PATCH', `/v1/members/${inv.body.id}`, { token: key, body: { role: 'admin' } })
    await p.api('POST', '/v1/members:accept', { body: { invite_token: inv.body.invite_token } })

    const log = await p.api('GET', '/v1/audit-log?limit=500', { token: key })
    expect(log.status).toBe(200)
    const by = (action: string) => log.body.entries.filter((e: { action: string }) => e.action === action)
    expect(by('tenants.provision')).toEqual([expect.objectContaining({ actor_kind: 'PROV', actor_id: null, tenant_id: tenant, target_id: tenant })])
    for (const action of ['applications.create', 'keys.create', 'keys.revoke', 'members.invite', 'members.update']) {
      expect({ action, rows: by(action).map((e: { actor_kind: string; actor_id: string }) => [e.actor_kind, e.actor_id]) }).toEqual({ action, rows: [['KEY', keyId]] })
    }
    expect(by('keys.revoke')[0].target_id).toBe(k.body.id)
    expect(by('tenants.default_key')[0]).toMatchObject({ actor_kind: 'PROV', details: { status: 200 } })
    expect(by('tokens.create')[0]).toMatchObject({ actor_kind: 'NONE', target_id: app.body.id })
    expect(by('members.accept')[0]).toMatchObject({ actor_kind: 'NONE', target_id: inv.body.id })
    expect(log.body.entries.every((e: { tenant_id: string; ip: string; request_id: string }) => e.tenant_id === tenant && e.ip && e.request_id)).toBe(true)

    // The management key reads across tenants.
    const all = await p.api('GET', `/v1/audit-log?tenant_id=${t.body.id}`, { token: MGMT })
    expect(all.body.entries).toEqual([expect.objectContaining({ action: 'tenants.create', actor_kind: 'MGMT', tenant_id: t.body.id })])
  })

  test('members and viewers cannot read it; another tenant sees none of it; paging', async () => {
    const ws = await provision(p)
    const viewer = (await p.api('POST', `/v1/applications/${ws.appId}/keys`, { token: ws.apiKey, body: { role: 'viewer' } })).body.key
    const member = (await p.api('POST', `/v1/applications/${ws.appId}/keys`, { token: ws.apiKey, body: { role: 'member' } })).body.key
    expect((await p.api('GET', '/v1/audit-log', { token: viewer })).status).toBe(403)
    expect((await p.api('GET', '/v1/audit-log', { token: member })).status).toBe(403)
    expect((await p.api('GET', `/v1/audit-log?tenant_id=${ws.tenantId}`, { token: ws.apiKey })).status).toBe(400)
    const other = await provision(p)
    const theirs = await p.api('GET', '/v1/audit-log', { token: other.apiKey })
    expect(theirs.body.entries.every((e: { tenant_id: string }) => e.tenant_id === other.tenantId)).toBe(true)
    const first = await p.api('GET', '/v1/audit-log?limit=1', { token: ws.apiKey })
    const second = await p.api('GET', `/v1/audit-log?limit=1&cursor=${first.body.next_cursor}`, { token: ws.apiKey })
    expect(second.body.entries[0].id < first.body.entries[0].id).toBe(true)
  })
})

describe('the address in the audit log', () => {
  // The socket's peer is asked for once, at the start of a write: a client that hangs up while its
  // write runs (the server then knows no peer) is still recorded with the address it came from.
  test('a client that hangs up while its write runs is recorded with its address', async () => {
    const ws = await provision(p)
    let connected = true
    const server = { requestIP: () => (connected ? { address: '192.0.2.77' } : null) }
    const req = new Request('http://portico.test/v1/applications', {
      method: 'POST',
      headers: { authorization: `Bearer ${ws.apiKey}`, 'content-type': 'application/json', 'x-request-id': 'req_hangs_up' },
      body: JSON.stringify({ name: 'Hung up' }),
    })
    const answer = p.handle(req, server as never)
    connected = false
    expect((await answer).status).toBe(201)
    const log = await p.api('GET', '/v1/audit-log?limit=50', { token: ws.apiKey })
    const rows = log.body.entries.filter((e: { request_id: string }) => e.request_id === 'req_hangs_up')
    expect(rows.length).toBeGreaterThan(0)
    expect(rows.map((e: { ip: string }) => e.ip)).toEqual(rows.map(() => '192.0.2.77'))
  })
})
