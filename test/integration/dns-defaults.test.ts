// DNS as a new user meets it: with DNS_RESOLVERS unset Portico asks the system's resolvers (the
// `nameserver` lines of resolv.conf; RESOLV_CONF names the file in tests), and when no resolver
// answers the 503 says which were tried and how they are set, and /healthz shows it.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startPdns, type Pdns } from '../harness/pdns.ts'
import { provision, startPortico, type TestPortico } from '../harness/portico.ts'
import { dnsResolverSettings, parseResolvConf } from '../../src/config.ts'
import { DnsHealth } from '../../src/domain/dns-health.ts'
import { flushLogs, setLogLevel } from '../../src/logger.ts'

const EDGE = 'edge.portico.test'
let pdns: Pdns
const started: TestPortico[] = []
const start = async (env: Record<string, string>) => {
  const p = await startPortico(env)
  started.push(p)
  return p
}

beforeAll(async () => {
  pdns = await startPdns()
})

afterAll(async () => {
  for (const p of started) await p.close()
})

describe('resolver settings', () => {
  test('resolv.conf nameserver lines, IPv6 bracketed, other lines ignored', () => {
    const text = '# generated\nsearch example.net\nnameserver 192.0.2.53\nnameserver fe80::1%eth0\n;nameserver 10.0.0.1\noptions edns0\n'
    expect(parseResolvConf(text)).toEqual(['192.0.2.53:53', '[fe80::1]:53'])
  })

  test('DNS_RESOLVERS wins; an empty resolv.conf falls back to 127.0.0.1:53', () => {
    const dir = mkdtempSync(join(tmpdir(), 'portico-resolv-'))
    writeFileSync(join(dir, 'empty'), 'search example.net\n')
    expect(dnsResolverSettings({ DNS_RESOLVERS: '127.0.0.1:5353', RESOLV_CONF: join(dir, 'empty') })).toEqual({ resolvers: ['127.0.0.1:5353'], from: 'DNS_RESOLVERS' })
    expect(dnsResolverSettings({ RESOLV_CONF: join(dir, 'empty') })).toEqual({ resolvers: ['127.0.0.1:53'], from: 'fallback' })
    expect(() => dnsResolverSettings({ RESOLV_CONF: join(dir, 'missing') })).toThrow('RESOLV_CONF')
  })
})

describe('DNS_RESOLVERS unset', () => {
  test('the resolv.conf resolver (a loopback PowerDNS on port 53) serves a connection to live', async () => {
    if (!pdns.port53Host) throw new Error('this test needs root: PowerDNS must listen on port 53 of a loopback address')
    const dir = mkdtempSync(join(tmpdir(), 'portico-resolv-'))
    const resolvConf = join(dir, 'resolv.conf')
    writeFileSync(resolvConf, `# test resolver\nnameserver ${pdns.port53Host}\n`)
    const p = await start({ DNS_RESOLVERS: '', RESOLV_CONF: resolvConf, EDGE_CNAME_TARGET: EDGE })
    expect(p.config.dnsResolvers).toEqual([`${pdns.port53Host}:53`])
    const health = await p.api('GET', '/healthz')
    expect(health.body).toMatchObject({ status: 'ok', db: 'ok', dns: 'ok', dns_resolvers: [`${pdns.port53Host}:53`] })

    const ws = await provision(p)
    const zone = `rc${Date.now().toString(36)}.test`
    await pdns.createZone(zone)
    const c = await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: `shop.${zone}` } })
    expect(c.status).toBe(201)
    expect(c.body.records).toEqual([expect.objectContaining({ type: 'CNAME', host: 'shop', value: EDGE })])
    await pdns.setRecords(`shop.${zone}`, 'CNAME', [`${EDGE}.`])
    const live = await p.api('POST', `/v1/connections/${c.body.id}:recheck`, { token: ws.apiKey })
    expect(live.body.status).toBe('live')
  })
})

describe('no resolver reachable', () => {
  test('the 503 names the resolvers and the setting; /healthz says dns unreachable and stays ok', async () => {
    // A loopback port no DNS server listens on (discard): every query times out.
    const dead = '127.0.0.1:9'
    const p = await start({ DNS_RESOLVERS: dead, DNS_TIMEOUT_MS: '200' })
    const ws = await provision(p)
    const r = await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: 'shop.nowhere.test' } })
    expect(r.status).toBe(503)
    expect(r.body.code).toBe('service_unavailable')
    expect(r.body.title).toContain(dead)
    expect(r.body.details).toMatchObject({ detection_error: 'resolver', resolvers: [dead], setting: 'DNS_RESOLVERS', resolvers_from: 'DNS_RESOLVERS' })
    expect(r.headers.get('retry-after')).toBe('5')

    const check = await p.api('POST', '/v1/domains:check', { token: ws.apiKey, body: { domain: 'shop.nowhere.test' } })
    expect(check.status).toBe(200)
    expect(check.body).toMatchObject({ detection_error: 'resolver', dns: { resolvers: [dead], setting: 'DNS_RESOLVERS' } })

    const health = await p.api('GET', '/healthz')
    expect(health.status).toBe(200)
    expect(health.body).toMatchObject({ status: 'ok', db: 'ok', dns: 'unreachable', dns_resolvers: [dead] })
  })

  test('failures are logged once a minute, not per request', () => {
    const lines: string[] = []
    const write = process.stdout.write.bind(process.stdout)
    setLogLevel('warn')
    process.stdout.write = ((s: string) => (lines.push(String(s)), true)) as typeof process.stdout.write
    try {
      const h = new DnsHealth(['127.0.0.1:9'], 'DNS_RESOLVERS', 200)
      const t0 = 1_000_000
      for (let i = 0; i < 50; i++) h.failed('timeout', t0 + i * 1000) // 50 failures over 49 s
      h.failed('timeout', t0 + 61_000)
      flushLogs()
    } finally {
      process.stdout.write = write
      setLogLevel('silent')
    }
    const warnings = lines.join('').split('\n').filter((l) => l.includes('dns.resolver_failed')).map((l) => JSON.parse(l))
    expect(warnings.length).toBe(2)
    expect(warnings[0]).toMatchObject({ resolvers: ['127.0.0.1:9'], setting: 'DNS_RESOLVERS', failures_since_last_warning: 0 })
    expect(warnings[1].failures_since_last_warning).toBe(49)
  })
})
