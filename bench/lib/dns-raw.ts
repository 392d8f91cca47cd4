// The raw DNS baseline: the same questions sent straight over UDP as pre-encoded packets, a fixed
// window in flight, replies matched by id only. Nothing else runs, so it bounds what any verifier
// can reach against the same server. A question unanswered is sent again after 200 ms (UDP drops a
// few packets under load), as any resolver would.
import { encodeQuery } from '../../src/adapters/resolver.ts'

/** Queries per second for one question of type `type` (a DNS type code: 1 = A, 5 = CNAME) per name. */
export async function rawQueryRate(server: string, names: string[], type = 1, concurrency = 64): Promise<number> {
  const colon = server.lastIndexOf(':')
  const host = server.slice(0, colon).replace(/^\[|\]$/g, '')
  const port = Number(server.slice(colon + 1))
  const packets: Buffer[] = []
  let sent = 0
  let done = 0
  const inflight = new Map<number, { index: number; at: number }>() // id → question, when sent
  let finish: () => void = () => {}
  const all = new Promise<void>((r) => (finish = r))
  const socket = await Bun.udpSocket({
    hostname: host.includes(':') ? '::' : '0.0.0.0',
    socket: {
      data(s, buf) {
        if (!inflight.delete(buf.readUInt16BE(0))) return
        if (++done === names.length) finish()
        else pump(s)
      },
      error() {},
    },
  })
  // A window below 65,536 keeps ids unique in flight; the id names the question through `inflight`.
  let nextId = 0
  const pump = (s: typeof socket) => {
    while (inflight.size < concurrency && sent < names.length) {
      while (inflight.has(nextId)) nextId = (nextId + 1) & 0xffff
      packets[sent]!.writeUInt16BE(nextId, 0)
      inflight.set(nextId, { index: sent, at: performance.now() })
      s.send(packets[sent++]!, port, host)
    }
  }
  // Encoding is not what the baseline measures: do it before the clock starts.
  for (let i = 0; i < names.length; i++) packets[i] = encodeQuery(0, names[i]!, type)
  const started = performance.now()
  pump(socket)
  const timeout = setTimeout(finish, 60_000)
  const resend = setInterval(() => {
    const late = performance.now() - 200
    for (const q of inflight.values()) {
      if (q.at > late) continue
      q.at = performance.now()
      socket.send(packets[q.index]!, port, host)
    }
  }, 100)
  await all
  clearTimeout(timeout)
  clearInterval(resend)
  const secs = (performance.now() - started) / 1000
  socket.close()
  if (done < names.length) throw new Error(`raw DNS baseline: ${names.length - done} queries unanswered`)
  return done / secs
}
