// Must show (issue 50): a domain serving a live site (its own HTTPS server on loopback) moves to
// Portico. With pre-validation, from the cutover on every HTTPS probe of the name gets a valid
// certificate for it; on the usual path (HTTP-01 once live) the visitors meet a gap of failed
// handshakes, measured here side by side and printed.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { provision, type Workspace } from '../harness/portico.ts'
import { startServed, type Served } from '../harness/served.ts'
import { startPdns } from '../harness/pdns.ts'
import { afterCutover, cutOver, OLD_SITE_ADDRESS, probe, SLOW_MS, startOldSite, type OldSite } from '../harness/cutover.ts'

let s: Served
let ws: Workspace
let site: OldSite
let roots: string[]
const tag = Date.now().toString(36)
const zone = `move${tag}.test`
const dcvZone = `dcvm${tag}.test`
const pre = `pre.${zone}`
const usual = `usual.${zone}`

beforeAll(async () => {
  const pdns = await startPdns()
  await pdns.createZone(dcvZone)
  s = await startServed(zone, { PORTICO_ROLE: 'all', DCV_ZONE: dcvZone, DCV_PDNS_API_URL: pdns.apiUrl, DCV_PDNS_API_KEY: pdns.apiKey })
  ws = await provision(s.p)
  site = await startOldSite([pre, usual], s.caddy.httpsPort)
  roots = [site.caPem, await s.pebble.rootPem()]
  for (const name of [pre, usual]) await s.pdns.setRecords(name, 'A', [OLD_SITE_ADDRESS])
})

afterAll(async () => {
  await site?.stop()
  await s?.stop()
})

const fromPebble = (issuer: string) => /pebble/i.test(issuer)
const api = (method: string, path: string, body?: unknown) => s.p.api(method, path, { token: ws.apiKey, body })
async function until<T>(what: string, fn: () => Promise<T | null | undefined | false>, withinMs = 30_000): Promise<T> {
  const end = performance.now() + withinMs
  for (;;) {
    const v = await fn()
    if (v) return v
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(50)
  }
}
async function addRecords(records: { type: string; host: string; value: string }[]) {
  for (const r of records) await s.pdns.setRecords(`${r.host}.${zone}`, r.type, [r.type === 'CNAME' ? `${r.value}.` : `"${r.value}"`])
}
/** Waits until the prober has started `n` more probes. */
const probesPass = (p: { probes: unknown[] }, n: number) => until('probes', async () => p.probes.length, 5_000).then(async (start) => until('probes', async () => p.probes.length >= start + n))

describe('moving a live site to Portico', () => {
  const results: Record<string, ReturnType<typeof afterCutover>> = {}

  test('with pre-validation, every probe from the cutover on gets a valid certificate for the name', async () => {
    const prober = probe(pre, { dnsServer: s.pdns.dnsAddress, port: s.caddy.httpsPort, roots })
    await probesPass(prober, 3)
    const c = (await api('POST', '/v1/connections', { domain: pre, validation: 'before_cutover' })).body
    await addRecords(c.records)
    await api('POST', `/v1/connections/${c.id}:recheck`)
    const routing = await until('the routing record to be asked for', async () => {
      const r = (await api('GET', `/v1/connections/${c.id}`)).body
      return r.validation_stage === 'awaiting_routing' ? r : null
    })
    const target = routing.records.find((r: { host: string }) => r.host === 'pre').value
    // The site still served its own certificate all along.
    expect(prober.probes.every((p) => p.ok)).toBe(true)
    await cutOver(s.pdns, zone, pre, target)
    const cutAt = performance.now()
    await probesPass(prober, 3)
    expect((await api('POST', `/v1/connections/${c.id}:recheck`)).body).toMatchObject({ status: 'live', validation_stage: 'complete' })
    await probesPass(prober, 20)
    const seen = afterCutover(await prober.stop(), cutAt, fromPebble)
    results.before_cutover = seen
    expect(seen.errors).toEqual([])
    expect(seen.failed).toBe(0)
    expect(seen.broken_ms).toBe(0)
    // The probes after the cutover reached the edge, which served Portico's certificate from the first one.
    expect(seen.edge_after_ms).not.toBeNull()
    expect(seen.probes).toBeGreaterThanOrEqual(20)
  }, 60_000)

  test('without pre-validation, the same move leaves a gap of failed handshakes until the certificate is issued', async () => {
    const prober = probe(usual, { dnsServer: s.pdns.dnsAddress, port: s.caddy.httpsPort, roots })
    await probesPass(prober, 3)
    const c = (await api('POST', '/v1/connections', { domain: usual })).body
    const target = c.records.find((r: { host: string }) => r.host === 'usual').value
    expect(prober.probes.every((p) => p.ok)).toBe(true)
    await cutOver(s.pdns, zone, usual, target)
    const cutAt = performance.now()
    // A visitor arriving before Portico has looked (the person has not said "I have added them" yet):
    // the edge has no certificate for the name.
    await until('a probe after the cutover', async () => prober.probes.some((p) => p.at >= cutAt))
    expect((await api('POST', `/v1/connections/${c.id}:recheck`)).body.status).toBe('live')
    await until('the edge to serve the certificate', async () => prober.probes.some((p) => p.at > cutAt && p.ok && fromPebble(p.detail)))
    await probesPass(prober, 5)
    const seen = afterCutover(await prober.stop(), cutAt, fromPebble)
    results.http_01 = seen
    // Failed handshakes, or one stalled while the edge ordered a certificate (a page that hangs).
    expect(seen.failed + seen.slow).toBeGreaterThan(0)
    expect(seen.broken_ms).toBeGreaterThan(0)
    expect(seen.edge_after_ms).not.toBeNull()
  }, 60_000)

  afterAll(() => {
    // Side by side, for the closing note (issue 50).
    console.log(`cutover, from the DNS change on (probes every 20 ms; slow: a handshake over ${SLOW_MS} ms):`)
    console.table(results)
  })
})
