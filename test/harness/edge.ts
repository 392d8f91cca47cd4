// The edge and the CA for tests: a real Caddy (Debian `caddy`) started with nothing but its admin API,
// which Portico's edge adapter then configures, and a real Pebble ACME CA (Debian `pebble`) that
// resolves names through the test PowerDNS and validates HTTP-01 against the edge's HTTP port.
//
// Invariants (as test/harness/pdns.ts):
// - Daemons run under `setpriv --pdeathsig KILL`: they die with the test process however it dies.
// - Every port is a free loopback port; nothing listens beyond 127.0.0.1.
// - Pebble's own HTTPS certificate (for 127.0.0.1) comes from a throwaway CA made with openssl here;
//   `caPem` is that CA (to trust the ACME server), `rootPem()` is the root of issued certificates
//   (Pebble makes a new one every start).
import { spawn, type Subprocess } from 'bun'
import { mkdtempSync, chmodSync, writeFileSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import https from 'node:https'
import type { TLSSocket } from 'node:tls'

const setpriv = Bun.which('setpriv')

function freePort(): number {
  const srv = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const port = srv.port
  srv.stop(true)
  return port
}

function daemon(cmd: string[], env: Record<string, string>, onStdout?: (text: string) => void): Subprocess {
  const p = spawn(setpriv ? [setpriv, '--pdeathsig', 'KILL', ...cmd] : cmd, { env: { ...process.env, ...env }, stdout: onStdout ? 'pipe' : 'ignore', stderr: 'pipe' })
  process.on('exit', () => p.kill('SIGKILL'))
  if (onStdout) {
    // Read as it comes, so the daemon never blocks on a full pipe.
    const decoder = new TextDecoder()
    void (async () => {
      for await (const chunk of p.stdout as ReadableStream<Uint8Array>) onStdout(decoder.decode(chunk))
    })()
  }
  return p
}

async function waitFor(p: Subprocess, what: string, ready: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 300; i++) {
    try {
      if (await ready()) return
    } catch {
      // not up yet
    }
    if (p.exitCode !== null) break
    await Bun.sleep(25)
  }
  p.kill('SIGKILL')
  throw new Error(`${what} did not start: ${await new Response(p.stderr as ReadableStream).text()}`)
}

export interface Caddy {
  adminUrl: string
  /** The loopback address the node's listeners bind (nodes of a fleet each have their own). */
  host: string
  /** The ports Portico's configuration makes Caddy listen on (HTTP doubles as Pebble's httpPort). */
  httpPort: number
  httpsPort: number
  askPort: number
  /** Kills the node at once (SIGKILL), as a crashed machine. */
  kill(): Promise<void>
  /** Starts it again on the same admin address, empty: nothing of Portico's survives. */
  restart(): Promise<void>
  stop(): Promise<void>
}

export const freeLoopbackPort = freePort

/**
 * A Caddy with only its admin API. `host` (default 127.0.0.1) is where its admin API and, through
 * Portico's configuration (EDGE_BIND_ADMIN_HOST), its listeners bind; `ports` lets nodes of a fleet
 * share the same HTTP, HTTPS and ask ports, each on its own loopback address.
 */
export async function startCaddy(opts: { host?: string; ports?: { http: number; https: number; ask: number } } = {}): Promise<Caddy> {
  const host = opts.host ?? '127.0.0.1'
  const dir = mkdtempSync(join(tmpdir(), 'portico-caddy-'))
  chmodSync(dir, 0o755)
  const adminPort = freePort()
  writeFileSync(join(dir, 'boot.json'), JSON.stringify({ admin: { listen: `${host}:${adminPort}` } }))
  const env = { HOME: dir, XDG_DATA_HOME: join(dir, 'data'), XDG_CONFIG_HOME: join(dir, 'config') }
  const adminUrl = `http://${host}:${adminPort}`
  const run = async () => {
    const proc = daemon(['caddy', 'run', '--config', join(dir, 'boot.json')], env)
    await waitFor(proc, 'caddy', async () => (await fetch(`${adminUrl}/config/`)).ok)
    return proc
  }
  let p = await run()
  return {
    adminUrl,
    host,
    httpPort: opts.ports?.http ?? freePort(),
    httpsPort: opts.ports?.https ?? freePort(),
    askPort: opts.ports?.ask ?? freePort(),
    async kill() {
      p.kill('SIGKILL')
      await p.exited
    },
    async restart() {
      p = await run()
    },
    async stop() {
      p.kill('SIGTERM')
      await p.exited
    },
  }
}

export interface Pebble {
  directoryUrl: string
  /** The CA of Pebble's own HTTPS listener: trust it to talk ACME (ACME_CA_ROOTS). */
  caFile: string
  caPem: string
  /** The root that signs issued certificates (new at every start). */
  rootPem(): Promise<string>
  /** Orders the CA has taken since it started (from its log: one `Added order` line each). */
  orders(): number
  stop(): Promise<void>
}

async function openssl(args: string[], cwd: string): Promise<void> {
  const p = spawn(['openssl', ...args], { cwd, stdout: 'ignore', stderr: 'pipe' })
  if ((await p.exited) !== 0) throw new Error(`openssl ${args[0]}: ${await new Response(p.stderr).text()}`)
}

/** Pebble validating HTTP-01 on `httpPort` of the names it resolves through `dnsServer`. */
export async function startPebble(opts: { dnsServer: string; httpPort: number }): Promise<Pebble> {
  const dir = mkdtempSync(join(tmpdir(), 'portico-pebble-'))
  chmodSync(dir, 0o755)
  await openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=Portico test CA'], dir)
  await openssl(['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'key.pem', '-out', 'req.csr', '-subj', '/CN=127.0.0.1'], dir)
  writeFileSync(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n')
  await openssl(['x509', '-req', '-in', 'req.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'cert.pem', '-days', '2', '-extfile', 'san.ext'], dir)
  const acmePort = freePort()
  const mgmtPort = freePort()
  const config = {
    pebble: {
      listenAddress: `127.0.0.1:${acmePort}`,
      managementListenAddress: `127.0.0.1:${mgmtPort}`,
      certificate: join(dir, 'cert.pem'),
      privateKey: join(dir, 'key.pem'),
      httpPort: opts.httpPort,
      tlsPort: freePort(),
      ocspResponderURL: '',
      externalAccountBindingRequired: false,
    },
  }
  writeFileSync(join(dir, 'pebble.json'), JSON.stringify(config))
  const caFile = join(dir, 'ca.pem')
  const caPem = readFileSync(caFile, 'utf8')
  let orders = 0
  let tail = ''
  const p = daemon(['pebble', '-config', join(dir, 'pebble.json'), '-dnsserver', opts.dnsServer], { PEBBLE_VA_NOSLEEP: '1', PEBBLE_WFE_NONCEREJECT: '0' }, (text) => {
    // A line may arrive in two chunks: count whole lines only.
    const lines = (tail + text).split('\n')
    tail = lines.pop()!
    orders += lines.filter((l) => l.includes('Added order')).length
  })
  const tls = { ca: caPem }
  const directoryUrl = `https://127.0.0.1:${acmePort}/dir`
  await waitFor(p, 'pebble', async () => (await fetch(directoryUrl, { tls })).ok)
  return {
    directoryUrl,
    caFile,
    caPem,
    orders: () => orders,
    async rootPem() {
      const r = await fetch(`https://127.0.0.1:${mgmtPort}/roots/0`, { tls })
      return r.text()
    },
    async stop() {
      p.kill('SIGTERM')
      await p.exited
    },
  }
}

/** A GET to the edge's HTTPS port for `host`, trusting only Pebble's root, with the certificate served. */
export async function httpsViaEdge(caddy: Caddy, pebble: Pebble, host: string, path = '/'): Promise<{ status: number; body: string; location?: string; issuer: string; names: string; fingerprint: string }> {
  const ca = await pebble.rootPem()
  return new Promise((resolve, reject) => {
    const req = https.get({ host: '127.0.0.1', port: caddy.httpsPort, servername: host, path, headers: { host }, ca }, (res) => {
      const cert = (res.socket as TLSSocket).getPeerCertificate()
      let body = ''
      res.on('data', (d) => (body += d))
      res.on('end', () => resolve({ status: res.statusCode!, body, location: res.headers.location, issuer: String(cert.issuer?.CN ?? ''), names: String(cert.subjectaltname ?? ''), fingerprint: cert.fingerprint256 }))
    })
    req.on('error', reject)
  })
}
