// A small UDP DNS proxy on loopback for the fault suite: it forwards queries to a real server (the test
// PowerDNS) and can instead drop them (a silent nameserver), answer SERVFAIL (a failing resolver) or
// delay them. Listening on port 53 of its own loopback address, it stands as a zone's nameserver.
import { createSocket, type Socket } from 'node:dgram'

export type ProxyMode = 'pass' | 'drop' | 'servfail' | { delayMs: number }

export interface DnsProxy {
  /** `host:port`, for DNS_RESOLVERS. */
  address: string
  host: string
  port: number
  mode: ProxyMode
  /** Queries seen since start. */
  queries: number
  stop(): void
}

/** A SERVFAIL answer to `query`: its header with QR set and RCODE 2, and its question. */
function servfail(query: Buffer): Buffer {
  const out = Buffer.from(query)
  out[2] = (out[2]! | 0x80) & ~0x04 // QR=1, AA=0, keep opcode and RD
  out[3] = (out[3]! & 0xf0) | 0x82 // RA=1, RCODE=2
  out.writeUInt16BE(0, 6) // no answers
  out.writeUInt16BE(0, 8)
  out.writeUInt16BE(0, 10)
  // Keep only the question: find its end (name labels, then type and class).
  let i = 12
  while (i < out.length && out[i] !== 0) i += out[i]! + 1
  return out.subarray(0, Math.min(out.length, i + 5))
}

export async function startDnsProxy(upstream: string, opts: { host?: string; port?: number } = {}): Promise<DnsProxy> {
  const [upHost, upPort] = [upstream.slice(0, upstream.lastIndexOf(':')), Number(upstream.slice(upstream.lastIndexOf(':') + 1))]
  const server: Socket = createSocket('udp4')
  const host = opts.host ?? '127.0.0.1'
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.bind(opts.port ?? 0, host, () => resolve())
  })
  const proxy: DnsProxy = {
    host,
    port: server.address().port,
    address: `${host}:${server.address().port}`,
    mode: 'pass',
    queries: 0,
    stop: () => server.close(),
  }
  server.on('message', (msg, from) => {
    proxy.queries++
    const mode = proxy.mode
    if (mode === 'drop') return
    if (mode === 'servfail') {
      server.send(servfail(msg), from.port, from.address)
      return
    }
    const forward = () => {
      const up = createSocket('udp4')
      const timer = setTimeout(() => up.close(), 5000)
      up.on('message', (answer) => {
        clearTimeout(timer)
        server.send(answer, from.port, from.address)
        up.close()
      })
      up.send(msg, upPort, upHost)
    }
    if (typeof mode === 'object') setTimeout(forward, mode.delayMs)
    else forward()
  })
  return proxy
}
