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
