// The raw DNS baseline: the same questions sent straight over UDP with pre-encoded packets, a fixed
// window in flight, replies matched by id only. Nothing else runs, so it bounds what any verifier
// can reach against the same server. A question unanswered is sent again after 200 ms (UDP drops a
// few packets under load), as any resolver would.
import { encodeQuery } from '../../src/adapters/resolver.ts'

export async function rawQueryRate(server: string, names: string[], type: number, concurrency = 64): Promise<number> {
  const [host, port] = [server.slice(0, server.lastIndexOf(':')), Number(server.slice(server.lastIndexOf(':') + 1))]
  const packets = names.map((n, i) => encodeQuery(i & 0xffff, n, type))
  let sent = 0
  let done = 0
  const inflight = new Map<number, number>() // id → when sent
  let finish: () => void = () => {}
  const all = new Promise<void>((r) => (finish = r))
  const socket = await Bun.udpSocket({
    socket: {
      data(s, buf) {
        const id = Buffer.from(buf).readUInt16BE(0)
        if (!inflight.delete(id)) return
        done++
        if (done === packets.length) finish()
        else pump(s)
      },
      error() {},
    },
  })
  const pump = (s: typeof socket) => {
    while (inflight.size < concurrency && sent < packets.length) {
      const id = sent & 0xffff
      inflight.set(id, performance.now())
      s.send(packets[sent++]!, port, host)
    }
  }
  const started = performance.now()
  pump(socket)
  const timeout = setTimeout(finish, 60_000)
  const resend = setInterval(() => {
    const late = performance.now() - 200
    for (const [id, at] of inflight) {
      if (at > late) continue
      inflight.set(id, performance.now())
      socket.send(packets[id]!, port, host)
    }
  }, 100)
  await all
  clearTimeout(timeout)
  clearInterval(resend)
  const secs = (performance.now() - started) / 1000
  socket.close()
  if (done < packets.length) throw new Error(`raw DNS baseline: ${packets.length - done} queries unanswered`)
  return done / secs
}
