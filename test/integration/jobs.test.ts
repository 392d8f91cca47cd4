// The lifecycle runs as pg-boss jobs: with workers on (PORTICO_ROLE=all), creating a connection whose
// records are already published queues a verification sweep that takes it live, with no test help.
import { test, expect, afterAll } from 'bun:test'
import { startPdns } from '../harness/pdns.ts'
import { provision, startPortico, type TestPortico } from '../harness/portico.ts'
import { eventsAlong } from '../../src/domain/transitions.ts'

let p: TestPortico | undefined
afterAll(async () => {
  await p?.close()
})

test('a connection goes live through the job worker', async () => {
  const pdns = await startPdns()
  const zone = `jobs${Date.now().toString(36)}.test`
  await pdns.createZone(zone)
  await pdns.setRecords(`app.${zone}`, 'CNAME', ['edge.portico.test.'])
  p = await startPortico({ DNS_RESOLVERS: pdns.dnsAddress, EDGE_CNAME_TARGET: 'edge.portico.test', PORTICO_ROLE: 'all' })
  const ws = await provision(p)
  const c = await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: `app.${zone}` } })
  expect(c.status).toBe(201)
  expect(c.body.status).toBe('pending')
  let status = 'pending'
  for (let i = 0; i < 100 && status !== 'live'; i++) {
    await Bun.sleep(100)
    status = (await p.api('GET', `/v1/connections/${c.body.id}`, { token: ws.apiKey })).body.status
  }
  expect(status).toBe('live')
  const ev = await p.db`select type from events where connection_id = ${c.body.id} order by id`
  expect(ev.map((e: { type: string }) => e.type)).toEqual(eventsAlong('created', 'records_resolved'))
})
