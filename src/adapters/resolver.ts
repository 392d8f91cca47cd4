// The DNS resolver adapter: every lookup goes to the servers in DNS_RESOLVERS, over UDP with EDNS0 and
// TCP when an answer is truncated. It is a small wire-format client of Portico's own rather than
// node:dns, because the Connect rules need what node:dns blurs: NXDOMAIN (RCODE 3), no data (RCODE 0
// with nothing of the type) and a resolver failure (timeout, SERVFAIL, REFUSED) must stay apart, and a
// custom port must work. One UDP socket serves every query in flight; replies are matched on id,
// question and sender, so a stray or spoofed packet is ignored.
import { createConnection } from 'node:net'
import type { Dns, Lookup, LookupType } from '../domain/dns.ts'

const TYPE_CODE: Record<LookupType, number> = { A: 1, NS: 2, CNAME: 5, SOA: 6, MX: 15, TXT: 16, AAAA: 28, CAA: 257 }
const CODE_TYPE = new Map(Object.entries(TYPE_CODE).map(([k, v]) => [v, k as LookupType]))

export interface ResolverOptions {
  /** `host:port` entries; IPv6 hosts in brackets. */
  servers: string[]
  timeoutMs?: number
  /** Attempts per lookup, rotating through the servers. */
  tries?: number
}

interface Server {
  host: string
  port: number
}

interface Pending {
  name: string
  code: number
  server: Server
  resolve: (l: Lookup) => void
  timer: ReturnType<typeof setTimeout>
}

function parseServer(s: string): Server {
  const m = /^\[?([^\]]+?)\]?:(\d+)$/.exec(s)
  if (!m) throw new Error(`resolver: ${s} is not host:port`)
  return { host: m[1]!, port: Number(m[2]) }
}

/** Encodes a query: header, one question, and an EDNS0 OPT record offering 1232-byte answers. */
export function encodeQuery(id: number, name: string, code: number): Buffer {
  const labels = name.replace(/\.$/, '').split('.').filter(Boolean)
  const qname = Buffer.alloc(labels.reduce((n, l) => n + Buffer.byteLength(l) + 1, 1))
  let o = 0
  for (const l of labels) {
    const len = qname.write(l, o + 1)
    qname[o] = len
    o += len + 1
  }
  const buf = Buffer.alloc(12 + qname.length + 4 + 11)
  buf.writeUInt16BE(id, 0)
  buf.writeUInt16BE(0x0100, 2) // RD
  buf.writeUInt16BE(1, 4)
  buf.writeUInt16BE(1, 10) // ARCOUNT: the OPT record
  qname.copy(buf, 12)
  let p = 12 + qname.length
  buf.writeUInt16BE(code, p)
  buf.writeUInt16BE(1, p + 2)
  p += 4
  buf[p] = 0 // root name
  buf.writeUInt16BE(41, p + 1) // OPT
  buf.writeUInt16BE(1232, p + 3) // UDP payload size
  return buf
}

function readName(buf: Buffer, offset: number): { name: string; next: number } {
  const labels: string[] = []
  let p = offset
  let next = -1
  for (let jumps = 0; jumps < 64; jumps++) {
    const len = buf[p]
    if (len === undefined) throw new Error('truncated name')
    if (len === 0) {
      if (next < 0) next = p + 1
      return { name: labels.join('.').toLowerCase(), next }
    }
    if ((len & 0xc0) === 0xc0) {
      if (next < 0) next = p + 2
      p = ((len & 0x3f) << 8) | buf[p + 1]!
      continue
    }
    labels.push(buf.toString('latin1', p + 1, p + 1 + len))
    p += len + 1
  }
  throw new Error('name compression loop')
}

function ipv6(buf: Buffer, p: number): string {
  const parts: string[] = []
  for (let i = 0; i < 8; i++) parts.push(buf.readUInt16BE(p + i * 2).toString(16))
  // Compress the longest run of zero groups (RFC 5952).
  let best = -1
  let bestLen = 0
  for (let i = 0; i < 8; ) {
    if (parts[i] !== '0') {
      i++
      continue
    }
    let j = i
    while (j < 8 && parts[j] === '0') j++
    if (j - i > bestLen && j - i > 1) {
      best = i
      bestLen = j - i
    }
    i = j
  }
  if (best < 0) return parts.join(':')
  return `${parts.slice(0, best).join(':')}::${parts.slice(best + bestLen).join(':')}`
}

function rdata(buf: Buffer, type: number, p: number, len: number): string | null {
  switch (type) {
    case 1:
      return `${buf[p]}.${buf[p + 1]}.${buf[p + 2]}.${buf[p + 3]}`
    case 28:
      return ipv6(buf, p)
    case 2:
    case 5:
      return readName(buf, p).name
    case 15:
      return `${buf.readUInt16BE(p)} ${readName(buf, p + 2).name}`
    case 16: {
      let out = ''
      for (let q = p; q < p + len; ) {
        const l = buf[q]!
        out += buf.toString('utf8', q + 1, q + 1 + l)
        q += l + 1
      }
      return out
    }
    case 257: {
      const tagLen = buf[p + 1]!
      const tag = buf.toString('latin1', p + 2, p + 2 + tagLen)
      return `${buf[p]} ${tag} "${buf.toString('utf8', p + 2 + tagLen, p + len)}"`
    }
    case 6: {
      const m = readName(buf, p)
      const r = readName(buf, m.next)
      const n = [0, 4, 8, 12, 16].map((k) => buf.readUInt32BE(r.next + k))
      return `${m.name} ${r.name} ${n.join(' ')}`
    }
    default:
      return null
  }
}

export interface Decoded {
  id: number
  truncated: boolean
  rcode: number
  qname: string
  qtype: number
  answers: { name: string; type: number; value: string }[]
}

export function decodeResponse(buf: Buffer): Decoded {
  const id = buf.readUInt16BE(0)
  const flags = buf.readUInt16BE(2)
  const qd = buf.readUInt16BE(4)
  const an = buf.readUInt16BE(6)
  let p = 12
  let qname = ''
  let qtype = 0
  for (let i = 0; i < qd; i++) {
    const n = readName(buf, p)
    if (i === 0) {
      qname = n.name
      qtype = buf.readUInt16BE(n.next)
    }
    p = n.next + 4
  }
  const answers: Decoded['answers'] = []
  for (let i = 0; i < an; i++) {
    const n = readName(buf, p)
    const type = buf.readUInt16BE(n.next)
    const len = buf.readUInt16BE(n.next + 8)
    const start = n.next + 10
    const value = rdata(buf, type, start, len)
    if (value !== null) answers.push({ name: n.name, type, value })
    p = start + len
  }
  return { id, truncated: (flags & 0x0200) !== 0, rcode: flags & 0x000f, qname, qtype, answers }
}

/** Reads one answer into Portico's lookup result. */
export function toLookup(d: Decoded, name: string, code: number): Lookup {
  // NXDOMAIN speaks of the last name of a CNAME chain: a name that is itself an alias exists.
  const aliased = code !== 5 && d.answers.some((a) => a.type === 5 && a.name === name)
  if (d.rcode === 3 && !aliased) return { status: 'nxdomain' }
  if (d.rcode !== 0 && d.rcode !== 3) return { status: 'error', error: `rcode ${d.rcode}` }
  // Follow the CNAME chain inside the answer to the name whose data answers the question.
  let owner = name
  let cname: string | undefined
  for (let hop = 0; hop < 10 && code !== 5; hop++) {
    const alias = d.answers.find((a) => a.type === 5 && a.name === owner)
    if (!alias) break
    cname ??= alias.value
    owner = alias.value
  }
  const values = d.answers.filter((a) => a.type === code && a.name === owner).map((a) => a.value)
  if (values.length === 0 && !cname) return { status: 'nodata' }
  return cname ? { status: 'ok', values, cname } : { status: 'ok', values }
}

export class Resolver implements Dns {
  private readonly servers: Server[]
  private readonly timeoutMs: number
  private readonly tries: number
  private readonly pending = new Map<number, Pending>()
  private nextId = Math.floor(Math.random() * 65536)
  private rotate = 0
  private socket: Promise<{ send(data: Buffer, port: number, address: string): boolean; close(): void }> | null = null

  constructor(opts: ResolverOptions) {
    if (opts.servers.length === 0) throw new Error('resolver: no servers')
    this.servers = opts.servers.map(parseServer)
    this.timeoutMs = opts.timeoutMs ?? 2000
    this.tries = opts.tries ?? 2
  }

  private open() {
    this.socket ??= Bun.udpSocket({
      hostname: this.servers[0]!.host.includes(':') ? '::' : '0.0.0.0',
      socket: {
        data: (_s, data, port, address) => this.onMessage(Buffer.from(data), port, address),
        // An ICMP "port unreachable" surfaces here; the lookup's own timer reports the failure.
        error: () => {},
      },
    })
    return this.socket
  }

  private onMessage(msg: Buffer, port: number, address: string): void {
    if (msg.length < 12) return
    const p = this.pending.get(msg.readUInt16BE(0))
    if (!p || p.server.port !== port || p.server.host.replace(/^::ffff:/, '') !== address.replace(/^::ffff:/, '')) return
    let d: Decoded
    try {
      d = decodeResponse(msg)
    } catch {
      return // malformed: let the timer decide
    }
    if (d.qname !== p.name || d.qtype !== p.code) return
    this.pending.delete(d.id)
    clearTimeout(p.timer)
    if (d.truncated) void this.overTcp(p.server, p.name, p.code).then(p.resolve)
    else p.resolve(toLookup(d, p.name, p.code))
  }

  private allocId(): number {
    for (let i = 0; i < 65536; i++) {
      this.nextId = (this.nextId + 1) & 0xffff
      if (!this.pending.has(this.nextId)) return this.nextId
    }
    throw new Error('resolver: too many lookups in flight')
  }

  private async once(server: Server, name: string, code: number): Promise<Lookup> {
    const socket = await this.open()
    return new Promise<Lookup>((resolve) => {
      const id = this.allocId()
      const timer = setTimeout(() => {
        this.pending.delete(id)
        resolve({ status: 'error', error: `timeout after ${this.timeoutMs} ms (${server.host}:${server.port})` })
      }, this.timeoutMs)
      this.pending.set(id, { name, code, server, resolve, timer })
      try {
        socket.send(encodeQuery(id, name, code), server.port, server.host)
      } catch (err) {
        this.pending.delete(id)
        clearTimeout(timer)
        resolve({ status: 'error', error: `send failed: ${(err as Error).message}` })
      }
    })
  }

  private overTcp(server: Server, name: string, code: number): Promise<Lookup> {
    return new Promise((resolve) => {
      const query = encodeQuery(this.allocId(), name, code)
      const frame = Buffer.alloc(query.length + 2)
      frame.writeUInt16BE(query.length, 0)
      query.copy(frame, 2)
      let got = Buffer.alloc(0)
      const sock = createConnection({ host: server.host, port: server.port })
      const done = (l: Lookup) => {
        sock.destroy()
        clearTimeout(timer)
        resolve(l)
      }
      const timer = setTimeout(() => done({ status: 'error', error: 'tcp timeout' }), this.timeoutMs)
      sock.on('connect', () => sock.write(frame))
      sock.on('data', (chunk: Buffer) => {
        got = Buffer.concat([got, chunk])
        if (got.length >= 2 && got.length >= got.readUInt16BE(0) + 2) {
          try {
            done(toLookup(decodeResponse(got.subarray(2, 2 + got.readUInt16BE(0))), name, code))
          } catch (err) {
            done({ status: 'error', error: `bad tcp answer: ${(err as Error).message}` })
          }
        }
      })
      sock.on('error', (err) => done({ status: 'error', error: `tcp: ${err.message}` }))
    })
  }

  async lookup(name: string, type: LookupType): Promise<Lookup> {
    const n = name.toLowerCase().replace(/\.$/, '')
    const code = TYPE_CODE[type]
    let last: Lookup = { status: 'error', error: 'no attempt' }
    for (let attempt = 0; attempt < this.tries; attempt++) {
      const server = this.servers[this.rotate++ % this.servers.length]!
      last = await this.once(server, n, code)
      // Only a transport failure is worth another server; an answer (even SERVFAIL) is final for
      // NXDOMAIN and data, retried for failures.
      if (last.status !== 'error') return last
    }
    return last
  }

  async close(): Promise<void> {
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer)
      p.resolve({ status: 'error', error: 'resolver closed' })
      this.pending.delete(id)
    }
    if (this.socket) (await this.socket).close()
    this.socket = null
  }
}

export { CODE_TYPE }
