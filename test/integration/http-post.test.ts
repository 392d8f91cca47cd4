import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Webhook } from 'standardwebhooks'
import { closePinnedConnections, parseRetryAfter, postPinned, sharedDeadline } from '../../src/adapters/http-post.ts'
import { newWebhookSecret, webhookHeaders } from '../../src/adapters/webhook-signing.ts'

interface Seen {
  server: string
  path: string
  host: string | null
  body: string
  remotePort: number
}

const HOOK_NAME = 'hooks.example.test' // .test never resolves (RFC 6761 §6.2): reaching it proves pinning
const seen: Seen[] = []

function receiver(server: string, hostname: string, tls?: { cert: string; key: string }, port = 0) {
  return Bun.serve({
    hostname,
    port,
    tls,
    async fetch(req, srv) {
      const path = new URL(req.url).pathname
      seen.push({ server, path, host: req.headers.get('host'), body: await req.text(), remotePort: srv.requestIP(req)!.port })
      switch (path) {
        case '/fail':
          return new Response('boom', { status: 500 })
        case '/gone':
          return new Response(null, { status: 410 })
        case '/busy':
          return new Response(null, { status: 429, headers: { 'retry-after': '120' } })
        case '/unavailable':
          return new Response(null, { status: 503, headers: { 'retry-after': new Date(Date.now() + 90_000).toUTCString() } })
        case '/moved':
          return new Response(null, { status: 302, headers: { location: '/ok' } })
        case '/slow':
          await Bun.sleep(3000)
          return new Response('late')
        case '/endless':
          return new Response(new ReadableStream({ pull: (c) => c.enqueue(new Uint8Array(16 * 1024)) }))
        default:
          return new Response(null, { status: 204 })
      }
    },
  })
}

/** A throwaway CA and a leaf certificate for HOOK_NAME, made with the system's openssl. */
function makeCertificates(dir: string) {
  const run = (...args: string[]) => {
    const r = Bun.spawnSync(['openssl', ...args], { cwd: dir, stderr: 'pipe' })
    if (r.exitCode !== 0) throw new Error(`openssl ${args[0]}: ${r.stderr.toString()}`)
  }
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes']
  run('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '1', '-subj', '/CN=Portico test CA')
  run('req', ...ec, '-keyout', 'leaf.key', '-out', 'leaf.csr', '-subj', `/CN=${HOOK_NAME}`)
  writeFileSync(join(dir, 'ext.cnf'), `subjectAltName=DNS:${HOOK_NAME}\nextendedKeyUsage=serverAuth\n`)
  run('x509', '-req', '-in', 'leaf.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'leaf.pem', '-days', '1', '-extfile', 'ext.cnf')
  const read = (f: string) => readFileSync(join(dir, f), 'utf8')
  return { ca: read('ca.pem'), cert: read('leaf.pem'), key: read('leaf.key') }
}

let plain: ReturnType<typeof receiver>
let secure: ReturnType<typeof receiver>
let ca: string
let dir: string

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'portico-http-post-'))
  const certs = makeCertificates(dir)
  ca = certs.ca
  plain = receiver('plain', '127.0.0.1')
  secure = receiver('secure', '127.0.0.1', { cert: certs.cert, key: certs.key })
})

afterAll(() => {
  closePinnedConnections()
  plain.stop(true)
  secure.stop(true)
  rmSync(dir, { recursive: true, force: true })
})

const post = (path: string, extra: Partial<Parameters<typeof postPinned>[0]> = {}) =>
  postPinned({ url: new URL(`http://${HOOK_NAME}:${plain.port}${path}`), address: '127.0.0.1', headers: {}, body: '{}', timeoutMs: 2000, ...extra })

const lastSeen = (path: string) => seen.filter((s) => s.path === path).at(-1)

describe('pinned POST over plain http', () => {
  test('a 2xx reaches the pinned address with the URL host and the exact signed body', async () => {
    const secret = newWebhookSecret()
    const body = JSON.stringify({ type: 'connection.live', domain: 'shop.example.com', note: 'é ✓' })
    const headers = webhookHeaders(secret, 'evt_1', Math.floor(Date.now() / 1000), body)
    expect(await post('/ok', { headers, body })).toEqual({ status: 204 })
    const got = lastSeen('/ok')!
    expect(got.host).toBe(`${HOOK_NAME}:${plain.port}`)
    expect(got.body).toBe(body)
    expect(new Webhook(secret).verify(got.body, headers)).toEqual(JSON.parse(body))
  })

  test('the pinned address wins over what the hostname resolves to', async () => {
    // `localhost` resolves to 127.0.0.1, where a decoy listens on the same port when it is free there;
    // the request must reach the receiver on the pinned 127.0.0.2.
    const pinned = receiver('pinned', '127.0.0.2')
    let decoy: ReturnType<typeof receiver> | undefined
    try {
      decoy = receiver('decoy', '127.0.0.1', undefined, pinned.port)
    } catch {
      decoy = undefined
    }
    try {
      const r = await postPinned({ url: new URL(`http://localhost:${pinned.port}/pinned`), address: '127.0.0.2', headers: {}, body: 'x', timeoutMs: 2000 })
      expect(r).toEqual({ status: 204 })
      expect(lastSeen('/pinned')).toMatchObject({ server: 'pinned', host: `localhost:${pinned.port}` })
    } finally {
      decoy?.stop(true)
      pinned.stop(true)
    }
  })

  test('non-2xx answers are statuses; Retry-After is read as seconds or as an HTTP date', async () => {
    expect(await post('/fail')).toEqual({ status: 500 })
    expect(await post('/gone')).toEqual({ status: 410 })
    expect(await post('/busy')).toEqual({ status: 429, retryAfterSeconds: 120 })
    const r = await post('/unavailable')
    expect(r.status).toBe(503)
    expect(r.retryAfterSeconds).toBeGreaterThanOrEqual(88)
    expect(r.retryAfterSeconds).toBeLessThanOrEqual(91)
  })

  test('a redirect is not followed', async () => {
    const before = seen.filter((s) => s.path === '/ok').length
    expect(await post('/moved')).toEqual({ status: 302 })
    expect(seen.filter((s) => s.path === '/ok').length).toBe(before)
  })

  test('a slow receiver hits the timeout', async () => {
    const t = performance.now()
    expect(await post('/slow', { timeoutMs: 300 })).toEqual({ error: 'timeout' })
    expect(performance.now() - t).toBeLessThan(1500)
  })

  test('slow receivers called together each hit the timeout, one deadline shared, none cut short by more than 0.5 %', async () => {
    // Four sends started in one instant share a deadline; one started a slot later gets its own.
    const t = performance.now()
    const together = await Promise.all(Array.from({ length: 4 }, () => post('/slow', { timeoutMs: 400 }).then((r) => ({ r, ms: performance.now() - t }))))
    for (const { r, ms } of together) {
      expect(r).toEqual({ error: 'timeout' })
      expect(ms).toBeGreaterThanOrEqual(398)
      expect(ms).toBeLessThan(1500)
    }
    expect(sharedDeadline(400, 1000)).toBe(sharedDeadline(400, 1001.9))
    expect(sharedDeadline(400, 1002)).not.toBe(sharedDeadline(400, 1001.9))
    expect(sharedDeadline(10_000, 1000)).not.toBe(sharedDeadline(400, 1000))
  })

  test('an endless response body is cut short, not waited for', async () => {
    const t = performance.now()
    expect(await post('/endless', { timeoutMs: 5000 })).toEqual({ status: 200 })
    expect(performance.now() - t).toBeLessThan(2000)
  })

  test('a closed port and a non-address are errors', async () => {
    const gone = receiver('gone', '127.0.0.1')
    const port = gone.port
    gone.stop(true)
    expect(await postPinned({ url: new URL(`http://${HOOK_NAME}:${port}/`), address: '127.0.0.1', headers: {}, body: '', timeoutMs: 2000 })).toEqual({
      error: 'connection refused',
    })
    expect(await post('/ok', { address: 'localhost' })).toEqual({ error: 'not an address literal: localhost' })
  })

  test('sequential posts to one endpoint reuse one keep-alive connection', async () => {
    for (let i = 0; i < 5; i++) expect(await post('/reuse')).toEqual({ status: 204 })
    expect(new Set(seen.filter((s) => s.path === '/reuse').map((s) => s.remotePort)).size).toBe(1)
  })
})

describe('pinned POST over https', () => {
  const url = (name: string) => new URL(`https://${name}:${secure.port}/ok`)

  test('SNI and the certificate check use the hostname while the connection goes to the address', async () => {
    expect(await postPinned({ url: url(HOOK_NAME), address: '127.0.0.1', headers: {}, body: '{}', timeoutMs: 2000, caCertificates: [ca] })).toEqual({ status: 204 })
    expect(lastSeen('/ok')).toMatchObject({ server: 'secure', host: `${HOOK_NAME}:${secure.port}` })
  })

  test('a certificate for another name, or from an untrusted CA, is refused', async () => {
    const wrongName = await postPinned({ url: url('other.example.test'), address: '127.0.0.1', headers: {}, body: '{}', timeoutMs: 2000, caCertificates: [ca] })
    expect(wrongName.error).toContain('ERR_TLS_CERT_ALTNAME_INVALID')
    const untrusted = await postPinned({ url: url(HOOK_NAME), address: '127.0.0.1', headers: {}, body: '{}', timeoutMs: 2000 })
    expect(untrusted.status).toBeUndefined()
    expect(untrusted.error).toBeString()
  })
})

describe('Retry-After parsing', () => {
  const now = Date.parse('Sun, 06 Nov 1994 08:49:37 GMT')
  test.each([
    ['120', 120],
    [' 0 ', 0],
    ['Sun, 06 Nov 1994 08:51:37 GMT', 120],
    ['Sunday, 06-Nov-94 08:50:37 GMT', 60],
    ['Sun, 06 Nov 1994 08:40:00 GMT', 0],
    ['soon', undefined],
    ['1.5', undefined],
    ['-5', undefined],
    [null, undefined],
  ])('%p gives %p', (value, want) => {
    expect(parseRetryAfter(value, now)).toBe(want)
  })
})
