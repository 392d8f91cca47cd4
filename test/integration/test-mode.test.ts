// Test mode (docs/test-mode.md): a test application's connections to reserved test domains play each
// state and each diagnosis through the real lifecycle, with the events and webhooks a live connection
// gets, each marked `test_mode: true`, and nothing is asked of any DNS server, provider or CA. Every
// row of the scenario table is driven to its end here and its events are checked against the table.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Webhook } from 'standardwebhooks'
import Ajv from 'ajv'
import { ERROR_REASONS } from '../../src/errors.ts'
import { provision, startPortico, widgetToken, type TestPortico, type Workspace } from '../harness/portico.ts'
import { sweepDue } from '../../src/jobs/verify-sweep.ts'
import { sweepMonitor } from '../../src/jobs/monitor-sweep.ts'
import { deliverAll } from '../../src/domain/webhook-delivery.ts'
import { assertEventValid } from '../../src/domain/events.ts'
import { SCENARIOS, SCENARIO_NAMES, TEST_DELAY_MS, TEST_DOMAIN_SUFFIX, TEST_PROPAGATION_TIMEOUT_MS, TEST_SETUP_INCOMPLETE_MS, type ScenarioName } from '../../src/domain/test-mode.ts'
import { HOUR } from '../../src/clock.ts'
import { eventsAlong } from '../../src/domain/transitions.ts'

let p: TestPortico
let ws: Workspace
let live: Workspace
const asked: string[] = []
const got: Record<string, any>[] = []
let server: ReturnType<typeof Bun.serve>
let secret = ''

const sweep = () => sweepDue({ db: p.db, dns: p.services.dns, clock: p.clock })
const deliver = () => deliverAll({ db: p.db, clock: p.clock, config: p.config, dns: p.services.dns })
const get = async (id: string) => (await p.api('GET', `/v1/connections/${id}`, { token: ws.apiKey })).body
const create = (domain: string, token = ws.apiKey) => p.api('POST', '/v1/connections', { token, body: { domain } })
const apply = (id: string) => p.api('POST', `/v1/connections/${id}/apply`, { token: ws.apiKey, body: { credential: 'any-key-at-all' } })
const run = Date.now().toString(36)

beforeAll(async () => {
  p = await startPortico({ WEBHOOK_ALLOW_LOOPBACK: '1' })
  // Every lookup Portico makes is noted: test mode makes none about a test domain.
  for (const dns of [p.services.dns, p.services.verifyDns]) {
    const lookup = dns.lookup.bind(dns)
    dns.lookup = (name, type) => {
      asked.push(`${name} ${type}`)
      return lookup(name, type)
    }
  }
  ws = await provision(p, { environment: 'test' })
  live = await provision(p)
  server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      const body = await req.text()
      // The signature as standardwebhooks computes it (its own verify checks the timestamp against the machine's time; ours is moved).
      const [id, ts] = [req.headers.get('webhook-id')!, Number(req.headers.get('webhook-timestamp'))]
      const expected = new Webhook(secret).sign(id, new Date(ts * 1000), body)
      if (!req.headers.get('webhook-signature')!.split(' ').includes(expected)) return new Response('bad signature', { status: 400 })
      const event = JSON.parse(body) as Record<string, any>
      assertEventValid(event)
      got.push(event)
      return new Response(null, { status: 204 })
    },
  })
  const w = await p.api('POST', '/v1/webhooks', { token: ws.apiKey, body: { url: `http://127.0.0.1:${server.port}/hooks`, events: ['*'] } })
  expect(w.status).toBe(201)
  secret = w.body.secret
})

afterAll(async () => {
  server?.stop(true)
  await p?.close()
})

describe('which domains', () => {
  test('a test application\'s key is a ptc_test_ key, and it connects reserved test domains only', async () => {
    expect(ws.apiKey.startsWith('ptc_test_')).toBe(true)
    const r = await create('shop.example.com')
    expect(r.status).toBe(400)
    expect(r.body.details.reason).toBe('test_domain_required')
  })

  test('test mode\'s own invalid_request answers have the details the served document declares', async () => {
    const doc = (await p.api('GET', '/v1/openapi.json', { token: ws.apiKey })).body
    // With the document's components beside it, so its `reason` is checked against the declared catalogue (ErrorReason).
    const details = new Ajv({ strict: false }).compile({ ...doc.components.schemas.Error.properties.details, components: doc.components })
    // The document does declare a shape (a bare string or a list of strings is neither of its two).
    expect([details('no such shape'), details(['no such shape'])]).toEqual([false, false])
    const c = await create(`v${run}.live.sandbox.example`)
    const answers = [
      await create('shop.example.com'),
      await create(`b${run}.live.sandbox.example`, live.apiKey),
      await p.api('POST', `/v1/connections/${c.body.id}/oauth:start`, { token: await widgetToken(p, ws), body: {} }),
    ]
    for (const r of answers) {
      expect({ code: r.body.code, valid: details(r.body.details), errors: details.errors ?? null }).toEqual({ code: 'invalid_request', valid: true, errors: null })
      // The object shape's reason: a catalogue code.
      expect(Object.hasOwn(ERROR_REASONS, r.body.details.reason)).toBe(true)
    }
    // A malformed request is the list shape.
    const malformed = await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: 42 } })
    expect([malformed.body.code, Array.isArray(malformed.body.details), details(malformed.body.details)]).toEqual(['invalid_request', true, true])
  })

  test('a live application cannot connect a test domain', async () => {
    const r = await create(`a${run}.live.sandbox.example`, live.apiKey)
    expect(r.status).toBe(400)
    expect(r.body.details.reason).toBe('test_domain_in_live_mode')
  })

  test('the lookups Portico makes are seen here (so the check below can fail)', async () => {
    await p.api('POST', '/v1/domains:check', { token: live.apiKey, body: { domain: `seen${run}.example.net` } })
    expect(asked.some((q) => q.startsWith(`example.net `) || q.includes(`seen${run}.example.net`))).toBe(true)
  })

  test('a test domain that plays no scenario is refused as unregistered, naming the scenarios', async () => {
    const r = await create(`a${run}.nonsense.sandbox.example`)
    expect(r.status).toBe(422)
    expect(r.body.code).toBe('InvalidNameservers')
    for (const s of SCENARIO_NAMES) expect(r.body.title).toContain(`${s}.sandbox.example`)
  })
})

/** How each scenario is driven to its end, the way docs/test-mode.md tells an integrator. */
const drive: Record<ScenarioName, (domain: string) => Promise<{ id: string | null; status: string; error_code?: string | null }>> = {
  async live(domain) {
    const c = await create(domain)
    expect(c.status).toBe(201)
    await sweep()
    return get(c.body.id)
  },
  async delayed(domain) {
    const c = await create(domain)
    await sweep()
    expect((await get(c.body.id)).status).toBe('pending')
    p.clock.advance(TEST_DELAY_MS / 2)
    await sweep()
    expect((await get(c.body.id)).status).toBe('pending')
    p.clock.advance(TEST_DELAY_MS / 2)
    await sweep()
    return get(c.body.id)
  },
  async 'propagation-timeout'(domain) {
    const c = await create(domain)
    const a = await apply(c.body.id)
    expect(a.status).toBe(200)
    expect(a.body.connection.status).toBe('propagating')
    // The 24 hours are played as TEST_PROPAGATION_TIMEOUT_MS, found by the usual checks (every 10 s by then).
    p.clock.advance(TEST_PROPAGATION_TIMEOUT_MS - 15_000)
    await sweep()
    expect((await get(c.body.id)).status).toBe('propagating')
    p.clock.advance(25_000)
    await sweep()
    return get(c.body.id)
  },
  async 'setup-incomplete'(domain) {
    const c = await create(domain)
    p.clock.advance(TEST_SETUP_INCOMPLETE_MS - 15_000)
    await sweep()
    expect((await get(c.body.id)).error_code).toBeNull()
    p.clock.advance(25_000)
    await sweep()
    return get(c.body.id)
  },
  async 'credential-refused'(domain) {
    const c = await create(domain)
    const a = await apply(c.body.id)
    expect([a.status, a.body.code, a.body.details.reason]).toEqual([422, 'ProviderAuthenticationError', 'credential_refused'])
    return get(c.body.id)
  },
  async 'zone-not-reached'(domain) {
    const c = await create(domain)
    const a = await apply(c.body.id)
    expect([a.status, a.body.code, a.body.details.reason]).toEqual([422, 'dns_write_failed', 'zone_not_reached'])
    return get(c.body.id)
  },
  async 'access-denied'(domain) {
    const c = await create(domain)
    const a = await apply(c.body.id)
    expect([a.status, a.body.code, a.body.details.reason]).toEqual([400, 'invalid_request', 'access_denied'])
    return get(c.body.id)
  },
  async 'platform-subdomain'(domain) {
    const c = await create(domain)
    expect(c.status).toBe(422)
    expect((await p.api('GET', `/v1/connections?domain=${domain}`, { token: ws.apiKey })).body.connections).toEqual([])
    return { id: null, status: 'refused', error_code: c.body.code }
  },
  async 'certificate-failed'(domain) {
    const c = await create(domain)
    await sweep()
    expect((await get(c.body.id)).status).toBe('live')
    const issue = await p.api('POST', `/v1/connections/${c.body.id}/ssl:issue`, { token: ws.apiKey })
    expect([issue.status, issue.body.code, issue.body.details.reason]).toEqual([422, 'certificate_failed', 'ca_refused'])
    return get(c.body.id)
  },
}

describe('every scenario', () => {
  const ids: Partial<Record<ScenarioName, string>> = {}

  for (const name of SCENARIO_NAMES) {
    test(`${name}.sandbox.example ends where the table says`, async () => {
      const want = SCENARIOS[name].ends as { status: string; error_code?: string }
      const end = await drive[name](`c${run}.${name}.sandbox.example`)
      expect(end.status).toBe(want.status)
      expect(end.error_code ?? undefined).toBe(want.error_code)
      if (end.id) ids[name] = end.id
    })
  }

  let byRecheck = ''
  test('propagation-timeout.sandbox.example by :recheck ends failed too, two minutes later', async () => {
    const c = await create(`r${run}.propagation-timeout.sandbox.example`)
    const r = await p.api('POST', `/v1/connections/${c.body.id}:recheck`, { token: ws.apiKey })
    expect(r.status).toBe(200)
    expect((await get(c.body.id)).status).toBe('propagating')
    p.clock.advance(TEST_PROPAGATION_TIMEOUT_MS + 10_000)
    await sweep()
    const end = await get(c.body.id)
    expect([end.status, end.error_code]).toEqual(['failed', 'propagation_timeout'])
    byRecheck = c.body.id
  })

  test('each connection\'s webhooks are the table\'s events, in order, each marked test_mode and signed', async () => {
    await deliver()
    const recheck = got.filter((e) => e.connection_id === byRecheck).sort((a, b) => a.sequence - b.sequence)
    expect(recheck.map((e) => e.type)).toEqual([...SCENARIOS['propagation-timeout'].eventsByRecheck])
    for (const name of SCENARIO_NAMES) {
      const id = ids[name]
      const events = id ? got.filter((e) => e.connection_id === id).sort((a, b) => a.sequence - b.sequence) : []
      expect({ name, types: events.map((e) => e.type) }).toEqual({ name, types: [...SCENARIOS[name].events] })
      for (const e of events) expect(e.test_mode).toBe(true)
    }
    const failed = got.find((e) => e.connection_id === ids['propagation-timeout'] && e.type === 'connection.failed')!
    expect(failed.error_code).toBe('propagation_timeout')
    const certs = got.filter((e) => e.connection_id === ids['certificate-failed'] && e.type === 'secure_status').sort((a, b) => a.sequence - b.sequence)
    expect(certs.map((e) => e.secure_status)).toEqual(['pending', 'failed'])
    const cert = certs[1]!
    expect(cert.data.certificate.status).toBe('failed')
    expect(cert.data.certificate.last_error).toContain('test certificate authority refuses')
    // The events API answers the same events as the webhooks did.
    const page = await p.api('GET', `/v1/events?connection_id=${ids.live}`, { token: ws.apiKey })
    expect(page.status).toBe(200)
    expect(page.body.events.map((e: { id: string }) => e.id).sort()).toEqual(got.filter((e) => e.connection_id === ids.live).map((e) => e.id).sort())
  })

  test('the sign-in and one-click rails say test mode plays the API rail', async () => {
    const c = await create(`o${run}.live.sandbox.example`)
    const token = await widgetToken(p, ws)
    for (const rail of ['oauth:start', 'domainconnect:start']) {
      const r = await p.api('POST', `/v1/connections/${c.body.id}/${rail}`, { token, body: {} })
      expect([rail, r.status, r.body.details?.reason]).toEqual([rail, 400, 'test_mode_api_rail_only'])
    }
    // The widget's long poll of the pending connection: nothing in the way, and no lookup (checked below).
    const status = await p.api('GET', `/v1/connections/${c.body.id}/status`, { token })
    expect(status.status).toBe(200)
    expect(status.body.status).toBe('pending')
  })

  test('no test domain but certificate-failed is ordered a certificate: ssl:issue and ssl:renew are refused, nothing recorded', async () => {
    const c = await create(`s${run}.live.sandbox.example`)
    await sweep()
    expect((await get(c.body.id)).status).toBe('live')
    for (const op of ['ssl:issue', 'ssl:renew']) {
      const r = await p.api('POST', `/v1/connections/${c.body.id}/${op}`, { token: ws.apiKey })
      expect([op, r.status, r.body.code, r.body.details?.reason]).toEqual([op, 400, 'invalid_request', 'test_mode_no_certificate'])
    }
    expect(await p.db`select id from certificates where connection_id = ${c.body.id}`).toEqual([])
    const events = await p.api('GET', `/v1/events?connection_id=${c.body.id}`, { token: ws.apiKey })
    expect(events.body.events.map((e: { type: string }) => e.type).sort()).toEqual(eventsAlong('created', 'records_resolved').sort())
  })

  test('eight ssl:issue at once on one connection: each answers as the scenario says, none 500', async () => {
    const c = await create(`race${run}.certificate-failed.sandbox.example`)
    await sweep()
    expect((await get(c.body.id)).status).toBe('live')
    const answers = await Promise.all(Array.from({ length: 8 }, () => p.api('POST', `/v1/connections/${c.body.id}/ssl:issue`, { token: ws.apiKey })))
    expect(answers.filter((a) => a.status >= 500)).toEqual([])
    for (const a of answers) expect([422, 409]).toContain(a.status)
    expect(await p.db`select id from certificates where connection_id = ${c.body.id}`).toHaveLength(1)
  })

  test('the widget\'s domain check of a test domain answers without asking DNS', async () => {
    const r = await p.api('POST', '/v1/domains:check', { token: ws.apiKey, body: { domain: `d${run}.live.sandbox.example` } })
    expect(r.status).toBe(200)
    expect(r.body.nameservers).toEqual(['ns1.sandbox.example', 'ns2.sandbox.example'])
  })

  test('the hourly monitor finds a live test domain in sync, without asking DNS', async () => {
    p.clock.advance(2 * HOUR)
    await sweepMonitor({ db: p.db, dns: p.services.dns, clock: p.clock, alerts: true })
    p.clock.advance(2 * HOUR)
    await sweepMonitor({ db: p.db, dns: p.services.dns, clock: p.clock, alerts: true })
    const r = await p.api('GET', '/v1/monitor/domains', { token: ws.apiKey })
    const mine = r.body.domains.find((d: { connection_id: string }) => d.connection_id === ids.live)
    expect(mine.result).toBe('ok')
    expect(mine.checked).toBeGreaterThanOrEqual(1)
  })

  test('no DNS server was asked anything about a test domain', () => {
    // (Other files' connections in this run's database are swept too, and looked up as usual.)
    expect(asked.filter((q) => q.includes(TEST_DOMAIN_SUFFIX))).toEqual([])
  })

  test('docs/test-mode.md has one row per scenario, with its ending', () => {
    const doc = readFileSync(join(import.meta.dir, '../../docs/test-mode.md'), 'utf8')
    for (const name of SCENARIO_NAMES) {
      const row = doc.split('\n').find((l) => l.startsWith(`| \`${name}.sandbox.example\``))
      expect(row).toBeDefined()
      const ends = SCENARIOS[name].ends as { status: string; error_code?: string }
      expect(row).toContain(ends.error_code ? `\`${ends.error_code}\`` : `\`${ends.status}\``)
      // The events column names the scenario's events in order; by apply and by `:recheck` apart where they differ.
      const sc = SCENARIOS[name] as { events: readonly string[]; eventsByRecheck?: readonly string[] }
      const names = new Set([...sc.events, ...(sc.eventsByRecheck ?? [])])
      const inOrder = (text: string) => [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]!).filter((t) => names.has(t))
      const column = row!.split('|')[4]!
      if (!sc.eventsByRecheck) expect({ name, events: inOrder(column) }).toEqual({ name, events: [...sc.events] })
      else {
        const [byApply, byRecheck] = column.split(';')
        expect([byApply!.trim().startsWith('by apply:'), byRecheck!.trim().startsWith('by `:recheck`:')]).toEqual([true, true])
        expect([inOrder(byApply!), inOrder(byRecheck!)]).toEqual([[...sc.events], [...sc.eventsByRecheck]])
      }
    }
  })
})
