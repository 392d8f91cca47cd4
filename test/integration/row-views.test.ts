// Reads through one process after another process changed the row (as two API processes behind a load
// balancer serve one integrator). A connection's read is answered from a view remembered per row
// version (src/domain/row-views.ts): nothing is told to the reading process, the version it reads first
// is what says its view is stale. Who may read is decided on every read, whatever a view remembers.
import { test, expect, beforeAll, afterAll } from 'bun:test'
import { startPdns } from '../harness/pdns.ts'
import { startPortico, provision, widgetToken, type TestPortico, type Workspace } from '../harness/portico.ts'

let writer: TestPortico
let reader: TestPortico
let ws: Workspace
let zone: string
beforeAll(async () => {
  const pdns = await startPdns()
  const env = { DNS_RESOLVERS: pdns.dnsAddress, EDGE_CNAME_TARGET: 'edge.portico.test' }
  // Two processes on one database (as two API processes behind a load balancer are).
  writer = await startPortico(env)
  reader = await startPortico(env)
  ws = await provision(writer)
  zone = `views${Date.now().toString(36)}.test`
  await pdns.createZone(zone)
}, 60_000)
afterAll(async () => {
  await writer?.close()
  await reader?.close()
})

const read = (path: string, token = ws.apiKey) => reader.api('GET', path, { token })

test('a connection read through another process shows each change at once: new records, then its disconnect', async () => {
  const c = await writer.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: `shop.${zone}` } })
  expect(c.status).toBe(201)
  const path = `/v1/connections/${c.body.id}`
  const first = await read(path)
  expect(first.status).toBe(200)
  expect(first.body).toEqual(JSON.parse(JSON.stringify(c.body)))
  expect((await read(path)).body).toEqual(first.body)

  const records = [{ type: 'TXT', host: 'shop', value: 'row-views-check' }]
  expect((await writer.api('PUT', `${path}/records`, { token: ws.apiKey, body: { records } })).status).toBe(200)
  const changed = await read(path)
  expect(changed.body.records_source).toBe('custom')
  expect(changed.body.records).toEqual([expect.objectContaining({ type: 'TXT', value: 'row-views-check' })])
  expect(changed.body.updated_at).not.toBe(first.body.updated_at)

  expect((await writer.api('POST', `${path}:disconnect`, { token: ws.apiKey })).status).toBeLessThan(300)
  const gone = await read(path)
  expect(gone.status).toBe(404)
  expect(gone.body.code).toBe('not_found')
})

test('a connection remembered for an API key is still 404 to a widget token of another hostname, and read by one of its own', async () => {
  const c = await writer.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: `www.${zone}` } })
  const path = `/v1/connections/${c.body.id}`
  expect((await read(path)).status).toBe(200)
  const other = await widgetToken(reader, ws, { domain: `other.${zone}` })
  const otherRead = await read(path, other)
  expect(otherRead.status).toBe(404)
  expect(otherRead.body.code).toBe('not_found')
  const own = await widgetToken(reader, ws, { domain: `www.${zone}` })
  const ownRead = await read(path, own)
  expect(ownRead.status).toBe(200)
  expect(ownRead.body.id).toBe(c.body.id)
})

test('an application read through another process shows its new branding at once; another workspace\'s key gets 404', async () => {
  const path = `/v1/applications/${ws.appId}`
  const first = await read(path)
  expect(first.status).toBe(200)
  expect((await read(path)).body).toEqual(first.body)
  const put = await writer.api('PUT', `${path}/branding`, { token: ws.apiKey, body: { display_name: 'Views Check', accent_color: '#123456' } })
  expect(put.status).toBe(200)
  const changed = await read(path)
  expect(changed.body.branding).toEqual(expect.objectContaining({ display_name: 'Views Check', accent_color: '#123456' }))
  expect(changed.body.updated_at).not.toBe(first.body.updated_at)

  const stranger = await provision(writer)
  const foreign = await read(path, stranger.apiKey)
  expect(foreign.status).toBe(404)
  expect(foreign.body.code).toBe('not_found')
})

test('a page whose rows are unchanged gains a next cursor when a row follows it, and loses it when that row goes, through either process', async () => {
  const own = await provision(writer)
  const make = async (name: string) => {
    const c = await writer.api('POST', '/v1/connections', { token: own.apiKey, body: { domain: `${name}.${zone}` } })
    expect(c.status).toBe(201)
    return c.body.id as string
  }
  const first = [await make('p1'), await make('p2'), await make('p3')]
  const page = async () => (await reader.api('GET', '/v1/connections?limit=3', { token: own.apiKey })).body
  const before = await page()
  expect([before.connections.map((c: { id: string }) => c.id), before.next_cursor]).toEqual([first, undefined])
  expect((await page()).next_cursor).toBeUndefined()
  const fourth = await make('p4')
  const gained = await page()
  expect(gained.connections.map((c: { id: string }) => c.id)).toEqual(first)
  expect(gained.next_cursor).toBeString()
  const rest = (await reader.api('GET', `/v1/connections?limit=3&cursor=${gained.next_cursor}`, { token: own.apiKey })).body
  expect(rest.connections.map((c: { id: string }) => c.id)).toEqual([fourth])
  expect((await writer.api('DELETE', `/v1/connections/${fourth}`, { token: own.apiKey })).status).toBeLessThan(300)
  expect((await page()).next_cursor).toBeUndefined()
})
