// The widget tells a misconfigured apiBase from a network failure: a base that answers, but not as
// Portico's API (an HTML page, Portico's own "No such route" because `/v1` is missing), is a
// ConfigurationError whose message says what apiBase must be; a host that does not answer at all is a
// NetworkError; a gateway's own 502/503/504 page is Portico out of reach. (In a browser a base without Portico's CORS headers fails like a network error; the
// widget then asks the host with a request that needs no CORS, which answers: ConfigurationError, unless
// the base has answered as Portico's API on the page before: a gateway's own page, Portico out of reach.)
import { describe, test, expect, afterAll, spyOn } from 'bun:test'
import { ApiFailure, client } from '../../src/widget/api.ts'

const site = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  fetch(req) {
    const path = new URL(req.url).pathname
    // A proxy in front of Portico while Portico is down: its own HTML page with a gateway status.
    const gateway = /^\/gw(50[234])\//.exec(path)
    if (gateway) return new Response('<html><body><h1>Bad Gateway</h1></body></html>', { status: Number(gateway[1]), headers: { 'content-type': 'text/html' } })
    if (path.startsWith('/v1/')) return Response.json({ code: 'not_found', title: 'Not found' }, { status: 404 })
    if (path === '/domains:check') return Response.json({ code: 'not_found', title: 'No such route' }, { status: 404 })
    return new Response('<!doctype html><title>Acme</title>', { status: 200, headers: { 'content-type': 'text/html' } })
  },
})
afterAll(() => site.stop(true))
const origin = `http://127.0.0.1:${site.port}`

async function failure(apiBase: string): Promise<ApiFailure> {
  const quiet = spyOn(console, 'error').mockImplementation(() => {})
  try {
    await client(apiBase, 'tok').call('POST', '/domains:check', { domain: 'shop.example.com' })
  } catch (err) {
    return err as ApiFailure
  } finally {
    quiet.mockRestore()
  }
  throw new Error('the call did not fail')
}

describe('the widget\'s apiBase', () => {
  test('Portico\'s origin without /v1: a ConfigurationError saying apiBase must end in /v1', async () => {
    const f = await failure(origin)
    expect(f.sdkCode).toBe('ConfigurationError')
    expect(f.envelope.title).toContain('ending in /v1')
    expect(f.envelope.title).toContain(JSON.stringify(origin))
  })

  test('a page that answers HTML (the integrator\'s own site): a ConfigurationError', async () => {
    expect((await failure(`${origin}/app`)).sdkCode).toBe('ConfigurationError')
  })

  test('Portico\'s own refusal stays what it is (a 404 envelope is GenericError, not a configuration problem)', async () => {
    const f = await failure(`${origin}/v1`)
    expect([f.sdkCode, f.envelope.code, f.status]).toEqual(['GenericError', 'not_found', 404])
  })

  test('a gateway\'s own 502, 503 or 504 page (HTML, not JSON) is Portico out of reach, with its status, not a wrong apiBase', async () => {
    for (const status of [502, 503, 504]) {
      const said = spyOn(console, 'error').mockImplementation(() => {})
      try {
        const f = await client(`${origin}/gw${status}/v1`, 'tok').call('GET', '/connections/con_1/status').catch((e) => e as ApiFailure)
        expect([f.sdkCode, f.status]).toEqual(['GenericError', status])
        expect(said).not.toHaveBeenCalled()
      } finally {
        said.mockRestore()
      }
    }
  })

  test('a host that answers without CORS headers: the integrator\'s setup on the first call; Portico out of reach (a gateway\'s own page) once the base has answered as Portico\'s API', async () => {
    // A browser's view: a request that needs CORS fails like a network error when the answer lacks
    // Portico's headers; a no-cors request to the same host gets an opaque answer.
    let cors = false
    const real = globalThis.fetch
    const browser = spyOn(globalThis, 'fetch').mockImplementation((async (input: string | URL | Request, init?: RequestInit) => {
      if (init?.mode === 'no-cors') return new Response(null, { status: 200 })
      if (!cors) throw new TypeError('Failed to fetch')
      return real(input, init)
    }) as typeof fetch)
    const said = spyOn(console, 'error').mockImplementation(() => {})
    try {
      const fresh = await client('https://fresh.example/v1', 'tok').call('GET', '/connections/con_1/status').catch((e) => e as ApiFailure)
      expect(fresh.sdkCode).toBe('ConfigurationError')
      cors = true
      const base = `${origin}/v1`
      await client(base, 'tok').call('GET', '/whatever').catch(() => undefined) // Portico's 404 envelope: it answered
      cors = false
      const later = await client(base, 'tok').call('GET', '/connections/con_1/status').catch((e) => e as ApiFailure)
      expect([later.sdkCode, later.status]).toEqual(['GenericError', 503])
    } finally {
      browser.mockRestore()
      said.mockRestore()
    }
  })

  test('a host that does not answer at all: a NetworkError', async () => {
    const closed = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('') })
    const port = closed.port
    closed.stop(true)
    expect((await failure(`http://127.0.0.1:${port}/v1`)).sdkCode).toBe('NetworkError')
  })
})
