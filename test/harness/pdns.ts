// A real PowerDNS authoritative server (Debian pdns-server, sqlite3 backend) on free loopback ports,
// with its HTTP API, shared by every test of the process and stopped when the process exits. It
// serves the parent zone `test.` so names that do not exist get real NXDOMAIN answers, and child
// zones are delegated from it the way a registry delegates a customer's domain.
import { spawn, type Subprocess } from 'bun'
import { mkdtempSync, chmodSync, writeFileSync, readFileSync, rmSync } from 'node:fs'
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
  apiUrl: string
  apiKey: string
  serverId: string
  createZone(zone: string, opts?: { nameservers?: string[] }): Promise<void>
  deleteZone(zone: string): Promise<void>
  setRecords(name: string, type: string, contents: string[], ttl?: number): Promise<void>
  deleteRecords(name: string, type: string): Promise<void>
  listRecords(zone: string): Promise<PdnsRecord[]>
  stop(): Promise<void>
}

export const PARENT_ZONE = 'test'
export const DEFAULT_NAMESERVERS = ['ns1.portico-test.test.', 'ns2.portico-test.test.']

async function freePort(kind: 'tcp' | 'udp'): Promise<number> {
  if (kind === 'udp') {
    const s = await Bun.udpSocket({ hostname: '127.0.0.1', port: 0 })
    const port = s.port
    s.close()
    return port
  }
  const srv = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const port = srv.port
  srv.stop(true)
  return port
}

const fq = (name: string) => (name.endsWith('.') ? name : `${name}.`).toLowerCase()

let shared: Promise<Pdns> | null = null

export function startPdns(): Promise<Pdns> {
  shared ??= launch()
  return shared
}

async function launch(): Promise<Pdns> {
  const dir = mkdtempSync(join(tmpdir(), 'portico-pdns-'))
  chmodSync(dir, 0o755)
  const db = join(dir, 'pdns.sqlite3')
  const schema = readFileSync('/usr/share/doc/pdns-backend-sqlite3/schema.sqlite3.sql', 'utf8')
  const init = spawn(['sqlite3', db], { stdin: new Blob([schema]), stdout: 'ignore', stderr: 'pipe' })
  if ((await init.exited) !== 0) throw new Error(`sqlite3 schema failed: ${await new Response(init.stderr).text()}`)
  // The DNS port must be free for both UDP and TCP; retry on the rare clash.
  let dnsPort = 0
  for (let i = 0; i < 20 && !dnsPort; i++) {
    const p = await freePort('udp')
    try {
      const t = Bun.listen({ hostname: '127.0.0.1', port: p, socket: { data() {} } })
      t.stop(true)
      dnsPort = p
    } catch {
      // taken for TCP; try another
    }
  }
  const apiPort = await freePort('tcp')
  const apiKey = randomBytes(16).toString('hex')
  writeFileSync(
    join(dir, 'pdns.conf'),
    [
      'launch=gsqlite3',
      `gsqlite3-database=${db}`,
      `local-address=127.0.0.1:${dnsPort}`,
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
    ].join('\n') + '\n',
  )
  const proc: Subprocess = spawn(['pdns_server', `--config-dir=${dir}`], { stdout: 'ignore', stderr: 'pipe' })
  const apiUrl = `http://127.0.0.1:${apiPort}/api/v1/servers/localhost`
  const headers = { 'X-API-Key': apiKey, 'content-type': 'application/json' }
  const api = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(apiUrl + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
    if (r.status >= 300) throw new Error(`PowerDNS ${method} ${path}: ${r.status} ${await r.text()}`)
    return r.status === 204 ? null : r.json()
  }
  for (let i = 0; ; i++) {
    try {
      const r = await fetch(apiUrl, { headers })
      if (r.ok) break
    } catch {
      // not up yet
    }
    if (proc.exitCode !== null || i > 100) throw new Error(`pdns_server did not start: ${await new Response(proc.stderr as ReadableStream).text()}`)
    await Bun.sleep(50)
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
    type,
    ttl,
    changetype: 'REPLACE',
    records: contents.map((content) => ({ content, disabled: false })),
  })
  const createZone = async (zone: string, opts: { nameservers?: string[] } = {}) => {
    const z = fq(zone)
    const ns = opts.nameservers ?? DEFAULT_NAMESERVERS
    await api('POST', '/zones', { name: z, kind: 'Native', nameservers: ns })
    zones.add(z)
    if (z !== fq(PARENT_ZONE)) await api('PATCH', `/zones/${zoneOf(PARENT_ZONE)}`, { rrsets: [rrset(z, 'NS', ns, 3600)] })
  }

  const pdns: Pdns = {
    dnsAddress: `127.0.0.1:${dnsPort}`,
    dnsPort,
    apiUrl,
    apiKey,
    serverId: 'localhost',
    createZone,
    async deleteZone(zone) {
      const z = fq(zone)
      await api('DELETE', `/zones/${z}`)
      zones.delete(z)
      await api('PATCH', `/zones/${fq(PARENT_ZONE)}`, { rrsets: [{ name: z, type: 'NS', changetype: 'DELETE' }] })
    },
    async setRecords(name, type, contents, ttl = 300) {
      await api('PATCH', `/zones/${zoneOf(name)}`, { rrsets: [rrset(name, type, contents, ttl)] })
    },
    async deleteRecords(name, type) {
      await api('PATCH', `/zones/${zoneOf(name)}`, { rrsets: [{ name: fq(name), type, changetype: 'DELETE' }] })
    },
    async listRecords(zone) {
      const z = (await api('GET', `/zones/${fq(zone)}`)) as { rrsets: { name: string; type: string; ttl: number; records: { content: string }[] }[] }
      return z.rrsets.flatMap((s) => s.records.map((r) => ({ name: s.name, type: s.type, ttl: s.ttl, content: r.content })))
    },
    async stop() {
      proc.kill('SIGTERM')
      await proc.exited
      rmSync(dir, { recursive: true, force: true })
      shared = null
    },
  }
  await createZone(PARENT_ZONE, { nameservers: ['a.ns.portico-test.test.'] })
  process.once('exit', () => proc.kill('SIGKILL'))
  return pdns
}
