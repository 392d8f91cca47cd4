// Keys and secrets follow the role rules, from the integrator's side: an admin key cannot revoke the
// owner's key; a client_secret rotates with the overlap it was given; widget tokens that outlive their
// page are listed and revoked, and a revoked one is refused by every process.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { startPortico, provision, type TestPortico, type Workspace } from '../harness/portico.ts'

let p: TestPortico
let ws: Workspace

beforeAll(async () => {
  p = await startPortico()
  ws = await provision(p)
})

afterAll(async () => {
  await p?.close()
})

const mint = (q: TestPortico, secret: string, extra: Record<string, unknown> = {}) => q.api('POST', '/v1/tokens', { body: { application_id: ws.appId, client_secret: secret, ...extra } })

describe('API keys and roles', () => {
  test('an admin key cannot revoke the owner\'s key; the owner\'s key can revoke the admin\'s; an admin revokes its own rank and below', async () => {
    const keys = await p.api('GET', `/v1/applications/${ws.appId}/keys`, { token: ws.apiKey })
    const ownerKey = keys.body.keys.find((k: { is_default: boolean }) => k.is_default)
    expect(ownerKey.role).toBe('owner')
    const admin = await p.api('POST', `/v1/applications/${ws.appId}/keys`, { token: ws.apiKey, body: { name: 'ops', role: 'admin' } })
    expect(admin.status).toBe(201)
    const refused = await p.api('DELETE', `/v1/applications/${ws.appId}/keys/${ownerKey.id}`, { token: admin.body.key })
    expect(refused.status).toBe(403)
    expect(refused.body.code).toBe('forbidden')
    // The owner's key still works.
    expect((await p.api('GET', '/v1/connections', { token: ws.apiKey })).status).toBe(200)
    const member = await p.api('POST', `/v1/applications/${ws.appId}/keys`, { token: admin.body.key, body: { name: 'ci', role: 'member' } })
    expect((await p.api('DELETE', `/v1/applications/${ws.appId}/keys/${member.body.id}`, { token: admin.body.key })).status).toBe(200)
    expect((await p.api('DELETE', `/v1/applications/${ws.appId}/keys/${admin.body.id}`, { token: ws.apiKey })).status).toBe(200)
  })
})

describe('client_secret rotation', () => {
  test('the new secret works at once; the previous one until its overlap ends; rotating again ends the earlier one at once', async () => {
    const first = ws.clientSecret
    const r = await p.api('POST', `/v1/applications/${ws.appId}:rotate-secret`, { token: ws.apiKey, body: { overlap_seconds: 3600 } })
    expect(r.status).toBe(200)
    expect(r.body.client_secret).not.toBe(first)
    const until = new Date(r.body.previous_valid_until).getTime()
    expect(until - p.clock.now().getTime()).toBeGreaterThan(3590_000)
    expect((await mint(p, r.body.client_secret)).status).toBe(200)
    expect((await mint(p, first)).status).toBe(200)
    p.clock.advance(3601_000)
    try {
      expect((await mint(p, first)).status).toBe(401)
      expect((await mint(p, r.body.client_secret)).status).toBe(200)
    } finally {
      p.clock.reset()
    }
    // The default overlap is a day; a second rotation leaves only the secret it replaced overlapping.
    const again = await p.api('POST', `/v1/applications/${ws.appId}:rotate-secret`, { token: ws.apiKey })
    expect(new Date(again.body.previous_valid_until).getTime() - p.clock.now().getTime()).toBeGreaterThan(86_390_000)
    expect((await mint(p, r.body.client_secret)).status).toBe(200)
    expect((await mint(p, first)).status).toBe(401)
    ws.clientSecret = again.body.client_secret
    // Rotation is for admins and owners.
    const viewer = await p.api('POST', `/v1/applications/${ws.appId}/keys`, { token: ws.apiKey, body: { name: 'read', role: 'viewer' } })
    expect((await p.api('POST', `/v1/applications/${ws.appId}:rotate-secret`, { token: viewer.body.key })).status).toBe(403)
  })
})

describe('widget tokens', () => {
  test('listed by id, revoked before they expire; a revoked token is refused here and by another process', async () => {
    const other = await startPortico()
    try {
      const t = await mint(p, ws.clientSecret, { scope: 'app', expires_in: 86_400 })
      expect(t.status).toBe(200)
      expect(t.body.token_id).toMatch(/^wtk_/)
      const listed = await p.api('GET', `/v1/applications/${ws.appId}/widget-tokens`, { token: ws.apiKey })
      expect(listed.status).toBe(200)
      const row = listed.body.widget_tokens.find((x: { id: string }) => x.id === t.body.token_id)
      expect(row).toMatchObject({ application_id: ws.appId, scope: 'app', bound_host: null, revoked_at: null })
      expect(JSON.stringify(listed.body)).not.toContain(t.body.token)
      expect((await p.api('GET', '/v1/webhooks', { token: t.body.token })).status).toBe(200)
      expect((await other.api('GET', '/v1/webhooks', { token: t.body.token })).status).toBe(200)
      const revoked = await p.api('DELETE', `/v1/applications/${ws.appId}/widget-tokens/${t.body.token_id}`, { token: ws.apiKey })
      expect(revoked.status).toBe(200)
      expect(revoked.body.revoked_at).toBeString()
      expect((await p.api('GET', '/v1/webhooks', { token: t.body.token })).status).toBe(401)
      // The other process hears of it through the database's notification.
      let status = 0
      for (let i = 0; i < 50 && status !== 401; i++) {
        status = (await other.api('GET', '/v1/webhooks', { token: t.body.token })).status
        if (status !== 401) await Bun.sleep(20)
      }
      expect(status).toBe(401)
      // A process started later reads the revocation at start.
      const later = await startPortico()
      try {
        expect((await later.api('GET', '/v1/webhooks', { token: t.body.token })).status).toBe(401)
      } finally {
        await later.close()
      }
      // Another workspace cannot see or revoke it.
      const stranger = await provision(p)
      expect((await p.api('DELETE', `/v1/applications/${ws.appId}/widget-tokens/${t.body.token_id}`, { token: stranger.apiKey })).status).toBe(404)
    } finally {
      await other.close()
    }
  })
})
