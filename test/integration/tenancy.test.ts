// Foundation: tenants, provisioning, default keys, applications, API keys, credentials and errors,
// against real PostgreSQL through the real request handler.
import { describe, test, expect, beforeAll } from 'bun:test'
import { sha256 } from '../../src/crypto.ts'
import { arm, disarm } from '../../src/failpoints.ts'
import { MGMT, PROV, provision, sharedPortico, startPortico, widgetToken, type TestPortico, type Workspace } from '../harness/portico.ts'

let p: TestPortico
beforeAll(async () => {
  p = await sharedPortico()
})

async function counts() {
  const [r] = await p.db`select
    (select count(*)::int from tenants) as tenants, (select count(*)::int from applications) as apps,
    (select count(*)::int from members) as members, (select count(*)::int from api_keys) as keys`
  return r
}

describe('discovery', () => {
  test('healthz reports the database and the resolvers (nothing answers DNS on 127.0.0.1:53 here)', async () => {
    const r = await p.api('GET', '/healthz')
    expect(r.status).toBe(200)
    expect(r.body).toEqual({ status: 'ok', service: 'portico', env: 'test', db: 'ok', dns: 'unreachable', dns_resolvers: ['127.0.0.1:53'] })
  })

  test('config names the build and the API version', async () => {
    const r = await p.api('GET', '/v1/config')
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ service: 'portico', env: 'test', version: 'test', api_version: 'v1' })
    expect(r.body.products).toContain('connect')
  })

  test('rbac and plans are public catalogs', async () => {
    const rbac = await p.api('GET', '/v1/rbac')
    expect(rbac.status).toBe(200)
    const viewer = rbac.body.roles.find((r: { role: string }) => r.role === 'viewer')
    expect(viewer.permissions).not.toContain('members:manage')
    const plans = await p.api('GET', '/v1/plans')
    expect(plans.body.plans.find((x: { id: string }) => x.id === 'free').hard_cap).toBe(true)
  })
})

describe('tenants (management key)', () => {
  test('create and read; 401 without the key; unknown id 404', async () => {
    const c = await p.api('POST', '/v1/tenants', { token: MGMT, body: { name: 'Acme' } })
    expect(c.status).toBe(201)
    expect(c.body.id).toStartWith('ten_')
    expect(c.body.name).toBe('Acme')
    const g = await p.api('GET', `/v1/tenants/${c.body.id}`, { token: MGMT })
    expect(g.status).toBe(200)
    expect(g.body.name).toBe('Acme')
    expect((await p.api('POST', '/v1/tenants', { body: { name: 'x' } })).status).toBe(401)
    expect((await p.api('POST', '/v1/tenants', { token: 'nope', body: { name: 'x' } })).status).toBe(401)
    const missing = await p.api('GET', '/v1/tenants/ten_nope', { token: MGMT })
    expect(missing.status).toBe(404)
    expect(missing.body.code).toBe('not_found')
  })

  test('an API key cannot use management routes', async () => {
    const ws = await provision(p)
    const r = await p.api('GET', `/v1/tenants/${ws.tenantId}`, { token: ws.apiKey })
    expect(r.status).toBe(403)
    expect(r.body.code).toBe('forbidden')
  })

  test('management routes are refused in production', async () => {
    const prod = await startPortico({ APP_ENV: 'production' })
    try {
      const r = await prod.api('POST', '/v1/tenants', { token: MGMT, body: { name: 'x' } })
      expect(r.status).toBe(403)
      expect(r.body.code).toBe('forbidden')
    } finally {
      await prod.close()
    }
  })
})

describe('provisioning', () => {
  test('creates tenant, owner, default application and default key at once', async () => {
    const r = await p.api('POST', '/v1/tenants:provision', {
      token: PROV,
      body: { tenant_name: 'Beta', app_name: 'Beta App', owner_email: 'boss@beta.example', environment: 'test' },
    })
    expect(r.status).toBe(201)
    expect(Object.keys(r.body).sort()).toEqual(['api_key', 'application_id', 'client_secret', 'member_id', 'tenant_id'])
    expect(r.body.api_key).toStartWith('ptc_test_')
    const app = await p.api('GET', `/v1/applications/${r.body.application_id}`, { token: r.body.api_key })
    expect(app.body).toMatchObject({ name: 'Beta App', environment: 'test', tenant_id: r.body.tenant_id })
    const members = await p.api('GET', '/v1/members', { token: r.body.api_key })
    expect(members.body.members).toEqual([expect.objectContaining({ email: 'boss@beta.example', role: 'owner', status: 'active' })])
    const keys = await p.api('GET', `/v1/applications/${r.body.application_id}/keys`, { token: r.body.api_key })
    expect(keys.body.keys).toHaveLength(1)
    expect(keys.body.keys[0]).toMatchObject({ is_default: true, role: 'owner' })
  })

  test('the secret is accepted as header or bearer, refused when wrong', async () => {
    const body = { tenant_name: 'Gamma' }
    expect((await p.api('POST', '/v1/tenants:provision', { headers: { 'x-provision-secret': PROV }, body })).status).toBe(201)
    expect((await p.api('POST', '/v1/tenants:provision', { token: PROV, body })).status).toBe(201)
    expect((await p.api('POST', '/v1/tenants:provision', { headers: { 'x-provision-secret': 'wrong' }, body })).status).toBe(401)
    expect((await p.api('POST', '/v1/tenants:provision', { token: MGMT, body })).status).toBe(403)
  })

  for (const step of ['provision.after_tenant', 'provision.after_member', 'provision.after_application', 'provision.after_key']) {
    test(`a failure at ${step} leaves no rows behind`, async () => {
      const before = await counts()
      arm(step)
      try {
        const r = await p.api('POST', '/v1/tenants:provision', { token: PROV, body: { tenant_name: 'Broken', owner_email: 'a@b.example' } })
        expect(r.status).toBe(500)
        expect(r.body).toEqual({ code: 'internal_error', title: 'Internal error' })
      } finally {
        disarm(step)
      }
      expect(await counts()).toEqual(before)
    })
  }

  test('bad input is 400 with the field named', async () => {
    const r = await p.api('POST', '/v1/tenants:provision', { token: PROV, body: { tenant_name: '', owner_email: 'not-an-email', color: 'red' } })
    expect(r.status).toBe(400)
    expect(r.body.code).toBe('invalid_request')
    const fields = r.body.details.map((d: { field: string }) => d.field)
    expect(fields).toEqual(expect.arrayContaining(['tenant_name', 'owner_email', 'color']))
  })
})

describe('workspace default key', () => {
  test('200 without a secret when one exists; 201 once after it is revoked, even under concurrency', async () => {
    const ws = await provision(p)
    const first = await p.api('POST', `/v1/tenants/${ws.tenantId}/default-key`, { token: PROV })
    expect(first.status).toBe(200)
    expect(first.body.created).toBe(false)
    expect(first.body.api_key).toBeUndefined()
    const revoke = await p.api('DELETE', `/v1/applications/${ws.appId}/keys/${first.body.key_id}`, { token: ws.apiKey })
    expect(revoke.status).toBe(200)
    const results = await Promise.all(Array.from({ length: 8 }, () => p.api('POST', `/v1/tenants/${ws.tenantId}/default-key`, { token: PROV })))
    const created = results.filter((r) => r.status === 201)
    expect(created).toHaveLength(1)
    expect(results.filter((r) => r.status === 200)).toHaveLength(7)
    expect(created[0]!.body.api_key).toStartWith('ptc_live_')
    const newKey = created[0]!.body.api_key
    expect((await p.api('GET', '/v1/applications', { token: newKey })).status).toBe(200)
    expect((await p.api('POST', `/v1/tenants/ten_missing/default-key`, { token: PROV })).status).toBe(404)
  })
})

describe('applications', () => {
  let ws: Workspace
  let other: Workspace
  beforeAll(async () => {
    ws = await provision(p)
    other = await provision(p)
  })

  test('with a key, the app lands in the key\'s tenant whatever tenant_id says', async () => {
    const r = await p.api('POST', '/v1/applications', { token: ws.apiKey, body: { tenant_id: other.tenantId, name: 'Shop' } })
    expect(r.status).toBe(201)
    expect(r.body.tenant_id).toBe(ws.tenantId)
    expect(r.body.client_secret).toStartWith('pcs_')
    const list = await p.api('GET', '/v1/applications', { token: ws.apiKey })
    expect(list.body.count).toBe(2)
    expect(list.body.applications.every((a: { client_secret?: string }) => a.client_secret === undefined)).toBe(true)
  })

  test('with the management key, tenant_id is required', async () => {
    const missing = await p.api('POST', '/v1/applications', { token: MGMT, body: { name: 'X' } })
    expect(missing.status).toBe(400)
    expect((await p.api('GET', '/v1/applications', { token: MGMT })).status).toBe(400)
    const ok = await p.api('POST', '/v1/applications', { token: MGMT, body: { tenant_id: other.tenantId, name: 'X' } })
    expect(ok.status).toBe(201)
    const list = await p.api('GET', `/v1/applications?tenant_id=${other.tenantId}`, { token: MGMT })
    expect(list.body.applications.map((a: { id: string }) => a.id)).toContain(ok.body.id)
    expect((await p.api('POST', '/v1/applications', { token: MGMT, body: { tenant_id: 'ten_nope', name: 'X' } })).status).toBe(404)
  })

  test('another tenant\'s application is 404', async () => {
    const r = await p.api('GET', `/v1/applications/${other.appId}`, { token: ws.apiKey })
    expect(r.status).toBe(404)
    expect((await p.api('GET', `/v1/applications/${other.appId}/keys`, { token: ws.apiKey })).status).toBe(404)
    expect((await p.api('POST', `/v1/applications/${other.appId}/keys`, { token: ws.apiKey })).status).toBe(404)
  })

  test('a widget token reads its own application only (scope app), and cannot create apps or keys', async () => {
    const appScoped = await widgetToken(p, ws, { scope: 'app' })
    expect((await p.api('GET', `/v1/applications/${ws.appId}`, { token: appScoped })).status).toBe(200)
    expect((await p.api('GET', `/v1/applications/${other.appId}`, { token: appScoped })).status).toBe(404)
    const w = await widgetToken(p, ws)
    // The end user's (connect-scoped) token does not read application-level resources.
    expect((await p.api('GET', `/v1/applications/${ws.appId}`, { token: w })).status).toBe(403)
    const app = await p.api('POST', '/v1/applications', { token: w, body: { name: 'Nope' } })
    expect(app.status).toBe(403)
    const key = await p.api('POST', `/v1/applications/${ws.appId}/keys`, { token: w, body: {} })
    expect(key.status).toBe(403)
    const invite = await p.api('POST', '/v1/members', { token: w, body: { email: 'x@y.example' } })
    expect(invite.status).toBe(403)
  })
})

describe('API keys', () => {
  test('shown once, listed as metadata, revoked keys fail on the next request', async () => {
    const ws = await provision(p)
    const c = await p.api('POST', `/v1/applications/${ws.appId}/keys`, { token: ws.apiKey, body: { name: 'ci', role: 'admin' } })
    expect(c.status).toBe(201)
    expect(c.body.key).toStartWith('ptc_live_')
    expect(c.body.key.startsWith(c.body.prefix)).toBe(true)
    const list = await p.api('GET', `/v1/applications/${ws.appId}/keys`, { token: c.body.key })
    expect(list.status).toBe(200)
    const text = JSON.stringify(list.body)
    expect(text).not.toContain(c.body.key)
    expect(list.body.keys.every((k: Record<string, unknown>) => !('key' in k) && !('key_hash' in k))).toBe(true)
    const [row] = await p.db`select key_hash from api_keys where id = ${c.body.id}`
    expect(Buffer.from(row.key_hash).equals(sha256(c.body.key))).toBe(true)

    const revoke = await p.api('DELETE', `/v1/applications/${ws.appId}/keys/${c.body.id}`, { token: ws.apiKey })
    expect(revoke.status).toBe(200)
    expect(revoke.body.revoked).toBe(true)
    const after = await p.api('GET', '/v1/applications', { token: c.body.key })
    expect(after.status).toBe(401)
    expect(after.body.code).toBe('unauthorized')
    const again = await p.api('DELETE', `/v1/applications/${ws.appId}/keys/${c.body.id}`, { token: ws.apiKey })
    expect(again.status).toBe(200)
    expect(again.body.revoked_at).toBe(revoke.body.revoked_at)
  })

  test('a key revoked through one process stops working in another (cache eviction by NOTIFY)', async () => {
    const other = await startPortico()
    try {
      const ws = await provision(p)
      const c = await p.api('POST', `/v1/applications/${ws.appId}/keys`, { token: ws.apiKey })
      // Both processes have the key cached now.
      expect((await other.api('GET', '/v1/applications', { token: c.body.key })).status).toBe(200)
      expect((await p.api('GET', '/v1/applications', { token: c.body.key })).status).toBe(200)
      expect((await other.api('DELETE', `/v1/applications/${ws.appId}/keys/${c.body.id}`, { token: ws.apiKey })).status).toBe(200)
      // The revoking process refuses at once; the other one as soon as the commit notification lands.
      expect((await other.api('GET', '/v1/applications', { token: c.body.key })).status).toBe(401)
      let status = 200
      for (let i = 0; i < 100 && status === 200; i++) {
        status = (await p.api('GET', '/v1/applications', { token: c.body.key })).status
        if (status === 200) await Bun.sleep(5)
      }
      expect(status).toBe(401)
    } finally {
      await other.close()
    }
  })

  test('with the cache off every request reads the key', async () => {
    const strict = await startPortico({ API_KEY_CACHE: '0' })
    try {
      expect(strict.services.keyCache).toBeUndefined()
      const ws = await provision(strict)
      const c = await strict.api('POST', `/v1/applications/${ws.appId}/keys`, { token: ws.apiKey })
      expect((await strict.api('GET', '/v1/applications', { token: c.body.key })).status).toBe(200)
      await p.db`update api_keys set revoked_at = now() where id = ${c.body.id}`
      expect((await strict.api('GET', '/v1/applications', { token: c.body.key })).status).toBe(401)
    } finally {
      await strict.close()
    }
  })

  test('roles: a viewer cannot mint keys; nobody mints above their own role', async () => {
    const ws = await provision(p)
    const admin = await p.api('POST', `/v1/applications/${ws.appId}/keys`, { token: ws.apiKey, body: { role: 'admin' } })
    const viewer = await p.api('POST', `/v1/applications/${ws.appId}/keys`, { token: ws.apiKey, body: { role: 'viewer' } })
    const v = await p.api('POST', `/v1/applications/${ws.appId}/keys`, { token: viewer.body.key, body: { role: 'viewer' } })
    expect(v.status).toBe(403)
    const up = await p.api('POST', `/v1/applications/${ws.appId}/keys`, { token: admin.body.key, body: { role: 'owner' } })
    expect(up.status).toBe(403)
    const same = await p.api('POST', `/v1/applications/${ws.appId}/keys`, { token: admin.body.key })
    expect(same.status).toBe(201)
    expect(same.body.role).toBe('admin')
    const rv = await p.api('DELETE', `/v1/applications/${ws.appId}/keys/${admin.body.id}`, { token: viewer.body.key })
    expect(rv.status).toBe(403)
  })

  test('keys with the older sk_live_ prefix still authenticate', async () => {
    const ws = await provision(p)
    const legacy = 'sk_live_' + 'a'.repeat(40)
    await p.db`insert into api_keys (id, tenant_id, application_id, role, prefix, key_hash, created_at)
               values ('key_legacy_' || ${ws.tenantId}, ${ws.tenantId}, ${ws.appId}, 'admin', 'sk_live_aaaa', ${sha256(legacy)}, now())`
    const r = await p.api('GET', `/v1/applications/${ws.appId}`, { token: legacy })
    expect(r.status).toBe(200)
  })

  test('a test application mints ptc_test_ keys', async () => {
    const ws = await provision(p)
    const app = await p.api('POST', '/v1/applications', { token: ws.apiKey, body: { name: 'Sandbox', environment: 'test' } })
    const k = await p.api('POST', `/v1/applications/${app.body.id}/keys`, { token: ws.apiKey })
    expect(k.body.key).toStartWith('ptc_test_')
  })
})

describe('widget tokens', () => {
  test('minted with the client secret; wrong secret 401; expire after 60 minutes', async () => {
    const ws = await provision(p)
    const r = await p.api('POST', '/v1/tokens', { body: { application_id: ws.appId, client_secret: ws.clientSecret, domain: 'Shop.Example.COM.' } })
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600 })
    const claims = JSON.parse(Buffer.from(r.body.token.split('.')[1], 'base64url').toString())
    expect(claims).toMatchObject({ sub: ws.appId, tid: ws.tenantId, dom: 'shop.example.com', scope: 'connect' })
    expect((await p.api('POST', '/v1/tokens', { body: { application_id: ws.appId, client_secret: 'pcs_wrong' } })).status).toBe(401)
    expect((await p.api('POST', '/v1/tokens', { body: { application_id: 'app_nope', client_secret: ws.clientSecret } })).status).toBe(401)
    expect((await p.api('POST', '/v1/tokens', { body: { application_id: ws.appId, client_secret: ws.clientSecret, domain: 'not a host' } })).status).toBe(400)
    // Valid: an unknown connection is 404 to it; expired: 401.
    expect((await p.api('GET', '/v1/connections/con_nope', { token: r.body.token })).status).toBe(404)
    p.clock.advance(61 * 60_000)
    try {
      expect((await p.api('GET', '/v1/connections/con_nope', { token: r.body.token })).status).toBe(401)
    } finally {
      p.clock.reset()
    }
  })
})

describe('errors', () => {
  test('malformed JSON, unknown fields, unknown routes and wrong methods use the envelope', async () => {
    const bad = await p.api('POST', '/v1/tenants', { token: MGMT, rawBody: '{"name":', headers: { 'content-type': 'application/json' } })
    expect(bad.status).toBe(400)
    expect(bad.body).toEqual({ code: 'invalid_request', title: 'The body is not valid JSON' })
    const unknown = await p.api('POST', '/v1/tenants', { token: MGMT, body: { name: 'x', plan: 'gold' } })
    expect(unknown.status).toBe(400)
    expect(unknown.body.details).toEqual([{ in: 'body', field: 'plan', message: 'unknown field' }])
    const arr = await p.api('POST', '/v1/tenants', { token: MGMT, body: [1, 2] })
    expect(arr.status).toBe(400)
    const route = await p.api('GET', '/v1/nothing-here')
    expect(route.status).toBe(404)
    expect(route.body.code).toBe('not_found')
    const method = await p.api('PUT', '/v1/tenants', { token: MGMT })
    expect(method.status).toBe(405)
    expect(method.headers.get('allow')).toBe('POST')
    const noBody = await p.api('GET', '/v1/config', { rawBody: undefined })
    expect(noBody.status).toBe(200)
  })

  test('every response carries a request id', async () => {
    const r = await p.api('GET', '/v1/config', { headers: { 'x-request-id': 'abc-123' } })
    expect(r.headers.get('x-request-id')).toBe('abc-123')
  })
})
