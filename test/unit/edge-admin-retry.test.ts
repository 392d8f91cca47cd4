// The edge's admin API from Caddy's side while it replaces its admin server (it does on every
// configuration change, its own or another client's): the old listener closes the connections it
// holds, and for a moment nothing listens. An admin server stood in for on loopback resets or refuses
// the first connections; Portico's call goes through once it answers, and says why when it never does.
import { afterEach, expect, test } from 'bun:test'
import { ADMIN_RETRY_MS, CaddyEdge, EdgeError, type EdgeSettings } from '../../src/adapters/edge.ts'

type Listener = Bun.TCPSocketListener<undefined>
const open: Listener[] = []
afterEach(() => {
  for (const l of open.splice(0)) l.stop(true)
})

/** An admin server whose connections are `fates` in order (the last repeats): reset, or answered with that status. */
function adminServer(fates: ('reset' | number)[], port = 0): { listener: Listener; seen: string[] } {
  const seen: string[] = []
  const listener = Bun.listen({
    hostname: '127.0.0.1',
    port,
    socket: {
      data(sock, data) {
        seen.push(data.toString('latin1').split('\r\n')[0]!)
        const fate = fates[Math.min(seen.length - 1, fates.length - 1)]!
        if (fate === 'reset') return void sock.terminate()
        sock.end(`HTTP/1.1 ${fate} X\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}`)
      },
    },
  })
  open.push(listener)
  return { listener, seen }
}

const edgeAt = (port: number) => new CaddyEdge({ adminUrl: `http://127.0.0.1:${port}` } as EdgeSettings, 'secret', null)

test('connections reset while the admin server is replaced: the call goes through on a later try', async () => {
  const { listener, seen } = adminServer(['reset', 'reset', 200])
  await edgeAt(listener.port).removeCertificate('con_a')
  expect(seen).toEqual(Array(3).fill('DELETE /id/cert-con_a HTTP/1.1'))
})

test('refused while nothing listens, then answered: the call goes through once the new listener is up', async () => {
  const { listener } = adminServer([200])
  const port = listener.port
  listener.stop(true)
  open.length = 0
  const started = performance.now()
  // The replacement listens again after 150 ms, on the same port.
  let seen: string[] = []
  setTimeout(() => void (seen = adminServer([200], port).seen), 150)
  await edgeAt(port).removeCertificate('con_b')
  expect(seen).toEqual(['DELETE /id/cert-con_b HTTP/1.1'])
  expect(performance.now() - started).toBeGreaterThanOrEqual(150)
})

test('reset every time: an EdgeError that says so, after each pause, and no more tries', async () => {
  const { listener, seen } = adminServer(['reset'])
  const started = performance.now()
  const err = await edgeAt(listener.port).removeCertificate('con_c').catch((e: unknown) => e)
  expect(err).toBeInstanceOf(EdgeError)
  expect(String((err as Error).message)).toContain('edge admin API unreachable: ECONNRESET')
  expect(seen).toHaveLength(ADMIN_RETRY_MS.length + 1)
  expect(performance.now() - started).toBeGreaterThanOrEqual(ADMIN_RETRY_MS.reduce((a, b) => a + b, 0))
})

test('an answer, even a failing one, is not asked again', async () => {
  const { listener, seen } = adminServer([503])
  const err = await edgeAt(listener.port).removeCertificate('con_d').catch((e: unknown) => e)
  expect(err).toBeInstanceOf(EdgeError)
  expect(String((err as Error).message)).toContain('DELETE /id/cert-con_d: 503')
  expect(seen).toEqual(['DELETE /id/cert-con_d HTTP/1.1'])
})
