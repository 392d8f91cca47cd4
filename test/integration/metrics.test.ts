// GET /metrics as an operator meets it: a real Prometheus (Debian `prometheus`) on loopback scrapes a
// listening Portico with METRICS_TOKEN, and what it stored is read back through Prometheus's own query
// API when a connection goes live. Also: who may scrape (token, production default) and the text.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Elysia } from 'elysia'
import { startPdns, type Pdns } from '../harness/pdns.ts'
import { provision, startPortico, testConfig, type TestPortico, type Workspace } from '../harness/portico.ts'
import { startPrometheus, type Prometheus } from '../harness/prometheus.ts'
import { metricsMount, SCRAPE_WAIT_MS } from '../../src/http/metrics.ts'
import { MovableClock } from '../../src/clock.ts'

const TOKEN = 'metrics-test-token-0123456789'
const EDGE = 'edge.portico.test'

let pdns: Pdns
let p: TestPortico
let ws: Workspace
let base: string
let prom: Prometheus | null = null

beforeAll(async () => {
  pdns = await startPdns()
  p = await startPortico({ DNS_RESOLVERS: pdns.dnsAddress, EDGE_CNAME_TARGET: EDGE, METRICS_TOKEN: TOKEN })
  const server = p.app.listen({ port: 0, hostname: '127.0.0.1' })
  base = `http://127.0.0.1:${server.server!.port}`
  ws = await provision(p)
})

afterAll(async () => {
  await prom?.stop()
  await p.app.stop()
  await p.close()
})

const scrape = (headers: Record<string, string> = {}) => fetch(`${base}/metrics`, { headers })

describe('who may scrape', () => {
  test('with METRICS_TOKEN: no token or a wrong one is 401 with the error envelope; the token is 200 in the exposition format', async () => {
    const none = await scrape()
    expect(none.status).toBe(401)
    expect(none.headers.get('www-authenticate')).toContain('Bearer')
    expect(await none.json()).toMatchObject({ code: 'unauthorized' })
    expect((await scrape({ authorization: `Bearer ${TOKEN}x` })).status).toBe(401)
    const ok = await scrape({ authorization: `Bearer ${TOKEN}` })
    expect(ok.status).toBe(200)
    expect(ok.headers.get('content-type')).toContain('text/plain')
    const text = await ok.text()
    for (const name of [
      'portico_http_request_duration_seconds',
      'portico_verification_lag_seconds',
      'portico_queue_depth',
      'portico_connections',
      'portico_certificates',
      'portico_certificates_expiring_14d',
      'portico_job_failures_total',
      'portico_webhook_attempts_total',
      'portico_provider_calls_total',
      'portico_provider_errors_total',
      'portico_dns_checks_total',
      'process_resident_memory_bytes',
    ]) {
      expect(text).toContain(`# TYPE ${name} `)
    }
    expect(text).toMatch(/^portico_connections\{status="live"\} \d+$/m)
    expect(text).toMatch(/^portico_queue_depth\{queue="verify_due"\} \d+$/m)
  })

  const mounted = (env: Record<string, string>) => {
    const config = testConfig(env)
    return metricsMount({ config, db: p.db, clock: new MovableClock() })(new Elysia())
  }

  test('in production without METRICS_TOKEN there is no /metrics (404); with it, only the token scrapes', async () => {
    const prod = { APP_ENV: 'production', WEBHOOK_ALLOW_LOOPBACK: '', PUBLIC_URL: 'https://portico.example' }
    const hidden = await mounted(prod).handle(new Request('http://localhost/metrics'))
    expect(hidden.status).toBe(404)
    expect(await hidden.json()).toMatchObject({ code: 'not_found' })
    const guarded = mounted({ ...prod, METRICS_TOKEN: TOKEN })
    expect((await guarded.handle(new Request('http://localhost/metrics'))).status).toBe(401)
    expect((await guarded.handle(new Request('http://localhost/metrics', { headers: { authorization: `Bearer ${TOKEN}` } }))).status).toBe(200)
  })

  test('in development without a token it is open', async () => {
    expect((await mounted({ APP_ENV: 'development' }).handle(new Request('http://localhost/metrics'))).status).toBe(200)
  })

  test('a database that does not answer: the scrape answers within its wait with the process\'s own series', async () => {
    // A database whose every statement hangs (a frozen server behind an open socket).
    const frozen = (() => new Promise(() => {})) as unknown as typeof p.db
    const app = metricsMount({ config: testConfig({ APP_ENV: 'development' }), db: frozen, clock: new MovableClock() })(new Elysia())
    const started = performance.now()
    const r = await app.handle(new Request('http://localhost/metrics'))
    const took = performance.now() - started
    expect(r.status).toBe(200)
    expect(await r.text()).toContain('# TYPE process_resident_memory_bytes ')
    expect(took).toBeLessThan(SCRAPE_WAIT_MS + 1000)
  })

  test('a short METRICS_TOKEN stops the start', () => {
    expect(() => testConfig({ METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN/)
  })
})

describe('Prometheus scrapes Portico', () => {
  test('the series move when a connection goes live', async () => {
    prom = await startPrometheus({ address: base.replace('http://', ''), token: TOKEN })
    const value = async (q: string) => (await prom!.query(q))[0]?.value
    const waitFor = async (what: string, q: string, ok: (v: number | undefined) => boolean) => {
      let v: number | undefined
      for (let i = 0; i < 150; i++) {
        v = await value(q)
        if (ok(v)) return v!
        await Bun.sleep(100)
      }
      throw new Error(`${what}: ${q} stayed ${v}`)
    }
    await waitFor('scrape up', 'up{job="portico"}', (v) => v === 1)
    const live0 = await waitFor('live gauge', 'portico_connections{status="live"}', (v) => v !== undefined)
    const checks0 = (await value('sum(portico_dns_checks_total{check="verify",outcome="all"})')) ?? 0

    const zone = `prom${Date.now().toString(36)}.test`
    await pdns.createZone(zone)
    const auth = { authorization: `Bearer ${ws.apiKey}`, 'content-type': 'application/json' }
    const created = await fetch(`${base}/v1/connections`, { method: 'POST', headers: auth, body: JSON.stringify({ domain: `shop.${zone}` }) })
    expect(created.status).toBe(201)
    const c = (await created.json()) as { id: string }
    await pdns.setRecords(`shop.${zone}`, 'CNAME', [`${EDGE}.`])
    const live = await fetch(`${base}/v1/connections/${c.id}:recheck`, { method: 'POST', headers: auth })
    expect(((await live.json()) as { status: string }).status).toBe('live')

    // Through Prometheus's own query API: the gauge, the DNS check counter and the request histogram moved.
    expect(await waitFor('live gauge moved', 'portico_connections{status="live"}', (v) => v === live0 + 1)).toBe(live0 + 1)
    expect(await waitFor('verify checks moved', 'sum(portico_dns_checks_total{check="verify",outcome="all"})', (v) => (v ?? 0) >= checks0 + 1)).toBeGreaterThanOrEqual(checks0 + 1)
    await waitFor('create counted', 'portico_http_request_duration_seconds_count{operation="connections.create",status="201"}', (v) => (v ?? 0) >= 1)
    await waitFor('recheck latency', 'histogram_quantile(0.99, sum by (le) (portico_http_request_duration_seconds_bucket{operation="connections.recheck"}))', (v) => v !== undefined && v > 0)
  }, 60_000)
})
