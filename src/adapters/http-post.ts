// A POST to a URL whose host was already resolved and checked (src/adapters/ssrf.ts): the connection
// goes to exactly that address, while the Host header, TLS SNI and certificate check use the URL's
// hostname. node:http(s) with a fixed `lookup` does this (Bun honours it); fetch cannot pin an
// address for https. Redirects are never followed, the response body is read up to 64 KiB and
// discarded, and the whole exchange has one deadline. Keep-alive agents are kept per pinned address.
import http from 'node:http'
import https from 'node:https'

export type PostResult = { status: number; retryAfterSeconds?: number; error?: undefined } | { status?: undefined; error: string }

const MAX_BODY = 64 * 1024
const agents = new Map<string, http.Agent>()

function agentFor(protocol: string, address: string, ca?: string[]): http.Agent {
  const key = `${protocol}|${address}|${ca ? 'ca' : ''}`
  let a = agents.get(key)
  if (!a) {
    const opts = { keepAlive: true, maxSockets: 64, ...(ca ? { ca } : {}) }
    a = protocol === 'https:' ? new https.Agent(opts) : new http.Agent(opts)
    agents.set(key, a)
  }
  return a
}

export function parseRetryAfter(v: string | undefined, nowMs: number = Date.now()): number | undefined {
  if (!v) return undefined
  if (/^\d+$/.test(v.trim())) return Number(v.trim())
  const at = Date.parse(v)
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - nowMs) / 1000))
}

export function postPinned(opts: { url: URL; address: string; headers: Record<string, string>; body: string; timeoutMs: number; caCertificates?: string[] }): Promise<PostResult> {
  const { url, address } = opts
  const mod = url.protocol === 'https:' ? https : http
  const family = address.includes(':') ? 6 : 4
  return new Promise((resolve) => {
    let settled = false
    const done = (r: PostResult) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve(r)
    }
    const req = mod.request(
      {
        protocol: url.protocol,
        hostname: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port || (url.protocol === 'https:' ? 443 : 80),
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: { ...opts.headers, 'content-length': String(Buffer.byteLength(opts.body)) },
        agent: agentFor(url.protocol, address, opts.caCertificates),
        // The address was checked already; never ask DNS again.
        lookup: ((_host: string, o: { all?: boolean }, cb: (...a: unknown[]) => void) =>
          o?.all ? cb(null, [{ address, family }]) : cb(null, address, family)) as unknown as http.RequestOptions['lookup'],
      },
      (res) => {
        let read = 0
        res.on('data', (chunk: Buffer) => {
          read += chunk.length
          if (read > MAX_BODY) res.destroy()
        })
        const finish = () =>
          done({ status: res.statusCode ?? 0, retryAfterSeconds: parseRetryAfter(res.headers['retry-after'] as string | undefined) })
        res.on('end', finish)
        res.on('close', finish)
        res.on('error', finish)
      },
    )
    const timer = setTimeout(() => {
      req.destroy()
      done({ error: `timeout after ${opts.timeoutMs} ms` })
    }, opts.timeoutMs)
    req.on('error', (err) => done({ error: err.message }))
    req.end(opts.body)
  })
}
