// Share links against real DNS: a person hands a connection's manual setup to whoever controls the DNS.
// The link needs no credential, shows the records and the failure reason, lets "I have added them"
// re-check, and answers 404 after 30 days (by the movable clock) or once the connection is gone.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { startPdns, type Pdns } from '../harness/pdns.ts'
import { provision, startPortico, widgetToken, type TestPortico, type Workspace } from '../harness/portico.ts'
import { DAY, HOUR } from '../../src/clock.ts'

let pdns: Pdns
let p: TestPortico
let ws: Workspace
let zone: string
const EDGE = 'edge.portico.test'
let seq = 0

beforeAll(async () => {
  pdns = await startPdns()
  p = await startPortico({ DNS_RESOLVERS: pdns.dnsAddress, EDGE_CNAME_TARGET: EDGE, PUBLIC_URL: 'https://portico.example' })
  ws = await provision(p)
  zone = `s${Date.now().toString(36)}.test`
  await pdns.createZone(zone)
})

afterAll(async () => {
  await p?.close()
})

async function connection(token = ws.apiKey) {
  const domain = `shop${++seq}.${zone}`
  const c = await p.api('POST', '/v1/connections', { token, body: { domain } })
  expect(c.status).toBe(201)
  return { id: c.body.id as string, domain }
}

const share = (id: string, token = ws.apiKey) => p.api('POST', `/v1/connections/${id}/share`, { token })
const tokenOf = (url: string) => url.split('/').pop()!

describe('share links', () => {
  test('a share link opens the manual setup without a credential and expires after 30 days', async () => {
    const { id, domain } = await connection()
    const before = p.clock.now().getTime()
    const s = await share(id)
    expect(s.status).toBe(201)
    expect(s.body.url).toBe(`https://portico.example/share/${s.body.token}`)
    const ttl = new Date(s.body.expires_at).getTime() - before
    expect(ttl).toBeGreaterThanOrEqual(30 * DAY)
    expect(ttl).toBeLessThan(30 * DAY + 5000)

    const r = await p.api('GET', `/v1/share/${s.body.token}`)
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ connection_id: id, domain, status: 'pending', provider: 'powerdns', error_code: null })
    expect(r.body.records).toEqual([{ type: 'CNAME', host: domain.split('.')[0], value: EDGE, ttl: 300, purpose: 'routing' }])
    expect(r.body.tenant_id).toBeUndefined()
    // When Portico checks next, as on the connection: what a page following the link waits for.
    const own = await p.api('GET', `/v1/connections/${id}`, { token: ws.apiKey })
    expect(r.body.next_check_at).toBe(own.body.next_check_at)
    expect(r.body.next_check_at).toBeString()

    p.clock.advance(30 * DAY - HOUR)
    expect((await p.api('GET', `/v1/share/${s.body.token}`)).status).toBe(200)
    p.clock.advance(2 * HOUR)
    const gone = await p.api('GET', `/v1/share/${s.body.token}`)
    expect(gone.status).toBe(404)
    expect(gone.body.code).toBe('not_found')
    expect((await p.api('POST', `/v1/share/${s.body.token}:recheck`)).status).toBe(404)
  })

  test('"I have added them" through the link re-checks and the connection goes live', async () => {
    const { id, domain } = await connection()
    const token = tokenOf((await share(id)).body.url)
    const early = await p.api('POST', `/v1/share/${token}:recheck`)
    expect(early.status).toBe(200)
    expect(early.body.status).toBe('propagating')
    expect(early.body.propagation.records_non_propagated).toHaveLength(1)
    await pdns.setRecords(domain, 'CNAME', [`${EDGE}.`])
    const live = await p.api('POST', `/v1/share/${token}:recheck`)
    expect(live.body.status).toBe('live')
    expect((await p.api('GET', `/v1/connections/${id}`, { token: ws.apiKey })).body.status).toBe('live')
    const [audit] = await p.db`select tenant_id, actor_kind, target_id from audit_log where action = 'share.recheck' and target_id = ${id} limit 1`
    expect(audit).toEqual({ tenant_id: ws.tenantId, actor_kind: 'NONE', target_id: id })
  })

  test('a failed connection shows its reason on the link', async () => {
    const { id } = await connection()
    await p.db`update connections set status = 'failed', error_code = 'propagation_timeout', error_message = 'The records never appeared' where id = ${id}`
    const token = (await share(id)).body.token
    const r = await p.api('GET', `/v1/share/${token}`)
    expect(r.body).toMatchObject({ status: 'failed', error_code: 'propagation_timeout', error_message: 'The records never appeared' })
  })

  test('unknown tokens, disconnected connections and foreign connections answer 404', async () => {
    expect((await p.api('GET', '/v1/share/shr_nothing_here_at_all')).status).toBe(404)
    const { id } = await connection()
    const token = (await share(id)).body.token
    expect((await p.api('DELETE', `/v1/connections/${id}`, { token: ws.apiKey })).status).toBe(200)
    expect((await p.api('GET', `/v1/share/${token}`)).status).toBe(404)
    const other = await provision(p)
    const { id: mine } = await connection()
    expect((await share(mine, other.apiKey)).status).toBe(404)
  })

  test('widget tokens: own application only, and a domain-bound token only its hostname', async () => {
    const { id, domain } = await connection()
    const free = await widgetToken(p, ws)
    expect((await share(id, free)).status).toBe(201)
    const bound = await widgetToken(p, ws, { domain })
    expect((await share(id, bound)).status).toBe(201)
    const elsewhere = await widgetToken(p, ws, { domain: `other.${zone}` })
    expect((await share(id, elsewhere)).status).toBe(404)
  })

  test('only the hash of the token is stored', async () => {
    const { id } = await connection()
    const token = (await share(id)).body.token as string
    const rows = await p.db`select token_hash from share_links where connection_id = ${id}`
    expect(rows).toHaveLength(1)
    expect(rows[0]!.token_hash).not.toContain(token)
    expect(rows[0]!.token_hash).toMatch(/^[0-9a-f]{64}$/)
  })

  test('a share link is ended without deleting its connection; the connection\'s other links and the connection stay', async () => {
    const { id } = await connection()
    const a = await share(id)
    const b = await share(id)
    expect(a.body.id).toMatch(/^shl_/)
    const listed = await p.api('GET', `/v1/connections/${id}/share-links`, { token: ws.apiKey })
    expect(listed.status).toBe(200)
    expect(listed.body.share_links.map((l: { id: string }) => l.id).sort()).toEqual([a.body.id, b.body.id].sort())
    expect(JSON.stringify(listed.body)).not.toContain(a.body.token)
    const ended = await p.api('DELETE', `/v1/connections/${id}/share-links/${a.body.id}`, { token: ws.apiKey })
    expect(ended.status).toBe(200)
    expect(ended.body).toEqual({ id: a.body.id, revoked: true })
    expect((await p.api('GET', `/v1/share/${a.body.token}`)).status).toBe(404)
    // The page of an ended link says it may have been withdrawn, not only that it expired or never was valid.
    const page = await p.app.handle(new Request(`http://portico.test/share/${a.body.token}?lang=en`))
    expect(page.status).toBe(404)
    expect(await page.text()).toContain('It has expired, was withdrawn, or was never valid.')
    expect((await p.api('GET', `/v1/share/${b.body.token}`)).status).toBe(200)
    expect((await p.api('GET', `/v1/connections/${id}`, { token: ws.apiKey })).status).toBe(200)
    expect((await p.api('DELETE', `/v1/connections/${id}/share-links/${a.body.id}`, { token: ws.apiKey })).status).toBe(404)
    // Another workspace's key cannot see or end them.
    const other = await provision(p)
    expect((await p.api('GET', `/v1/connections/${id}/share-links`, { token: other.apiKey })).status).toBe(404)
    expect((await p.api('DELETE', `/v1/connections/${id}/share-links/${b.body.id}`, { token: other.apiKey })).status).toBe(404)
  })
})

test('a name in Japanese script meets a Japanese sentence without a space on the share page; a Latin name keeps it', async () => {
  const other = await provision(p)
  expect((await p.api('PUT', `/v1/applications/${other.appId}/branding`, { token: other.apiKey, body: { display_name: '日本の店' } })).status).toBe(200)
  const { id } = await connection(other.apiKey)
  const token = tokenOf((await share(id, other.apiKey)).body.url)
  const page = (lang: string) => p.app.handle(new Request(`http://portico.test/share/${token}?lang=${lang}`)).then((r) => r.text())
  const visible = (html: string) => html.replace(/<[^>]*>/g, '')
  expect(visible(await page('ja'))).toContain('日本の店がこれらのレコードを依頼しています。')
  expect(visible(await page('zh'))).toContain('日本の店请求添加这些记录。')
  expect(visible(await page('en'))).toContain('日本の店 asked for these records.')
  // A Latin name in a Japanese sentence keeps its space.
  const { id: latin } = await connection()
  const latinPage = await p.app.handle(new Request(`http://portico.test/share/${tokenOf((await share(latin)).body.url)}?lang=ja`)).then((r) => r.text())
  expect(visible(latinPage)).toMatch(/\S がこれらのレコードを依頼しています。/)
})
