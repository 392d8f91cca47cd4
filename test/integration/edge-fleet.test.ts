// The edge as a fleet: three Caddy nodes on loopback (127.0.0.1, .2, .3, the same ports each),
// sharing Caddy's storage, with a real Pebble validating HTTP-01 on whichever node the edge name
// resolves to. A connection goes live: its certificate is issued once and every node serves it. One
// node is killed: changes go on to the others at once, and the node is reported down. Restarted
// empty, it serves the certificate again after one sweep, and the CA has still seen one order.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import https from 'node:https'
import { mkdtempSync, chmodSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startPdns, type Pdns } from '../harness/pdns.ts'
import { freeLoopbackPort, startCaddy, startPebble, type Caddy, type Pebble } from '../harness/edge.ts'
import { EDGE, provision, startPortico, type TestPortico, type Workspace } from '../harness/portico.ts'
import { liveConnection as live } from '../harness/served.ts'
import { sweepEdge } from '../../src/jobs/edge-sweep.ts'
import { CaddyEdge, EdgeFleet, nodeSettings } from '../../src/adapters/edge.ts'

let pdns: Pdns
let nodes: Caddy[]
let pebble: Pebble
let p: TestPortico
let server: { stop(force?: boolean): Promise<void> | void }
let ws: Workspace
let origin: ReturnType<typeof Bun.serve>
const zone = `fleet${Date.now().toString(36)}.test`
const edgeHost = `edge.${zone}`
const NAMES = ['edge-a', 'edge-b', 'edge-c']

beforeAll(async () => {
  pdns = await startPdns()
  await pdns.createZone(zone)
  // The edge name has every node's address, as a DNS-balanced fleet does.
  await pdns.setRecords(edgeHost, 'A', ['127.0.0.1', '127.0.0.2', '127.0.0.3'])
  const ports = { http: freeLoopbackPort(), https: freeLoopbackPort(), ask: freeLoopbackPort() }
  nodes = await Promise.all([1, 2, 3].map((i) => startCaddy({ host: `127.0.0.${i}`, ports })))
  pebble = await startPebble({ dnsServer: pdns.dnsAddress, httpPort: ports.http })
  const storage = mkdtempSync(join(tmpdir(), 'portico-caddy-shared-'))
  chmodSync(storage, 0o755)
  const port = freeLoopbackPort()
  p = await startPortico({
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    DNS_RESOLVERS: pdns.dnsAddress,
    EDGE_CNAME_TARGET: edgeHost,
    EDGE_APEX_IPV4: '127.0.0.1',
    EDGE_ADMIN_URLS: nodes.map((n, i) => `${NAMES[i]}=${n.adminUrl}`).join(','),
    EDGE_BIND_ADMIN_HOST: '1',
    EDGE_STORAGE: JSON.stringify({ module: 'file_system', root: storage }),
    EDGE_AUTH_SECRET: EDGE,
    EDGE_HTTP_LISTEN: `127.0.0.1:${ports.http}`,
    EDGE_HTTPS_LISTEN: `127.0.0.1:${ports.https}`,
    EDGE_ASK_LISTEN: `127.0.0.1:${ports.ask}`,
    EDGE_UPSTREAM: `127.0.0.1:${port}`,
    ACME_DIRECTORY_URL: pebble.directoryUrl,
    ACME_CA_ROOTS: pebble.caFile,
    WEBHOOK_ALLOW_LOOPBACK: '1',
  })
  server = p.app.listen({ port, hostname: '127.0.0.1' }) as unknown as { stop(force?: boolean): Promise<void> }
  ws = await provision(p)
  origin = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (req) => new Response(`origin: ${new URL(req.url).pathname}`) })
})

afterAll(async () => {
  origin?.stop(true)
  await server?.stop(true)
  await p?.close()
  await pebble?.stop()
  for (const n of nodes ?? []) await n.stop().catch(() => {})
})

const sweep = () => sweepEdge({ db: p.db, clock: p.clock, config: p.config, dns: p.services.dns, edge: p.services.edge!, issuer: p.services.issuer })

/** A GET to one node's HTTPS listener for `host`, trusting only Pebble's root. */
async function viaNode(node: Caddy, host: string, path = '/'): Promise<{ status: number; body: string; issuer: string; fingerprint: string }> {
  const ca = await pebble.rootPem()
  return new Promise((resolve, reject) => {
    const req = https.get({ host: node.host, port: node.httpsPort, servername: host, path, headers: { host }, ca, agent: false }, (res) => {
      const cert = (res.socket as import('node:tls').TLSSocket).getPeerCertificate()
      let body = ''
      res.on('data', (d) => (body += d))
      res.on('end', () => resolve({ status: res.statusCode!, body, issuer: String(cert.issuer?.CN ?? ''), fingerprint: cert.fingerprint256 }))
    })
    req.on('error', reject)
  })
}

async function health(): Promise<Record<string, { status: string; last_error: string | null; last_reconciled_at: string | null }>> {
  const r = await p.api('GET', '/healthz')
  expect(r.status).toBe(200)
  return Object.fromEntries((r.body.edge as { node: string }[]).map((n) => [n.node, n])) as any
}

/** A live connection for `domain`, its records added in PowerDNS as a person would. */
const liveConnection = (domain: string) => live(p, pdns, ws.apiKey, zone, domain)

describe('three edge nodes', () => {
  let shop: string
  let fingerprint: string

  test('a connection goes live: its certificate is issued once and all three nodes serve it', async () => {
    shop = await liveConnection(`shop.${zone}`)
    const power = await p.api('PUT', `/v1/connections/${shop}/power`, { token: ws.apiKey, body: { origin_url: `http://127.0.0.1:${origin.port}/` } })
    expect(power.body.status).toBe('active')
    await sweep()
    const cert = await p.api('GET', `/v1/connections/${shop}/ssl`, { token: ws.apiKey })
    expect(cert.body.certificate).toMatchObject({ status: 'issued', last_error: null })
    const served = await Promise.all(nodes.map((n) => viaNode(n, `shop.${zone}`, '/hello')))
    for (const s of served) {
      expect(s).toMatchObject({ status: 200, body: 'origin: /hello' })
      expect(s.issuer).toMatch(/Pebble/)
    }
    fingerprint = served[0]!.fingerprint
    expect(new Set(served.map((s) => s.fingerprint)).size).toBe(1)
    expect(pebble.orders()).toBe(1)
    const h = await health()
    for (const name of NAMES) expect(h[name]).toMatchObject({ status: 'up', last_error: null, last_reconciled_at: expect.any(String) })
  })

  test('a node killed: a change reaches the other two at once, and the dead node is reported', async () => {
    await nodes[1]!.kill()
    const power = await p.api('PUT', `/v1/connections/${shop}/power`, { token: ws.apiKey, body: { origin_url: `http://127.0.0.1:${origin.port}/v2` } })
    expect(power.body).toMatchObject({ status: 'active', last_error: null })
    for (const n of [nodes[0]!, nodes[2]!]) expect(await viaNode(n, `shop.${zone}`, '/x')).toMatchObject({ status: 200, body: 'origin: /v2/x', fingerprint })
    const h = await health()
    expect(h['edge-b']).toMatchObject({ status: 'down', last_error: expect.any(String) })
    expect(h['edge-a']!.status).toBe('up')
    expect(h['edge-c']!.status).toBe('up')
    // The sweep reconciles the others while the dead node is down, and reports it still.
    await sweep()
    expect((await health())['edge-b']!.status).toBe('down')
  })

  test('restarted empty, the node serves the certificate and the latest route again after one sweep; the CA saw one order', async () => {
    await nodes[1]!.restart()
    await expect(viaNode(nodes[1]!, `shop.${zone}`)).rejects.toThrow()
    await sweep()
    expect(await viaNode(nodes[1]!, `shop.${zone}`, '/back')).toMatchObject({ status: 200, body: 'origin: /v2/back', fingerprint })
    expect(pebble.orders()).toBe(1)
    expect((await health())['edge-b']).toMatchObject({ status: 'up', last_error: null })
  })

  test('a certificate Caddy obtains on demand on one node serves from the shared storage on the others, with no second order', async () => {
    // Live, and never issued by Portico: the first handshake makes node a ask the gate and order it.
    await liveConnection(`demand.${zone}`)
    const before = pebble.orders()
    const first = await viaNode(nodes[0]!, `demand.${zone}`)
    expect(first.issuer).toMatch(/Pebble/)
    expect(pebble.orders()).toBe(before + 1)
    const others = await Promise.all([nodes[1]!, nodes[2]!].map((n) => viaNode(n, `demand.${zone}`)))
    for (const o of others) expect(o.fingerprint).toBe(first.fingerprint)
    expect(pebble.orders()).toBe(before + 1)
  })

  test('a node that accepts connections and never answers costs a change only its deadline, and is reported', async () => {
    const sockets: { end(): void }[] = []
    const hung = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { open: (s) => void sockets.push(s), data() {} } })
    try {
      const s = p.config.edgeServer!
      const fleet = new EdgeFleet(
        [
          { name: 'live', edge: new CaddyEdge(nodeSettings(s, { name: 'live', adminUrl: nodes[0]!.adminUrl, bindHost: nodes[0]!.host }), EDGE, p.config.acme) },
          { name: 'hung', edge: new CaddyEdge(nodeSettings(s, { name: 'hung', adminUrl: `http://127.0.0.1:${hung.port}`, bindHost: null }), EDGE, p.config.acme) },
        ],
        p.clock,
        300,
      )
      await fleet.putSite('con_fleet_probe', [{ host: `probe.${zone}`, action: { kind: 'redirect', to: `shop.${zone}` } }])
      const states = Object.fromEntries(fleet.states().map((x) => [x.node, x]))
      expect(states.live!.status).toBe('up')
      expect(states.hung).toMatchObject({ status: 'down', last_error: 'no answer within 300 ms' })
      expect((await fetch(`${nodes[0]!.adminUrl}/id/site-con_fleet_probe-0`, { keepalive: false })).status).toBe(200)
      // Known down, the hung node is not waited on again until a sweep finds it back.
      await fleet.removeSite('con_fleet_probe')
      expect((await fetch(`${nodes[0]!.adminUrl}/id/site-con_fleet_probe-0`, { keepalive: false })).status).not.toBe(200)
    } finally {
      for (const s of sockets) s.end()
      hung.stop(true)
    }
  })
})
