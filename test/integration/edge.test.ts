// Secure and Power against the real edge (Caddy) and a real ACME CA (Pebble) on loopback: names
// resolve through the test PowerDNS (the connection's CNAME to the edge hostname, which answers
// 127.0.0.1), Pebble validates HTTP-01 on the edge's HTTP port, and every HTTPS check is a TLS client
// trusting only Pebble's root.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import https from 'node:https'
import { spawn } from 'bun'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Pdns } from '../harness/pdns.ts'
import type { Caddy } from '../harness/edge.ts'
import { liveConnection as live, startServed, type Served } from '../harness/served.ts'
import { EDGE, provision, startPortico, type TestPortico, type Workspace } from '../harness/portico.ts'
import { sweepEdge } from '../../src/jobs/edge-sweep.ts'

let pdns: Pdns
let caddy: Caddy
let p: TestPortico
let served: Served
let ws: Workspace
let origin: ReturnType<typeof Bun.serve>
const zone = `edge${Date.now().toString(36)}.test`

beforeAll(async () => {
  served = await startServed(zone)
  ;({ pdns, caddy, p } = served)
  ws = await provision(p)
  origin = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (req) => new Response(`origin: ${req.headers.get('host')} ${new URL(req.url).pathname}`) })
})

afterAll(async () => {
  origin?.stop(true)
  await served?.stop()
})

const sweep = () => sweepEdge({ db: p.db, clock: p.clock, config: p.config, dns: p.services.dns, edge: p.services.edge!, issuer: p.services.issuer })

const viaEdge = (host: string, path = '/') => served.viaEdge(host, path)

/** A live connection for `domain`, its records added in PowerDNS as a person would. */
const liveConnection = (domain: string) => live(p, pdns, ws.apiKey, zone, domain)

async function caddyIds(): Promise<string> {
  // Caddy closes admin connections when its configuration changes, even one in flight when Portico's
  // own change lands: no keep-alive, and a reset read is asked again.
  for (let attempt = 1; ; attempt++) {
    try {
      return JSON.stringify(await (await fetch(`${caddy.adminUrl}/config/`, { keepalive: false })).json())
    } catch (err) {
      if (attempt >= 3 || !String(err).includes('ECONNRESET')) throw err
      await Bun.sleep(50)
    }
  }
}

async function eventsOf(id: string, type: string): Promise<any[]> {
  return ((await p.db`select payload from events where connection_id = ${id} and type = ${type} order by id`) as { payload: any }[]).map((e) => e.payload)
}

describe('Secure and Power through Caddy and Pebble', () => {
  let shop: string

  test('/v1/config lists secure and power', async () => {
    const cfg = await p.api('GET', '/v1/config')
    expect(cfg.body.products).toEqual(expect.arrayContaining(['connect', 'secure', 'power', 'monitor']))
  })

  test('a live connection gets a certificate from Pebble and the edge proxies it to its origin over HTTPS', async () => {
    shop = await liveConnection(`shop.${zone}`)
    const power = await p.api('PUT', `/v1/connections/${shop}/power`, { token: ws.apiKey, body: { origin_url: `http://127.0.0.1:${origin.port}/` } })
    expect(power.status).toBe(200)
    expect(power.body).toMatchObject({ status: 'active', origin_url: `http://127.0.0.1:${origin.port}/`, redirect_to_www: false })

    expect(await sweep()).toBeGreaterThan(0)
    const cert = await p.api('GET', `/v1/connections/${shop}/ssl`, { token: ws.apiKey })
    expect(cert.status).toBe(200)
    expect(cert.body.certificate).toMatchObject({ domain: `shop.${zone}`, status: 'issued', managed: true, last_error: null })
    expect(cert.body.certificate.issuer).toMatch(/Pebble/)
    expect(new Date(cert.body.certificate.renew_after).getTime()).toBeGreaterThan(Date.now())

    const res = await viaEdge(`shop.${zone}`, '/hello')
    expect(res.status).toBe(200)
    expect(res.body).toBe(`origin: 127.0.0.1:${origin.port} /hello`)
    expect(res.issuer).toMatch(/Pebble/)
    expect(res.names).toContain(`DNS:shop.${zone}`)
    expect((await eventsOf(shop, 'secure_status')).map((e) => e.secure_status)).toEqual(['pending', 'issued'])
    expect((await eventsOf(shop, 'power_status')).map((e) => e.power_status)).toEqual(['pending', 'active'])

    const list = await p.api('GET', '/v1/ssl', { token: ws.apiKey })
    expect(list.body.certificates.map((c: { domain: string }) => c.domain)).toContain(`shop.${zone}`)
  })

  test('an apex asked to redirect to www answers 301 and www is served, under one certificate for both', async () => {
    const apex = await liveConnection(zone)
    await pdns.setRecords(`www.${zone}`, 'A', ['127.0.0.1'])
    const put = await p.api('PUT', `/v1/connections/${apex}/power`, { token: ws.apiKey, body: { origin_url: `http://127.0.0.1:${origin.port}`, redirect_to_www: true, root_path: '/site' } })
    expect(put.body.status).toBe('active')
    const issued = await p.api('POST', `/v1/connections/${apex}/ssl:issue`, { token: ws.apiKey })
    expect(issued.status).toBe(200)
    expect(issued.body.certificate.names).toEqual([zone, `www.${zone}`])
    const redirect = await viaEdge(zone, '/pricing?x=1')
    expect(redirect.status).toBe(301)
    expect(redirect.location).toBe(`https://www.${zone}/pricing?x=1`)
    const www = await viaEdge(`www.${zone}`, '/pricing')
    expect(www.status).toBe(200)
    expect(www.body).toBe(`origin: 127.0.0.1:${origin.port} /site/pricing`)
  })

  test('the ask gate approves live hostnames only, and only with the edge secret; the edge forwards it with the secret', async () => {
    const ask = (domain: string, headers: Record<string, string> = { 'x-edge-auth': EDGE }) => p.api('POST', `/v1/internal/ask?domain=${domain}`, { headers })
    await liveConnection(`visitor.${zone}`)
    expect(await ask(`visitor.${zone}`)).toMatchObject({ status: 200, body: { approved: true } })
    expect(await ask(`unknown.${zone}`)).toMatchObject({ status: 403, body: { approved: false } })
    expect((await ask(`visitor.${zone}`, {})).status).toBe(401)
    expect((await ask(`visitor.${zone}`, { 'x-edge-auth': 'forged' })).status).toBe(401)
    // Caddy's own ask (a GET without the secret) goes through its loopback ask server, which adds it.
    expect((await fetch(`http://127.0.0.1:${caddy.askPort}/ask?domain=visitor.${zone}`)).status).toBe(200)
    expect((await fetch(`http://127.0.0.1:${caddy.askPort}/ask?domain=unknown.${zone}`)).status).toBe(403)
    // One CA order per name: Portico issued shop's certificate, so the edge may not order another.
    expect(await ask(`shop.${zone}`)).toMatchObject({ status: 403, body: { approved: false } })
  })

  test('a failed connection pointed at the edge is approved by real traffic and re-enters verification', async () => {
    const id = await liveConnection(`late.${zone}`)
    await p.db`update connections set status = 'failed', error_code = 'propagation_timeout' where id = ${id}`
    const r = await p.api('POST', `/v1/internal/ask?domain=late.${zone}`, { headers: { 'x-edge-auth': EDGE } })
    expect(r.body).toEqual({ approved: true })
    expect((await p.api('GET', `/v1/connections/${id}`, { token: ws.apiKey })).body.status).toBe('propagating')
  })

  test('renewal moved forward by the clock renews the certificate and emits secure_status', async () => {
    const before = (await p.api('GET', `/v1/connections/${shop}/ssl`, { token: ws.apiKey })).body.certificate
    const servedBefore = (await viaEdge(`shop.${zone}`)).fingerprint
    p.clock.advance(new Date(before.renew_after).getTime() + 60_000 - p.clock.now().getTime())
    try {
      await sweep()
      const after = (await p.api('GET', `/v1/connections/${shop}/ssl`, { token: ws.apiKey })).body.certificate
      expect(after).toMatchObject({ id: before.id, status: 'issued', last_error: null })
      expect(after.updated_at).not.toBe(before.updated_at)
      expect((await eventsOf(shop, 'secure_status')).map((e) => e.secure_status)).toEqual(['pending', 'issued', 'issued'])
      // The edge now serves the new certificate.
      const again = await viaEdge(`shop.${zone}`, '/again')
      expect(again.body).toBe(`origin: 127.0.0.1:${origin.port} /again`)
      expect(again.fingerprint).not.toBe(servedBefore)
    } finally {
      p.clock.reset()
    }
  })

  test('import refuses a mismatched key, an expired certificate and a hostname mismatch; a good one is served', async () => {
    const id = await liveConnection(`own.${zone}`)
    const dir = mkdtempSync(join(tmpdir(), 'portico-import-'))
    const openssl = async (args: string[]) => {
      const r = spawn(['openssl', ...args], { cwd: dir, stdout: 'ignore', stderr: 'pipe' })
      if ((await r.exited) !== 0) throw new Error(await new Response(r.stderr).text())
    }
    const selfSigned = async (name: string, cn: string) => {
      await openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.pem`, '-days', '2', '-subj', `/CN=${cn}`, '-addext', `subjectAltName=DNS:${cn}`])
      return { certificate: readFileSync(join(dir, `${name}.pem`), 'utf8'), private_key: readFileSync(join(dir, `${name}.key`), 'utf8') }
    }
    const good = await selfSigned('good', `own.${zone}`)
    const other = await selfSigned('other', `elsewhere.${zone}`)
    const put = (body: { certificate: string; private_key: string }) => p.api('PUT', `/v1/connections/${id}/ssl`, { token: ws.apiKey, body })

    const mismatch = await put({ certificate: good.certificate, private_key: other.private_key })
    expect(mismatch.status).toBe(400)
    expect(mismatch.body.title).toBe('The private key does not match the certificate')
    const wrongHost = await put(other)
    expect(wrongHost.status).toBe(400)
    expect(wrongHost.body.title).toContain(`does not name own.${zone}`)
    p.clock.advance(3 * 24 * 3600_000)
    try {
      const expired = await put(good)
      expect(expired.status).toBe(400)
      expect(expired.body.title).toMatch(/^The certificate expired on /)
    } finally {
      p.clock.reset()
    }
    expect((await p.api('GET', `/v1/connections/${id}/ssl`, { token: ws.apiKey })).status).toBe(404)

    const ok = await put(good)
    expect(ok.body).toMatchObject({ certificate: { status: 'issued' } })
    expect(ok.status).toBe(200)
    expect(ok.body.certificate).toMatchObject({ status: 'issued', managed: false, renew_after: null, issuer: `own.${zone}` })
    await p.api('PUT', `/v1/connections/${id}/power`, { token: ws.apiKey, body: { origin_url: `http://127.0.0.1:${origin.port}` } })
    const served = await new Promise<string>((resolve, reject) => {
      https.get({ host: '127.0.0.1', port: caddy.httpsPort, servername: `own.${zone}`, headers: { host: `own.${zone}` }, ca: good.certificate }, (res) => {
        let b = ''
        res.on('data', (d) => (b += d))
        res.on('end', () => resolve(b))
      }).on('error', reject)
    })
    expect(served).toBe(`origin: 127.0.0.1:${origin.port} /`)
  })

  test('an edge that lost its configuration (a restart) gets its servers, routes and certificates back from the sweep', async () => {
    const events = (await eventsOf(shop, 'power_status')).length
    await fetch(`${caddy.adminUrl}/load`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ admin: { listen: new URL(caddy.adminUrl).host } }), keepalive: false })
    expect(await caddyIds()).not.toContain(`site-${shop}-0`)
    await sweep()
    expect(await caddyIds()).toContain(`site-${shop}-0`)
    expect(await caddyIds()).toContain(`cert-${shop}`)
    expect((await viaEdge(`shop.${zone}`, '/back')).body).toBe(`origin: 127.0.0.1:${origin.port} /back`)
    // Putting the same route back is not a change: no power_status event.
    expect((await eventsOf(shop, 'power_status')).length).toBe(events)
    // In steady state a sweep finds everything in place and changes nothing (no reload of the edge).
    const before = await caddyIds()
    expect(await sweep()).toBe(0)
    expect(await caddyIds()).toBe(before)
  })

  test('disconnect removes the route and the certificate from the edge', async () => {
    expect(await caddyIds()).toContain(`site-${shop}-0`)
    expect(await caddyIds()).toContain(`cert-${shop}`)
    const out = await p.api('DELETE', `/v1/connections/${shop}`, { token: ws.apiKey })
    expect(out.status).toBe(200)
    expect(out.body).toMatchObject({ serving: 'stopped', certificate: 'removed' })
    for (let i = 0; i < 100 && (await caddyIds()).includes(`cert-${shop}`); i++) await Bun.sleep(20)
    expect(await caddyIds()).not.toContain(`site-${shop}-0`)
    expect(await caddyIds()).not.toContain(`cert-${shop}`)
    // (Event ids follow the clock, which the renewal test moved: compare by content, not by order.)
    expect((await eventsOf(shop, 'secure_status')).filter((e) => e.secure_status === 'removed')).toHaveLength(1)
    expect((await eventsOf(shop, 'power_status')).filter((e) => e.power_status === 'removed')).toHaveLength(1)
    // No certificate for it any more, and the ask gate refuses it: the TLS handshake fails.
    await expect(viaEdge(`shop.${zone}`)).rejects.toThrow()
  })
})

describe('without an edge', () => {
  test('Power and Secure answer 503 and /v1/config omits them', async () => {
    const plain = await startPortico()
    try {
      const w = await provision(plain)
      expect((await plain.api('GET', '/v1/config')).body.products).not.toContain('secure')
      expect((await plain.api('GET', '/v1/config')).body.products).not.toContain('power')
      expect((await plain.api('GET', '/v1/ssl', { token: w.apiKey })).status).toBe(503)
      const put = await plain.api('PUT', '/v1/connections/con_x/power', { token: w.apiKey, body: { origin_url: 'https://origin.example.com' } })
      expect(put.status).toBe(503)
      expect(put.body.code).toBe('service_unavailable')
    } finally {
      await plain.close()
    }
  })
})
