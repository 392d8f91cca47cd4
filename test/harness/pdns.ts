// A real PowerDNS authoritative server (Debian pdns-server, sqlite3 backend) on free loopback ports,
// with its HTTP API, shared by every test of the process. It serves the parent zone `test.` so names
// that do not exist get real NXDOMAIN answers, and child zones are delegated from it the way a
// registry delegates a customer's domain (NS records in the parent), with whatever nameserver names a
// test picks (`ns1.digitalocean.com.` is just data here).
//
// Invariants:
// - One instance per process: `startPdns()` returns the same one until `stop()`.
// - No orphaned daemon. `bun test` exits without running `process.on('exit')` handlers, so the
//   daemon is started under `setpriv --pdeathsig KILL`: the kernel kills it when this process dies,
//   however it dies (prctl PR_SET_PDEATHSIG survives the exec). The exit handler covers the rest,
//   and a run directory whose owner process is gone is removed by the next start.
// - Writes through the API are visible to the next query (every PowerDNS cache is off).
import { spawn, type Subprocess } from 'bun'
import { mkdtempSync, chmodSync, writeFileSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'

export interface PdnsRecord {
  name: string
  type: string
  ttl: number
  content: string
}

export interface Pdns {
  /** `127.0.0.1:PORT`, for DNS_RESOLVERS. */
  dnsAddress: string
  dnsPort: number
  /**
   * Loopback addresses where the same server also answers on port 53, as a zone's nameservers do
   * (empty when not running as root). `AUTH_NAMESERVERS` resolve to them.
   */
  nsAddresses: string[]
  /** The first of them: the one address a resolv.conf `nameserver` line names (null when not root). */
  port53Host: string | null
  /** `http://127.0.0.1:PORT/api/v1/servers/localhost`; zones are under `/zones`. */
  apiUrl: string
  apiKey: string
  serverId: string
  /** Creates `zone` with its SOA and NS, and delegates it from `test.` to the same nameservers. */
  createZone(zone: string, opts?: { nameservers?: string[] }): Promise<void>
  deleteZone(zone: string): Promise<void>
  /** Replaces the RRset `name`/`type` in the zone that is its longest suffix. */
  setRecords(name: string, type: string, contents: string[], ttl?: number): Promise<void>
  deleteRecords(name: string, type: string): Promise<void>
  listRecords(zone: string): Promise<PdnsRecord[]>
  /**
   * Freezes the daemon (SIGSTOP): queries go unanswered, as with a dead resolver. Returns once every
   * one of its threads has stopped.
   */
  pause(): Promise<void>
  resume(): void
  /** Stops the daemon, keeping its data and ports: the DNS port is then closed. */
  stopServer(): Promise<void>
  /** Starts it again on the same ports with the same data. */
  startServer(): Promise<void>
  restart(): Promise<void>
  /** Stops the daemon for good and removes its directory. */
  stop(): Promise<void>
}

export const PARENT_ZONE = 'test'
export const DEFAULT_NAMESERVERS = ['ns1.portico-test.test.', 'ns2.portico-test.test.']
/**
 * Nameserver names with addresses (in `test.`) where this server listens on port 53: zones delegated
 * to them can be asked directly, as Portico's verification asks a zone's own servers.
 */
export const AUTH_NAMESERVERS = ['ns1.auth.test.', 'ns2.auth.test.']
const RUN_PREFIX = 'portico-pdns-'
const OWNER_FILE = 'owner.pid'

const fq = (name: string) => (name.endsWith('.') ? name : `${name}.`).toLowerCase()

let shared: Promise<Pdns> | null = null

/** A second, separate server (its own data and addresses), for tests with servers that disagree. */
export const startOtherPdns = (): Promise<Pdns> => launch()

export function startPdns(): Promise<Pdns> {
  shared ??= launch().catch((err) => {
    shared = null
    throw err
  })
  return shared
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Removes run directories left by test processes that died without cleaning up. */
function sweepStaleRuns(): void {
  for (const entry of readdirSync(tmpdir())) {
    if (!entry.startsWith(RUN_PREFIX)) continue
    const dir = join(tmpdir(), entry)
    let owner: number
    try {
      owner = Number(readFileSync(join(dir, OWNER_FILE), 'utf8'))
    } catch {
      continue // not ours to judge: no owner recorded
    }
    if (owner && !alive(owner)) rmSync(dir, { recursive: true, force: true })
  }
}

/** A port free for both UDP and TCP on 127.0.0.1 (PowerDNS listens on both, RFC 7766). */
async function freeDnsPort(): Promise<number> {
  for (let i = 0; i < 20; i++) {
    const u = await Bun.udpSocket({ hostname: '127.0.0.1', port: 0 })
    const port = u.port
    try {
      const t = Bun.listen({ hostname: '127.0.0.1', port, socket: { data() {} } })
      t.stop(true)
      return port
    } catch {
      // taken for TCP; try another
    } finally {
      u.close()
    }
  }
  throw new Error('no free DNS port')
}

function freeTcpPort(): number {
  const srv = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const port = srv.port
  srv.stop(true)
  return port
}

/**
 * Two random addresses in 127.64.0.0/10 for port 53 (every 127/8 address is on loopback): random so
 * test processes running side by side do not collide. Only root may bind port 53.
 */
function nsAddresses(): string[] {
  if (process.getuid?.() !== 0) return []
  const b = randomBytes(6)
  return [0, 3].map((i) => `127.${64 + (b[i]! & 63)}.${b[i + 1]}.${1 + (b[i + 2]! % 254)}`)
}

function writeConfig(dir: string, dnsPort: number, apiPort: number, apiKey: string, extra: string[]): void {
  const lines = [
    'launch=gsqlite3',
    `gsqlite3-database=${join(dir, 'pdns.sqlite3')}`,
    // Readers (the query threads) and the API's writer side by side, instead of "database is locked".
    'gsqlite3-pragma-journal-mode=WAL',
    `local-address=${[`127.0.0.1:${dnsPort}`, ...extra.map((a) => `${a}:53`)].join(', ')}`,
    'api=yes',
    `api-key=${apiKey}`,
    'webserver=yes',
    'webserver-address=127.0.0.1',
    `webserver-port=${apiPort}`,
    'webserver-allow-from=127.0.0.1/32',
    'daemon=no',
    'guardian=no',
    'disable-syslog=yes',
    `socket-dir=${dir}`,
    'security-poll-suffix=',
    'loglevel=3',
    // Answers must reflect API writes at once.
    'cache-ttl=0',
    'negquery-cache-ttl=0',
    'query-cache-ttl=0',
    'zone-cache-refresh-interval=0',
    'consistent-backends=yes',
  ]
  writeFileSync(join(dir, 'pdns.conf'), lines.join('\n') + '\n')
}

async function initDatabase(dir: string): Promise<void> {
  const schema = readFileSync('/usr/share/doc/pdns-backend-sqlite3/schema.sqlite3.sql', 'utf8')
  const init = spawn(['sqlite3', join(dir, 'pdns.sqlite3')], { stdin: new Blob([schema]), stdout: 'ignore', stderr: 'pipe' })
  if ((await init.exited) !== 0) throw new Error(`sqlite3 schema failed: ${await new Response(init.stderr).text()}`)
}

const setpriv = Bun.which('setpriv')

async function launch(): Promise<Pdns> {
  sweepStaleRuns()
  const dir = mkdtempSync(join(tmpdir(), RUN_PREFIX))
  chmodSync(dir, 0o755)
  writeFileSync(join(dir, OWNER_FILE), String(process.pid))
  await initDatabase(dir)
  const dnsPort = await freeDnsPort()
  const apiPort = freeTcpPort()
  const apiKey = randomBytes(16).toString('hex')
  const authAddresses = nsAddresses()
  writeConfig(dir, dnsPort, apiPort, apiKey, authAddresses)
  const apiUrl = `http://127.0.0.1:${apiPort}/api/v1/servers/localhost`
  const headers = { 'X-API-Key': apiKey, 'content-type': 'application/json' }

  let proc: Subprocess | null = null
  const killNow = () => proc?.kill('SIGKILL')
  process.on('exit', killNow)

  const startServer = async () => {
    const cmd = ['pdns_server', `--config-dir=${dir}`]
    const p = spawn(setpriv ? [setpriv, '--pdeathsig', 'KILL', ...cmd] : cmd, { stdout: 'ignore', stderr: 'pipe' })
    proc = p
    for (let i = 0; ; i++) {
      try {
        if ((await fetch(apiUrl, { headers })).ok) return
      } catch {
        // not up yet
      }
      if (p.exitCode !== null || i > 200) {
        p.kill('SIGKILL')
        throw new Error(`pdns_server did not start: ${await new Response(p.stderr as ReadableStream).text()}`)
      }
      await Bun.sleep(25)
    }
  }
  const stopServer = async () => {
    const p = proc
    if (!p) return
    proc = null
    p.kill('SIGCONT') // a paused daemon cannot act on SIGTERM
    p.kill('SIGTERM')
    await p.exited
  }

  const send = async (method: string, path: string, body?: unknown) => {
    for (let attempt = 1; ; attempt++) {
      const r = await fetch(apiUrl + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
      // A busy sqlite file answers 500 (locked): on a loaded machine it passes on a second try.
      if (r.status === 500 && attempt < 5) {
        await r.text()
        await Bun.sleep(50 * attempt)
        continue
      }
      if (r.status >= 300) throw new Error(`PowerDNS ${method} ${path}: ${r.status} ${await r.text()}`)
      return r.status === 204 ? null : r.json()
    }
  }
  // Writes go one at a time: the sqlite backend answers 500 to concurrent ones (a locked database).
  let writing: Promise<unknown> = Promise.resolve()
  const api = (method: string, path: string, body?: unknown) => {
    if (method === 'GET') return send(method, path)
    const next = writing.then(() => send(method, path, body))
    writing = next.catch(() => {})
    return next
  }
  const zones = new Set<string>()
  const zoneOf = (name: string) => {
    const n = fq(name)
    let best = ''
    for (const z of zones) if ((n === z || n.endsWith('.' + z)) && z.length > best.length) best = z
    if (!best) throw new Error(`no zone serves ${name}`)
    return best
  }
  const rrset = (name: string, type: string, contents: string[], ttl: number) => ({
    name: fq(name),
    type: type.toUpperCase(),
    ttl,
    changetype: 'REPLACE',
    records: contents.map((content) => ({ content, disabled: false })),
  })
  const createZone = async (zone: string, opts: { nameservers?: string[] } = {}) => {
    const z = fq(zone)
    const ns = (opts.nameservers ?? DEFAULT_NAMESERVERS).map(fq)
    await api('POST', '/zones', { name: z, kind: 'Native', nameservers: ns })
    // The delegation lives in the closest enclosing zone served here (RFC 1034 §4.2.1).
    const parent = [...zones].filter((p) => z.endsWith('.' + p)).sort((a, b) => b.length - a.length)[0]
    zones.add(z)
    if (parent) await api('PATCH', `/zones/${parent}`, { rrsets: [rrset(z, 'NS', ns, 3600)] })
  }

  await startServer()
  const pdns: Pdns = {
    dnsAddress: `127.0.0.1:${dnsPort}`,
    dnsPort,
    nsAddresses: authAddresses,
    port53Host: authAddresses[0] ?? null,
    apiUrl,
    apiKey,
    serverId: 'localhost',
    createZone,
    async deleteZone(zone) {
      const z = fq(zone)
      await api('DELETE', `/zones/${z}`)
      zones.delete(z)
      const parent = [...zones].filter((p) => z.endsWith('.' + p)).sort((a, b) => b.length - a.length)[0]
      if (parent) await api('PATCH', `/zones/${parent}`, { rrsets: [{ name: z, type: 'NS', changetype: 'DELETE' }] })
    },
    async setRecords(name, type, contents, ttl = 300) {
      await api('PATCH', `/zones/${zoneOf(name)}`, { rrsets: [rrset(name, type, contents, ttl)] })
    },
    async deleteRecords(name, type) {
      await api('PATCH', `/zones/${zoneOf(name)}`, { rrsets: [{ name: fq(name), type: type.toUpperCase(), changetype: 'DELETE' }] })
    },
    async listRecords(zone) {
      const z = (await api('GET', `/zones/${fq(zone)}`)) as { rrsets: { name: string; type: string; ttl: number; records: { content: string }[] }[] }
      return z.rrsets.flatMap((s) => s.records.map((r) => ({ name: s.name, type: s.type, ttl: s.ttl, content: r.content })))
    },
    async pause() {
      if (!proc) return
      proc.kill('SIGSTOP')
      // The signal is queued, not acted on: a thread busy on the other core may still answer a
      // query or two. Stopped means every thread shows state T.
      const stopped = () => {
        try {
          return readdirSync(`/proc/${proc!.pid}/task`).every((t) => readFileSync(`/proc/${proc!.pid}/task/${t}/stat`, 'utf8').split(') ')[1]?.startsWith('T'))
        } catch {
          return true
        }
      }
      for (let i = 0; i < 200 && !stopped(); i++) await Bun.sleep(5)
    },
    resume() {
      proc?.kill('SIGCONT')
    },
    stopServer,
    startServer: async () => {
      if (!proc) await startServer()
    },
    async restart() {
      await stopServer()
      await startServer()
    },
    async stop() {
      await stopServer()
      process.off('exit', killNow)
      rmSync(dir, { recursive: true, force: true })
      if (shared && (await shared) === pdns) shared = null
    },
  }
  await createZone(PARENT_ZONE, { nameservers: ['a.ns.portico-test.test.'] })
  for (const [i, address] of authAddresses.entries()) await pdns.setRecords(AUTH_NAMESERVERS[i]!, 'A', [address])
  return pdns
}
