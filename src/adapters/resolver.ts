// The DNS resolver adapter: every lookup goes to the servers in DNS_RESOLVERS (`host:port`), over UDP
// with EDNS0 and over TCP when an answer is truncated (RFC 7766 §5). It answers with the domain's
// `Lookup`: values as written in a zone, and NXDOMAIN, no data and resolver failure kept apart.
//
// Why a wire-format client of Portico's own and not node:dns: measured on Bun 1.4.5 against the test
// PowerDNS, Bun's `dns.Resolver` takes a custom port and parses CAA, but reports ENOTFOUND both for
// NXDOMAIN and for a name without data of the type, and hides the answer section, so a CNAME
// reached by an A query is invisible. The Connect rules need exactly those distinctions
// (RFC 2308 §2.1 NXDOMAIN, §2.2 NODATA), which the RCODE and answer section give directly here.
//
// Invariants:
// - One UDP socket per address family serves every query in flight; a reply is accepted only when
//   its id, question and sender match a pending query (RFC 5452 §9.1), so stray or spoofed packets
//   are ignored. Ids are random, drawn from a pool of crypto bytes, never reused while in flight.
// - Timeouts cost no timer per query: one sweep, running only while queries are pending, sends a
//   query again (same id) when no answer came within the server's retransmission timeout, and fails
//   it at its deadline. UDP loses packets even on loopback (a full receive buffer under load), so
//   the retransmission timeout follows each server's measured round trip the way TCP's does
//   (RFC 6298 §2, Karn's rule in §3), capped by `retransmitMs`: a lost packet costs a few round
//   trips, not the whole timeout.
// - At most `maxInFlight` queries are on the wire; the rest wait their turn, the wait counted in
//   their timeout, so a sweep's burst never overruns a server's receive buffer.
// - A failure (timeout, SERVFAIL, REFUSED, unreachable) is retried on the next server, up to
//   `tries` attempts; NXDOMAIN, no data and answers are final.
import { createConnection } from 'node:net'
import { getRandomValues } from 'node:crypto'
import type { Dns, Lookup, LookupType } from './dns.ts'

export const TYPE_CODE: Record<LookupType, number> = { A: 1, NS: 2, CNAME: 5, SOA: 6, MX: 15, TXT: 16, AAAA: 28, CAA: 257 }
const CNAME = 5
const RCODE_NXDOMAIN = 3
/** Bytes of the OPT record that ends every query (RFC 6891 §6.1.2). */
const OPT_LENGTH = 11
/** Offered UDP payload size: the DNS Flag Day 2020 value, which avoids IP fragmentation. */
const EDNS_UDP_SIZE = 1232

export interface ResolverOptions {
  /** `host:port` entries; IPv6 hosts in brackets (`[::1]:53`). */
  servers: string[]
  /** Per attempt. Default 2000 ms. */
  timeoutMs?: number
  /** Attempts per lookup, rotating through the servers. Default 2. */
  tries?: number
  /** Upper bound of the retransmission timeout within an attempt. Default min(500, timeoutMs / 2). */
  retransmitMs?: number
  /**
   * Queries on the wire at once; more wait for a slot, and the wait counts against their timeout.
   * Default 128: bursts beyond what a server's receive buffer holds are dropped by its kernel, and
   * each drop costs a retransmission timeout.
   */
  maxInFlight?: number
}

interface Server {
  host: string
  port: number
  v6: boolean
  /** Smoothed round trip and its variation, ms (RFC 6298 §2); 0 until measured. */
  srtt: number
  rttvar: number
}

/** Floor of the retransmission timeout: below it a busy server's queueing reads as loss. */
const MIN_RTO_MS = 25

/** One question to one server, and how its outcome (a decoded reply, or why none came) is read. */
interface Ask<T> {
  name: string
  code: number
  /** RD set: false when asking a zone's own servers. */
  recursion: boolean
  /** Decode the authority and additional sections too (referrals, glue). */
  sections: boolean
  finish: (o: Decoded | string, ask: Ask<T>) => T
}

interface Pending {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each pending query keeps its own result type
  ask: Ask<any>
  server: Server
  socket: UdpSocket
  packet: Buffer
  sentAt: number
  resent: boolean
  resendAt: number
  deadline: number
  resolve: (v: unknown) => void
}

type UdpSocket = Bun.udp.Socket<'buffer'>

export function parseServer(s: string): Server {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:\]]+)):(\d{1,5})$/.exec(s.trim())
  const port = Number(m?.[3])
  if (!m || port < 1 || port > 65535) throw new Error(`resolver: ${s} is not host:port`)
  const host = (m[1] ?? m[2])!
  return { host, port, v6: m[1] !== undefined, srtt: 0, rttvar: 0 }
}

/** Presentation name → wire name inside `buf` at `offset` (RFC 1035 §3.1); returns the end, or -1 if the name is invalid. */
function writeName(buf: Buffer, offset: number, name: string): number {
  const len = buf.write(name, offset + 1, 'utf8')
  let start = offset
  for (let i = offset + 1; i <= offset + 1 + len; i++) {
    if (i === offset + 1 + len || buf[i] === 0x2e) {
      const labelLen = i - start - 1
      if (labelLen < 1 || labelLen > 63) return -1
      buf[start] = labelLen
      start = i
    }
  }
  buf[offset + 1 + len] = 0
  return offset + len + 2
}

/**
 * Encodes a query: header (RD unless `recursion` is false), one question, and an EDNS0 OPT record (RFC 6891 §6.1.2).
 * `name` is lowercase without the trailing dot; throws on a name DNS cannot carry.
 */
export function encodeQuery(id: number, name: string, code: number, recursion = true): Buffer {
  const nameBytes = Buffer.byteLength(name)
  if (nameBytes === 0 || nameBytes > 253) throw new Error(`invalid name: ${name}`)
  const buf = Buffer.allocUnsafe(12 + nameBytes + 2 + 4 + OPT_LENGTH)
  buf.writeUInt16BE(id, 0)
  // RD for the configured recursive resolvers; none when asking a zone's own servers (RFC 1034 §4.3.1).
  buf.writeUInt16BE(recursion ? 0x0100 : 0, 2)
  buf.writeUInt32BE(0x00010000, 4) // QDCOUNT 1, ANCOUNT 0
  buf.writeUInt32BE(0x00000001, 8) // NSCOUNT 0, ARCOUNT 1 (the OPT record)
  const p = writeName(buf, 12, name)
  if (p < 0) throw new Error(`invalid name: ${name}`)
  buf.writeUInt16BE(code, p)
  buf.writeUInt16BE(1, p + 2) // class IN
  buf[p + 4] = 0 // OPT owner: root
  buf.writeUInt16BE(41, p + 5)
  buf.writeUInt16BE(EDNS_UDP_SIZE, p + 7)
  buf.writeUInt32BE(0, p + 9) // extended RCODE, version 0, no DO bit
  buf.writeUInt16BE(0, p + 13) // no options
  return buf
}

/** A name known to stand at an offset of the message (the question's): a pointer to it ends the read. */
interface KnownName {
  at: number
  name: string
}

function readName(buf: Buffer, offset: number, known?: KnownName): { name: string; next: number } {
  let name = ''
  let p = offset
  let next = -1
  // Compression pointers (RFC 1035 §4.1.4) may chain; a bound on hops stops loops.
  for (let hops = 0; hops < 128; hops++) {
    const len = buf[p]
    if (len === undefined) throw new Error('truncated name')
    if (len === 0) return { name: name.toLowerCase(), next: next < 0 ? p + 1 : next }
    if ((len & 0xc0) === 0xc0) {
      if (next < 0) next = p + 2
      p = ((len & 0x3f) << 8) | buf[p + 1]!
      if (p === known?.at) return { name: (name ? `${name.toLowerCase()}.` : '') + known.name, next }
      continue
    }
    if (p + 1 + len > buf.length) throw new Error('truncated label')
    name += (name ? '.' : '') + buf.toString('latin1', p + 1, p + 1 + len)
    p += len + 1
  }
  throw new Error('name compression loop')
}

/** RFC 5952 §4: lowercase hex, leading zeros dropped, the longest run (>1) of zero groups as `::`. */
function ipv6(buf: Buffer, p: number): string {
  const parts: string[] = []
  for (let i = 0; i < 8; i++) parts.push(buf.readUInt16BE(p + i * 2).toString(16))
  let best = -1
  let bestLen = 1
  for (let i = 0; i < 8; i++) {
    let j = i
    while (j < 8 && parts[j] === '0') j++
    if (j - i > bestLen) [best, bestLen] = [i, j - i]
    i = j
  }
  if (best < 0) return parts.join(':')
  return `${parts.slice(0, best).join(':')}::${parts.slice(best + bestLen).join(':')}`
}

/** RFC 8659 §4.1.1 presentation of a CAA value: a quoted string with `"` and `\` escaped. */
const quoted = (s: string) => `"${s.replace(/["\\]/g, '\\$&')}"`

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
      // One TXT record is one or more character-strings; a person reads them as one value.
      let out = ''
      for (let q = p; q < p + len; q += buf[q]! + 1) out += buf.toString('utf8', q + 1, q + 1 + buf[q]!)
      return out
    }
    case 257: {
      const tagLen = buf[p + 1]!
      const tag = buf.toString('latin1', p + 2, p + 2 + tagLen).toLowerCase()
      return `${buf[p]} ${tag} ${quoted(buf.toString('utf8', p + 2 + tagLen, p + len))}`
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

export interface ResourceRecord {
  name: string
  type: number
  value: string
  ttl: number
}

export interface Decoded {
  id: number
  truncated: boolean
  /** AA: the answer comes from a server authoritative for the name's zone. */
  authoritative: boolean
  rcode: number
  qname: string
  qtype: number
  answers: ResourceRecord[]
  /** The authority and additional sections: read only when asked for (`sections`), else empty. */
  authority: ResourceRecord[]
  additional: ResourceRecord[]
}

/**
 * Decodes a message. With `question` (the caller checked that the question section, which ends at
 * `end`, is byte for byte the one it sent for `name`), the question is not read again, and names
 * compressed to it (most owner names of an answer) are not either.
 */
export function decodeResponse(buf: Buffer, question?: { name: string; end: number }, sections = false): Decoded {
  const id = buf.readUInt16BE(0)
  const flags = buf.readUInt16BE(2)
  const qd = buf.readUInt16BE(4)
  const an = buf.readUInt16BE(6)
  const ns = sections ? buf.readUInt16BE(8) : 0
  const ar = sections ? buf.readUInt16BE(10) : 0
  let p = 12
  let qname = ''
  let qtype = 0
  const known = question && { at: 12, name: question.name }
  if (question) [qname, qtype, p] = [question.name, buf.readUInt16BE(question.end - 4), question.end]
  else
    for (let i = 0; i < qd; i++) {
      const n = readName(buf, p)
      if (i === 0) [qname, qtype] = [n.name, buf.readUInt16BE(n.next)]
      p = n.next + 4
    }
  const section = (count: number): ResourceRecord[] => {
    const out: ResourceRecord[] = []
    for (let i = 0; i < count; i++) {
      const n = readName(buf, p, known)
      const type = buf.readUInt16BE(n.next)
      const ttl = buf.readUInt32BE(n.next + 4)
      const len = buf.readUInt16BE(n.next + 8)
      const start = n.next + 10
      if (start + len > buf.length) throw new Error('truncated record')
      const value = rdata(buf, type, start, len)
      if (value !== null) out.push({ name: n.name, type, value, ttl })
      p = start + len
    }
    return out
  }
  const answers = section(an)
  const authority = section(ns)
  const additional = section(ar)
  return { id, truncated: (flags & 0x0200) !== 0, authoritative: (flags & 0x0400) !== 0, rcode: flags & 0x000f, qname, qtype, answers, authority, additional }
}

/** Reads one decoded answer into Portico's lookup result for the question (`name`, `code`). */
export function toLookup(d: Decoded, name: string, code: number): Lookup {
  // RFC 6604 §2: with a CNAME chain the RCODE speaks of the chain's last name, so a name that is
  // itself an alias exists even when the answer says NXDOMAIN.
  const aliased = code !== CNAME && d.answers.some((a) => a.type === CNAME && a.name === name)
  if (d.rcode === RCODE_NXDOMAIN && !aliased) return { status: 'nxdomain' }
  if (d.rcode !== 0 && d.rcode !== RCODE_NXDOMAIN) return { status: 'error', error: `rcode ${d.rcode}` }
  // Follow the chain inside the answer to the name whose records answer the question.
  let owner = name
  let cname: string | undefined
  for (let hop = 0; hop < 16 && code !== CNAME; hop++) {
    const alias = d.answers.find((a) => a.type === CNAME && a.name === owner)
    if (!alias) break
    cname ??= alias.value
    owner = alias.value
  }
  const values: string[] = []
  for (const a of d.answers) if (a.type === code && a.name === owner) values.push(a.value)
  if (values.length === 0 && !cname) return { status: 'nodata' }
  return cname ? { status: 'ok', values, cname } : { status: 'ok', values }
}

const failure = (error: string): Lookup => ({ status: 'error', error })
const asLookup = (o: Decoded | string, a: Ask<Lookup>): Lookup => (typeof o === 'string' ? failure(o) : toLookup(o, a.name, a.code))
const asIs = (o: Decoded | string) => o

/**
 * Sends one datagram; false when the kernel would not take it now (sent again on drain). An ICMP
 * error caused by an earlier datagram (port unreachable) surfaces as a throw from the next send on
 * the socket; it says nothing about this packet, so the send is tried once more, and a packet that
 * still does not leave is counted as sent: the retransmission sweep and its deadline deal with it.
 */
function sendOnce(socket: UdpSocket, packet: Buffer, server: Server): boolean {
  for (let i = 0; i < 2; i++) {
    try {
      return socket.send(packet, server.port, server.host)
    } catch {
      // the pending socket error is consumed by this throw
    }
  }
  return true
}

export class Resolver implements Dns {
  private readonly servers: Server[]
  /** Servers asked by address (`exchange`), with their measured round trips. */
  private readonly direct = new Map<string, Server>()
  private readonly timeoutMs: number
  private readonly tries: number
  private readonly retransmitMs: number
  private readonly pending = new Map<number, Pending>()
  private readonly sockets: { v4?: Promise<UdpSocket>; v6?: Promise<UdpSocket> } = {}
  private readonly ready: { v4?: UdpSocket; v6?: UdpSocket } = {}
  /** Packets the kernel would not take yet; sent again on `drain`. */
  private readonly backlog: { v4: { packet: Buffer; server: Server }[]; v6: { packet: Buffer; server: Server }[] } = { v4: [], v6: [] }
  /** Packets waiting for the end of this turn of the event loop, to be sent together. */
  private outgoing: { v4: { packet: Buffer; server: Server }[]; v6: { packet: Buffer; server: Server }[] } = { v4: [], v6: [] }
  private readonly maxInFlight: number
  /** Queries waiting for a slot, oldest first from `waitingAt`. */
  private waiting: (() => void)[] = []
  private waitingAt = 0
  private readonly idPool = new Uint16Array(4096)
  private idNext = this.idPool.length
  private sweep: ReturnType<typeof setInterval> | null = null
  private rotate = 0
  private closed = false

  constructor(opts: ResolverOptions) {
    if (opts.servers.length === 0) throw new Error('resolver: no servers')
    this.servers = opts.servers.map(parseServer)
    this.timeoutMs = opts.timeoutMs ?? 2000
    this.tries = Math.max(1, opts.tries ?? 2)
    this.retransmitMs = opts.retransmitMs ?? Math.min(500, Math.ceil(this.timeoutMs / 2))
    this.maxInFlight = Math.max(1, opts.maxInFlight ?? 128)
  }

  async lookup(name: string, type: LookupType): Promise<Lookup> {
    const lower = name.toLowerCase()
    const n = lower.endsWith('.') ? lower.slice(0, -1) : lower
    const code = TYPE_CODE[type]
    let last = failure('no attempt')
    for (let attempt = 0; attempt < this.tries && !this.closed; attempt++) {
      const server = this.servers[this.rotate++ % this.servers.length]!
      last = await this.once(server, { name: n, code, recursion: true, sections: false, finish: asLookup })
      if (last.status !== 'error') return last
    }
    return last
  }

  /** Fails every query in flight and releases the sockets. */
  async close(): Promise<void> {
    this.closed = true
    this.stopSweep()
    for (const p of this.pending.values()) p.resolve(p.ask.finish('resolver closed', p.ask))
    this.pending.clear()
    this.admit() // each waiting query finds the resolver closed
    this.backlog.v4.length = this.backlog.v6.length = 0
    this.outgoing = { v4: [], v6: [] }
    for (const s of [this.sockets.v4, this.sockets.v6]) if (s) (await s).close()
    this.sockets.v4 = this.sockets.v6 = this.ready.v4 = this.ready.v6 = undefined
  }

  /** The decoded reply of the configured resolvers (rotating, retried like `lookup`), or why none came. */
  async query(name: string, type: LookupType): Promise<Decoded | string> {
    const ask: Ask<Decoded | string> = { name: name.toLowerCase().replace(/\.$/, ''), code: TYPE_CODE[type], recursion: true, sections: false, finish: asIs }
    let last: Decoded | string = 'no attempt'
    for (let attempt = 0; attempt < this.tries && !this.closed; attempt++) {
      last = await this.once(this.servers[this.rotate++ % this.servers.length]!, ask)
      if (typeof last !== 'string' && (last.rcode === 0 || last.rcode === 3)) return last
    }
    return last
  }

  /**
   * Asks one server one question, once (with its retransmissions), and returns the decoded reply or
   * why none came. For asking a zone's own servers (`recursion: false`) at `host:port`.
   */
  exchange(address: string, name: string, type: LookupType, opts: { recursion: boolean }): Promise<Decoded | string> {
    let server = this.direct.get(address)
    if (!server) this.direct.set(address, (server = parseServer(address)))
    const ask: Ask<Decoded | string> = { name: name.toLowerCase().replace(/\.$/, ''), code: TYPE_CODE[type], recursion: opts.recursion, sections: true, finish: asIs }
    return this.once(server, ask)
  }

  private once<T>(server: Server, ask: Ask<T>): Promise<T> {
    const family = server.v6 ? 'v6' : 'v4'
    const socket = this.ready[family]
    // The socket exists after the first query of a family: no await on the hot path.
    if (socket) return this.send(socket, server, ask)
    return this.open(family).then(
      (s) => this.send(s, server, ask),
      (err: Error) => ask.finish(`udp socket: ${err.message}`, ask),
    )
  }

  private send<T>(socket: UdpSocket, server: Server, ask: Ask<T>): Promise<T> {
    return new Promise<T>((resolve) => this.start(socket, server, ask, performance.now() + this.timeoutMs, resolve))
  }

  /**
   * Puts a query on the wire, or in line for a slot (the wait counted against its deadline); `resolve`
   * takes its outcome. A query that waits keeps the one promise its caller holds: a sweep's batch asks
   * thousands at once, and most of them wait.
   */
  private start<T>(socket: UdpSocket, server: Server, ask: Ask<T>, deadline: number, resolve: (v: T) => void): void {
    if (this.closed) return resolve(ask.finish('resolver closed', ask))
    if (this.pending.size >= this.maxInFlight) {
      this.waiting.push(() => (performance.now() >= deadline ? resolve(ask.finish(this.timedOut(server), ask)) : this.start(socket, server, ask, deadline, resolve)))
      return
    }
    const id = this.allocId()
    let packet: Buffer
    try {
      packet = encodeQuery(id, ask.name, ask.code, ask.recursion)
    } catch (err) {
      return resolve(ask.finish((err as Error).message, ask))
    }
    const now = performance.now()
    this.pending.set(id, { ask, server, socket, packet, sentAt: now, resent: false, resendAt: now + this.rto(server), deadline, resolve: resolve as (v: unknown) => void })
    this.sweep ??= setInterval(() => this.tick(), Math.max(5, Math.min(20, this.timeoutMs / 4)))
    this.transmit(socket, packet, server)
  }

  private rto(server: Server): number {
    if (server.srtt === 0) return this.retransmitMs
    return Math.min(this.retransmitMs, Math.max(MIN_RTO_MS, server.srtt + 4 * server.rttvar))
  }

  /** RFC 6298 §2.2–2.3 with Karn's rule: only answers to queries sent once are samples. */
  private sampleRtt(p: Pending): void {
    if (p.resent) return
    const r = performance.now() - p.sentAt
    const s = p.server
    if (s.srtt === 0) [s.srtt, s.rttvar] = [r, r / 2]
    else [s.rttvar, s.srtt] = [0.75 * s.rttvar + 0.25 * Math.abs(s.srtt - r), 0.875 * s.srtt + 0.125 * r]
  }

  /**
   * Queries issued while the event loop handles one round of answers leave together, in one
   * `sendmmsg` call, once that round is over (a system call per query was most of a query's cost).
   */
  private transmit(socket: UdpSocket, packet: Buffer, server: Server): void {
    const family = server.v6 ? 'v6' : 'v4'
    const queued = this.outgoing[family]
    queued.push({ packet, server })
    if (queued.length === 1) setImmediate(() => this.sendQueued(socket, family))
  }

  private sendQueued(socket: UdpSocket, family: 'v4' | 'v6'): void {
    const queued = this.outgoing[family]
    this.outgoing[family] = []
    const backlog = this.backlog[family]
    if (this.closed || queued.length === 0) return
    if (backlog.length > 0) {
      backlog.push(...queued)
      return
    }
    let sent = 0
    try {
      sent = socket.sendMany(queued.flatMap((q) => [q.packet, q.server.port, q.server.host]))
    } catch {
      // An ICMP error from an earlier datagram surfaced here (see sendOnce): one by one instead.
      for (const q of queued) if (backlog.length > 0 || !sendOnce(socket, q.packet, q.server)) backlog.push(q)
      return
    }
    // What the kernel would not take yet goes out on drain.
    for (let i = sent; i < queued.length; i++) backlog.push(queued[i]!)
  }

  private open(family: 'v4' | 'v6'): Promise<UdpSocket> {
    const opening = (this.sockets[family] ??= Bun.udpSocket({
      hostname: family === 'v6' ? '::' : '0.0.0.0',
      socket: {
        data: (_s, data, port, address) => this.onMessage(data, port, address),
        drain: (s) => this.flush(s, family),
        // An ICMP error names no query: each query's retransmissions and deadline decide.
        error: () => {},
      },
    }))
    return opening.then((s) => (this.ready[family] = s))
  }

  private flush(socket: UdpSocket, family: 'v4' | 'v6'): void {
    const backlog = this.backlog[family]
    while (backlog.length > 0) {
      const { packet, server } = backlog[0]!
      if (!sendOnce(socket, packet, server)) return
      backlog.shift()
    }
  }

  private onMessage(msg: Buffer, port: number, address: string): void {
    if (msg.length < 12) return
    const id = msg.readUInt16BE(0)
    const p = this.pending.get(id)
    if (!p || p.server.port !== port || p.server.host !== (address.startsWith('::ffff:') ? address.slice(7) : address)) return
    // The question comes back as sent (RFC 1035 §4.1.2); when its bytes match, it need not be decoded.
    // A server that changed its case is still matched, by the decoded name.
    const end = p.packet.length - OPT_LENGTH
    const same = msg.length >= end && msg.readUInt16BE(4) === 1 && msg.compare(p.packet, 12, end, 12, end) === 0
    const { ask } = p
    let d: Decoded
    try {
      d = decodeResponse(msg, same ? { name: ask.name, end } : undefined, ask.sections)
    } catch {
      return // malformed: the deadline decides
    }
    if (d.qname !== ask.name || d.qtype !== ask.code) return
    this.pending.delete(id)
    this.admit()
    if (this.pending.size === 0) this.stopSweep()
    this.sampleRtt(p)
    if (d.truncated) void this.overTcp(p.server, ask).then((o) => p.resolve(ask.finish(o, ask)))
    else p.resolve(ask.finish(d, ask))
  }

  private tick(): void {
    const now = performance.now()
    for (const [id, p] of this.pending) {
      if (p.deadline <= now) {
        this.pending.delete(id)
        p.resolve(p.ask.finish(this.timedOut(p.server), p.ask))
      } else if (p.resendAt <= now) {
        p.resent = true
        // Back off while unanswered (RFC 6298 §5.5), within the cap.
        p.resendAt = now + Math.min(this.retransmitMs, 2 * (p.resendAt - p.sentAt))
        this.transmit(p.socket, p.packet, p.server)
      }
    }
    this.admit()
    if (this.pending.size === 0) this.stopSweep()
  }

  private timedOut(server: Server): string {
    return `timeout after ${this.timeoutMs} ms (${server.host}:${server.port})`
  }

  /** Lets waiting queries onto the wire while there are free slots. */
  private admit(): void {
    while (this.waitingAt < this.waiting.length && (this.closed || this.pending.size < this.maxInFlight)) {
      const next = this.waiting[this.waitingAt]!
      this.waiting[this.waitingAt++] = undefined as unknown as () => void
      next()
    }
    if (this.waitingAt === this.waiting.length) [this.waiting, this.waitingAt] = [[], 0]
    else if (this.waitingAt > 1024 && this.waitingAt * 2 > this.waiting.length) [this.waiting, this.waitingAt] = [this.waiting.slice(this.waitingAt), 0]
  }

  private stopSweep(): void {
    if (this.sweep) clearInterval(this.sweep)
    this.sweep = null
  }

  /** A random id not in flight (RFC 5452 §4.3: ids must not be predictable). */
  private allocId(): number {
    for (;;) {
      if (this.idNext >= this.idPool.length) {
        getRandomValues(this.idPool)
        this.idNext = 0
      }
      const id = this.idPool[this.idNext++]!
      if (!this.pending.has(id)) return id
    }
  }

  private overTcp<T>(server: Server, ask: Ask<T>): Promise<Decoded | string> {
    const { name, code } = ask
    return new Promise((resolve) => {
      const id = this.allocId()
      const query = encodeQuery(id, name, code, ask.recursion)
      const frame = Buffer.alloc(query.length + 2)
      frame.writeUInt16BE(query.length, 0) // RFC 1035 §4.2.2: two-byte length prefix
      query.copy(frame, 2)
      let got = Buffer.alloc(0)
      const sock = createConnection({ host: server.host, port: server.port })
      let settled = false
      const done = (o: Decoded | string) => {
        if (settled) return
        settled = true
        sock.destroy()
        clearTimeout(timer)
        resolve(o)
      }
      const timer = setTimeout(() => done(`tcp timeout after ${this.timeoutMs} ms`), this.timeoutMs)
      sock.on('connect', () => sock.write(frame))
      sock.on('data', (chunk: Buffer) => {
        got = Buffer.concat([got, chunk])
        if (got.length < 2 || got.length < got.readUInt16BE(0) + 2) return
        try {
          const d = decodeResponse(got.subarray(2, 2 + got.readUInt16BE(0)), undefined, ask.sections)
          done(d.id !== id || d.qname !== name || d.qtype !== code ? 'tcp answer does not match the question' : d)
        } catch (err) {
          done(`bad tcp answer: ${(err as Error).message}`)
        }
      })
      sock.on('error', (err) => done(`tcp: ${err.message}`))
      sock.on('close', () => done('tcp: closed before an answer'))
    })
  }
}

/** The resolver for `DNS_RESOLVERS`. */
export function createResolver(opts: ResolverOptions): Resolver {
  return new Resolver(opts)
}
