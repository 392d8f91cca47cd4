// Moving a live site to Portico, as its visitors see it: the site's own HTTPS server on loopback (a
// certificate from its own CA, as any site has from its CA), DNS that points the name at it, and a
// prober that does what a browser does, over and over: resolve the name through the test DNS, open
// TLS to the address it got with the name as SNI, and accept only a certificate that chains to a
// trusted root (the site's CA, Pebble's root) and names the host.
// The old site listens on another loopback address (127.0.0.3) at the edge's HTTPS port: the A
// record moving to a CNAME at the edge is the whole cutover, as in production.
import { spawn } from 'bun'
import { mkdtempSync, chmodSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createResolver } from '../../src/adapters/resolver.ts'
import tls from 'node:tls'

export const OLD_SITE_ADDRESS = '127.0.0.3'

async function openssl(args: string[], cwd: string): Promise<void> {
  const p = spawn(['openssl', ...args], { cwd, stdout: 'ignore', stderr: 'pipe' })
  if ((await p.exited) !== 0) throw new Error(`openssl ${args[0]}: ${await new Response(p.stderr).text()}`)
}

export interface OldSite {
  caPem: string
  stop(): Promise<void>
}

/** The site's own HTTPS server for `names` at OLD_SITE_ADDRESS:`port`, with a certificate from its own CA. */
export async function startOldSite(names: string[], port: number): Promise<OldSite> {
  const dir = mkdtempSync(join(tmpdir(), 'portico-oldsite-'))
  chmodSync(dir, 0o755)
  await openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=Old host CA'], dir)
  await openssl(['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'key.pem', '-out', 'req.csr', '-subj', `/CN=${names[0]}`], dir)
  writeFileSync(join(dir, 'san.ext'), `subjectAltName=${names.map((n) => `DNS:${n}`).join(',')}\n`)
  await openssl(['x509', '-req', '-in', 'req.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'cert.pem', '-days', '2', '-extfile', 'san.ext'], dir)
  const server = Bun.serve({
    hostname: OLD_SITE_ADDRESS,
    port,
    tls: { cert: readFileSync(join(dir, 'cert.pem'), 'utf8'), key: readFileSync(join(dir, 'key.pem'), 'utf8') },
    fetch: () => new Response('the old site'),
  })
  return { caPem: readFileSync(join(dir, 'ca.pem'), 'utf8'), stop: async () => server.stop(true) }
}

export interface Probe {
  /** performance.now() when the probe started. */
  at: number
  ok: boolean
  /** The served certificate's issuer CN (valid or not), or the error. */
  detail: string
  /** How long the probe took (resolution and handshake). */
  ms?: number
}

export interface Prober {
  probes: Probe[]
  stop(): Promise<Probe[]>
}

/** Probes `name` over and over (one at a time, `everyMs` apart) until stopped. */
export function probe(name: string, o: { dnsServer: string; port: number; roots: string[]; everyMs?: number }): Prober {
  // Portico's own stub resolver: no cache between probes (a runtime's resolver may keep answers).
  const resolver = createResolver({ servers: [o.dnsServer], timeoutMs: 1000, tries: 1 })
  const probes: Probe[] = []
  let stopped = false
  const one = async (): Promise<Probe> => {
    const at = performance.now()
    const answer = await resolver.lookup(name, 'A')
    if (answer.status !== 'ok' || !answer.values[0]) return { at, ok: false, detail: `dns: ${answer.status}` }
    const address = answer.values[0]
    return new Promise<Probe>((resolve) => {
      const socket = tls.connect({ host: address, port: o.port, servername: name, ca: o.roots, rejectUnauthorized: false, timeout: 2000 })
      const done = (p: Probe) => {
        socket.destroy()
        resolve(p)
      }
      socket.once('secureConnect', () => {
        const cert = socket.getPeerCertificate()
        const issuer = String(cert?.issuer?.CN ?? '')
        const identity = cert?.subject ? tls.checkServerIdentity(name, cert) : new Error('no certificate')
        const ok = socket.authorized && !identity
        done({ at, ok, detail: ok ? issuer : `${issuer}: ${socket.authorizationError ?? identity?.message}` })
      })
      socket.once('timeout', () => done({ at, ok: false, detail: 'tls: timeout' }))
      socket.once('error', (err) => done({ at, ok: false, detail: `tls: ${err.message}` }))
    })
  }
  const loop = (async () => {
    while (!stopped) {
      const p = await one()
      probes.push({ ...p, ms: Math.round(performance.now() - p.at) })
      await Bun.sleep(o.everyMs ?? 20)
    }
  })()
  return {
    probes,
    async stop() {
      stopped = true
      await loop
      return probes
    },
  }
}

/** Replaces the name's A record with a CNAME at `target` in one change (the cutover). */
export async function cutOver(pdns: { apiUrl: string; apiKey: string }, zone: string, name: string, target: string): Promise<void> {
  const r = await fetch(`${pdns.apiUrl}/zones/${zone}.`, {
    method: 'PATCH',
    headers: { 'X-API-Key': pdns.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({
      rrsets: [
        { name: `${name}.`, type: 'A', changetype: 'DELETE' },
        { name: `${name}.`, type: 'CNAME', ttl: 60, changetype: 'REPLACE', records: [{ content: `${target}.`, disabled: false }] },
      ],
    }),
  })
  if (r.status >= 300) throw new Error(`cutover of ${name}: ${r.status} ${await r.text()}`)
}

/** A handshake this slow is a stall a visitor sees (the edge ordering a certificate while the page waits). */
export const SLOW_MS = 250

/** What the visitors saw from the cutover on: probes, failures, stalls, and how long HTTPS was broken. */
export function afterCutover(probes: Probe[], cutAt: number, edgeIssuer: (detail: string) => boolean) {
  const after = probes.filter((p) => p.at >= cutAt)
  const failed = after.filter((p) => !p.ok)
  const slow = after.filter((p) => p.ok && (p.ms ?? 0) > SLOW_MS)
  const firstEdge = after.find((p) => p.ok && edgeIssuer(p.detail))
  const bad = after.filter((p) => !p.ok || (p.ms ?? 0) > SLOW_MS).at(-1)
  return {
    probes: after.length,
    failed: failed.length,
    slow: slow.length,
    /** From the cutover to the end of the last failed or stalled probe (0: none). */
    broken_ms: bad ? Math.round(bad.at + (bad.ms ?? 0) - cutAt) : 0,
    /** From the cutover to the first valid probe served by the edge. */
    edge_after_ms: firstEdge ? Math.round(firstEdge.at - cutAt) : null,
    errors: [...new Set(failed.map((p) => p.detail.replace(/\d+/g, 'N')))].slice(0, 3),
  }
}
