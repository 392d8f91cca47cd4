// Pre-validation on an edge fleet of two Caddy nodes: the routing record is asked for only once
// EVERY node holds the certificate. With one node down the certificate is issued (DNS-01 needs no
// edge) and served by the node that is up, and the connection waits, saying so; the node back, the
// edge sweep puts the certificate on it and only then is the routing record asked for.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { EDGE, provision, startPortico, type TestPortico, type Workspace } from '../harness/portico.ts'
import { startPdns, type Pdns } from '../harness/pdns.ts'
import { freeLoopbackPort, startCaddy, startPebble, type Caddy, type Pebble } from '../harness/edge.ts'
import { sweepEdge } from '../../src/jobs/edge-sweep.ts'
import https from 'node:https'
import type { TLSSocket } from 'node:tls'

let pdns: Pdns
let nodes: Caddy[]
let pebble: Pebble
let p: TestPortico
let ws: Workspace
let server: { stop(force?: boolean): Promise<void> }
const tag = Date.now().toString(36)
const zone = `pfleet${tag}.test`
const dcvZone = `dcvf${tag}.test`
const edgeHost = `edge.${zone}`

beforeAll(async () => {
  pdns = await startPdns()
  await pdns.createZone(zone)
  await pdns.createZone(dcvZone)
  await pdns.setRecords(edgeHost, 'A', ['127.0.0.1', '127.0.0.2'])
  const ports = { http: freeLoopbackPort(), https: freeLoopbackPort(), ask: freeLoopbackPort() }
  nodes = await Promise.all([1, 2].map((i) => startCaddy({ host: `127.0.0.${i}`, ports })))
  pebble = await startPebble({ dnsServer: pdns.dnsAddress, httpPort: ports.http })
  const port = freeLoopbackPort()
  p = await startPortico({
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    DNS_RESOLVERS: pdns.dnsAddress,
    EDGE_CNAME_TARGET: edgeHost,
    EDGE_APEX_IPV4: '127.0.0.1',
    EDGE_ADMIN_URLS: nodes.map((n, i) => `edge-${i}=${n.adminUrl}`).join(','),
    EDGE_BIND_ADMIN_HOST: '1',
    EDGE_AUTH_SECRET: EDGE,
    EDGE_HTTP_LISTEN: `127.0.0.1:${ports.http}`,
    EDGE_HTTPS_LISTEN: `127.0.0.1:${ports.https}`,
    EDGE_ASK_LISTEN: `127.0.0.1:${ports.ask}`,
    EDGE_UPSTREAM: `127.0.0.1:${port}`,
    ACME_DIRECTORY_URL: pebble.directoryUrl,
    ACME_CA_ROOTS: pebble.caFile,
    DCV_ZONE: dcvZone,
    DCV_PDNS_API_URL: pdns.apiUrl,
    DCV_PDNS_API_KEY: pdns.apiKey,
  })
  server = p.app.listen({ port, hostname: '127.0.0.1' }) as unknown as { stop(force?: boolean): Promise<void> }
  ws = await provision(p)
})

afterAll(async () => {
  await server?.stop(true)
  await p?.close()
  await pebble?.stop()
  for (const n of nodes ?? []) await n.stop().catch(() => {})
})

const sweep = () => sweepEdge({ db: p.db, clock: p.clock, config: p.config, dns: p.services.dns, edge: p.services.edge!, issuer: p.services.issuer, dcv: p.services.dcv })

/** The names of the certificate one node serves for `host` ('' when the handshake fails). */
async function namesOn(node: Caddy, host: string): Promise<string> {
  const ca = await pebble.rootPem()
  return new Promise((resolve) => {
    const req = https.get({ host: node.host, port: node.httpsPort, servername: host, headers: { host }, ca }, (res) => {
      resolve(String((res.socket as TLSSocket).getPeerCertificate().subjectaltname ?? ''))
      res.resume()
    })
    req.on('error', () => resolve(''))
  })
}

describe('pre-validation on an edge fleet', () => {
  test('the routing record waits until every node holds the certificate', async () => {
    const domain = `shop.${zone}`
    const c = (await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain, validation: 'before_cutover' } })).body
    for (const r of c.records) await pdns.setRecords(`${r.host}.${zone}`, r.type, [r.type === 'CNAME' ? `${r.value}.` : `"${r.value}"`])
    await p.api('POST', `/v1/connections/${c.id}:recheck`, { token: ws.apiKey })
    await nodes[1]!.kill()
    try {
      await sweep()
      const waiting = (await p.api('GET', `/v1/connections/${c.id}`, { token: ws.apiKey })).body
      expect(waiting).toMatchObject({ validation_stage: 'issuing', certificate_status: 'issued' })
      expect(waiting.validation_detail).toContain('every edge node')
      expect(waiting.records.map((r: { host: string }) => r.host)).not.toContain('shop')
      expect(await namesOn(nodes[0]!, domain)).toBe(`DNS:${domain}`)
    } finally {
      await nodes[1]!.restart()
    }
    // The node is back, empty: the sweep puts the certificate on it, and only then is routing asked for.
    await sweep()
    const routing = (await p.api('GET', `/v1/connections/${c.id}`, { token: ws.apiKey })).body
    expect(routing).toMatchObject({ validation_stage: 'awaiting_routing', validation_detail: null })
    for (const n of nodes) expect(await namesOn(n, domain)).toBe(`DNS:${domain}`)
  }, 60_000)
  test('every node down: the certificate is issued, and the detail says no edge node holds it yet (not that the CA refused)', async () => {
    const domain = `down.${zone}`
    const c = (await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain, validation: 'before_cutover' } })).body
    for (const r of c.records) await pdns.setRecords(`${r.host}.${zone}`, r.type, [r.type === 'CNAME' ? `${r.value}.` : `"${r.value}"`])
    await p.api('POST', `/v1/connections/${c.id}:recheck`, { token: ws.apiKey })
    for (const n of nodes) await n.kill()
    try {
      await sweep()
      const waiting = (await p.api('GET', `/v1/connections/${c.id}`, { token: ws.apiKey })).body
      expect(waiting).toMatchObject({ validation_stage: 'issuing', certificate_status: 'issued' })
      expect(waiting.validation_detail).toContain('The certificate is issued; an edge node does not hold it yet')
      expect(waiting.validation_detail).not.toContain('did not issue')
    } finally {
      for (const n of nodes) await n.restart()
    }
    await sweep()
    expect((await p.api('GET', `/v1/connections/${c.id}`, { token: ws.apiKey })).body).toMatchObject({ validation_stage: 'awaiting_routing', validation_detail: null })
  }, 60_000)
})
