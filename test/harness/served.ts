// Portico serving customer domains end to end on loopback: the test PowerDNS, a real Caddy edge and a
// real Pebble CA, and a Portico listening on a port (the edge forwards the ask gate and HTTP-01 answers
// to it). `edgeHost` is the hostname connections point their CNAME at; it answers 127.0.0.1.
import { startPdns, type Pdns } from './pdns.ts'
import { httpsViaEdge, startCaddy, startPebble, type Caddy, type Pebble } from './edge.ts'
import { EDGE, startPortico, type TestPortico } from './portico.ts'

export interface Served {
  pdns: Pdns
  caddy: Caddy
  pebble: Pebble
  p: TestPortico
  zone: string
  edgeHost: string
  viaEdge: (host: string, path?: string) => ReturnType<typeof httpsViaEdge>
  stop(): Promise<void>
}

function freePort(): number {
  const s = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const port = s.port
  s.stop(true)
  return port
}

/** The settings of a Portico listening on `port` that serves through `caddy` with certificates from `pebble`. */
export function servedEnv(o: { port: number; pdns: Pdns; caddy: Caddy; pebble: Pebble; edgeHost: string }): Record<string, string> {
  return {
    PUBLIC_URL: `http://127.0.0.1:${o.port}`,
    DNS_RESOLVERS: o.pdns.dnsAddress,
    EDGE_CNAME_TARGET: o.edgeHost,
    EDGE_APEX_IPV4: '127.0.0.1',
    EDGE_ADMIN_URL: o.caddy.adminUrl,
    EDGE_AUTH_SECRET: EDGE,
    EDGE_HTTP_LISTEN: `127.0.0.1:${o.caddy.httpPort}`,
    EDGE_HTTPS_LISTEN: `127.0.0.1:${o.caddy.httpsPort}`,
    EDGE_ASK_LISTEN: `127.0.0.1:${o.caddy.askPort}`,
    EDGE_UPSTREAM: `127.0.0.1:${o.port}`,
    ACME_DIRECTORY_URL: o.pebble.directoryUrl,
    ACME_CA_ROOTS: o.pebble.caFile,
    WEBHOOK_ALLOW_LOOPBACK: '1',
  }
}

export async function startServed(zone: string, env: Record<string, string> = {}): Promise<Served> {
  const pdns = await startPdns()
  await pdns.createZone(zone)
  const edgeHost = `edge.${zone}`
  await pdns.setRecords(edgeHost, 'A', ['127.0.0.1'])
  const caddy = await startCaddy()
  const pebble = await startPebble({ dnsServer: pdns.dnsAddress, httpPort: caddy.httpPort })
  const port = freePort()
  const p = await startPortico({ ...servedEnv({ port, pdns, caddy, pebble, edgeHost }), ...env })
  const server = p.app.listen({ port, hostname: '127.0.0.1' }) as unknown as { stop(force?: boolean): Promise<void> }
  return {
    pdns,
    caddy,
    pebble,
    p,
    zone,
    edgeHost,
    viaEdge: (host, path) => httpsViaEdge(caddy, pebble, host, path),
    async stop() {
      await server.stop(true)
      await p.close()
      await pebble.stop()
      await caddy.stop()
    },
  }
}

/**
 * A live connection for `domain` (in `zone`, served by `pdns`): created, its records added in
 * PowerDNS as a person would, and "I have added them" (`:recheck`). Returns its id.
 */
export async function liveConnection(p: TestPortico, pdns: Pdns, apiKey: string, zone: string, domain: string): Promise<string> {
  const c = await p.api('POST', '/v1/connections', { token: apiKey, body: { domain } })
  if (c.status !== 201) throw new Error(`create ${domain}: ${c.status} ${JSON.stringify(c.body)}`)
  for (const r of c.body.records as { type: string; host: string; value: string }[]) {
    const name = r.host === '@' ? domain : `${r.host}.${zone}`
    await pdns.setRecords(name, r.type, [r.type === 'CNAME' ? `${r.value}.` : r.type === 'TXT' ? `"${r.value}"` : r.value])
  }
  const live = await p.api('POST', `/v1/connections/${c.body.id}:recheck`, { token: apiKey })
  if (live.body.status !== 'live') throw new Error(`${domain} is ${live.body.status} after :recheck`)
  return c.body.id
}

/**
 * Stops the cron safety nets (verification, edge sweep, certificate orders): what happens next is
 * woken by the database alone.
 */
export async function stopSweepCrons(p: TestPortico): Promise<void> {
  await p.db`delete from pgboss.schedule where name in ('connect-verify', 'edge-sweep', 'certificate-issue')`
}
