// Request bodies at the limit, over a real socket: over 1 MiB is 413 `payload_too_large` in the
// envelope, whether the length is declared or the body comes chunked (refused as soon as it passes the
// limit); and a client that goes away mid-body is not an error of ours: it is counted as 499 (nginx's
// "client closed request"), never as a 5xx that would feed the error-rate alert.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import net from 'node:net'
import { provision, startPortico, type TestPortico, type Workspace } from '../harness/portico.ts'

let p: TestPortico
let ws: Workspace
let base = ''
let server: { stop(force?: boolean): void } | undefined

beforeAll(async () => {
  p = await startPortico({}, { poolSize: 4 })
  ws = await provision(p)
  const app = p.app.listen({ port: 0, hostname: '127.0.0.1' })
  server = app.server ?? undefined
  base = `http://127.0.0.1:${app.server!.port}`
})
afterAll(async () => {
  server?.stop(true)
  await p.close()
})

const MiB = 1 << 20
const jsonOf = (bytes: number) => `{"domain":"${'a'.repeat(bytes - 13)}"}`

test('a body over 1 MiB with its length declared is 413 payload_too_large', async () => {
  const r = await fetch(`${base}/v1/connections`, { method: 'POST', headers: { authorization: `Bearer ${ws.apiKey}`, 'content-type': 'application/json' }, body: jsonOf(MiB + 1) })
  expect(r.status).toBe(413)
  expect(await r.json()).toMatchObject({ code: 'payload_too_large', title: expect.stringContaining('1 MiB') })
})

test('a chunked body is refused with 413 once it passes 1 MiB; one of exactly 1 MiB is read (and judged on its content)', async () => {
  const chunked = (size: number) =>
    new ReadableStream<Uint8Array>({
      start(c) {
        const text = new TextEncoder().encode(jsonOf(size))
        for (let i = 0; i < text.length; i += 64 * 1024) c.enqueue(text.slice(i, i + 64 * 1024))
        c.close()
      },
    })
  const over = await fetch(`${base}/v1/connections`, { method: 'POST', headers: { authorization: `Bearer ${ws.apiKey}`, 'content-type': 'application/json' }, body: chunked(3 * MiB) })
  expect(over.status).toBe(413)
  expect((await over.json()).code).toBe('payload_too_large')
  const at = await fetch(`${base}/v1/connections`, { method: 'POST', headers: { authorization: `Bearer ${ws.apiKey}`, 'content-type': 'application/json' }, body: chunked(MiB) })
  expect(at.status).toBe(400)
  expect((await at.json()).code).toBe('invalid_request')
})

test('a client that disconnects mid-body is counted 499, not 500', async () => {
  const count = async (status: string) => {
    const text = await (await fetch(`${base}/metrics`)).text()
    return text
      .split('\n')
      .filter((l) => l.startsWith('portico_http_request_duration_seconds_count') && l.includes('operation="connections.create"') && l.includes(`status="${status}"`))
      .reduce((a, l) => a + Number(l.split(' ').at(-1)), 0)
  }
  const [before499, before500] = [await count('499'), await count('500')]
  for (let i = 0; i < 3; i++) {
    await new Promise<void>((resolve) => {
      const s = net.connect(Number(new URL(base).port), '127.0.0.1', () => {
        s.write(`POST /v1/connections HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ws.apiKey}\r\nContent-Type: application/json\r\nContent-Length: 50000\r\n\r\n{"domain":"half`)
        setTimeout(() => {
          s.destroy()
          resolve()
        }, 100)
      })
      s.on('error', () => {})
    })
  }
  const t0 = performance.now()
  while ((await count('499')) < before499 + 3 && performance.now() - t0 < 5_000) await Bun.sleep(50)
  expect(await count('499')).toBe(before499 + 3)
  expect(await count('500')).toBe(before500)
})
