// Monitor end to end over a real PowerDNS: the sweep sees a deleted record, alerts through a signed
// webhook only with MONITOR_ALERTS_ENABLED, sees it restored, repairs a managed connection through a
// rail; the listing pages 2,500 domains attention-first, each exactly once while drift changes
// between pages; the widget's read-only check.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { Webhook } from 'standardwebhooks'
import { startPdns, type Pdns } from '../harness/pdns.ts'
import { provision, startPortico, widgetToken, type TestPortico, type Workspace } from '../harness/portico.ts'
import { deliverAll } from '../../src/domain/webhook-delivery.ts'
import { enrolAnnounced, enrolLive, sweepMonitor, type MonitorDeps } from '../../src/jobs/monitor-sweep.ts'
import { MANUAL_DETAIL, MIN_GAP_MS, NO_RAIL_DETAIL, type RepairRail } from '../../src/domain/monitor.ts'
import { newId } from '../../src/ids.ts'
import { HOUR } from '../../src/clock.ts'

const EDGE = 'edge.portico.test'
let pdns: Pdns
let p: TestPortico
let zone: string

beforeAll(async () => {
  pdns = await startPdns()
  zone = `mon${Date.now().toString(36)}.test`
  await pdns.createZone(zone)
  p = await startPortico({ DNS_RESOLVERS: pdns.dnsAddress, EDGE_CNAME_TARGET: EDGE, WEBHOOK_ALLOW_LOOPBACK: '1', MONITOR_ALERTS_ENABLED: '1' })
  // These tests plug in their own repair rail; the wired managed rail is tested in rails.test.ts.
  delete p.services.monitorRepair
})

afterAll(async () => {
  await p?.close()
})

const deps = (over: Partial<MonitorDeps> = {}): MonitorDeps => ({ db: p.db, dns: p.services.dns, clock: p.clock, alerts: p.config.monitorAlertsEnabled, ...over })
const sweep = (over: Partial<MonitorDeps> = {}) => sweepMonitor(deps(over))
/** The next hourly check of every watched domain comes due (its slot, at least 10 minutes after the last check). */
const nextHour = (over: Partial<MonitorDeps> = {}) => {
  p.clock.advance(HOUR + MIN_GAP_MS)
  return sweep(over)
}

/** A live connection for `label.zone`, its CNAME published in PowerDNS. */
async function liveConnection(ws: Workspace, label: string): Promise<{ id: string; domain: string }> {
  const domain = `${label}.${zone}`
  const c = await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain } })
  await pdns.setRecords(domain, 'CNAME', [`${EDGE}.`])
  const r = await p.api('POST', `/v1/connections/${c.body.id}:recheck`, { token: ws.apiKey })
  expect(r.body.status).toBe('live')
  return { id: c.body.id, domain }
}

function receiver() {
  const got: { headers: Record<string, string>; body: string }[] = []
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      got.push({ headers: Object.fromEntries(req.headers), body: await req.text() })
      return new Response('ok')
    },
  })
  return { got, url: `http://127.0.0.1:${server.port}/hooks`, stop: () => server.stop(true) }
}

/**
 * Checks a delivery's signature with `standardwebhooks`; the timestamp window is not checked since the
 * test clock runs hours ahead of the verifier's.
 */
function verified(secret: string, r: { headers: Record<string, string>; body: string }): Record<string, any> {
  const expected = new Webhook(secret).sign(r.headers['webhook-id']!, new Date(Number(r.headers['webhook-timestamp']) * 1000), r.body)
  expect(r.headers['webhook-signature']!.split(' ')).toContain(expected)
  return JSON.parse(r.body)
}

const monitorOf = async (ws: Workspace, id: string) => (await p.api('GET', `/v1/connections/${id}/monitor`, { token: ws.apiKey })).body
const driftEvents = async (connectionId: string) =>
  (await p.db`select type, payload from events where connection_id = ${connectionId} and type like 'domain.%' order by id`) as { type: string; payload: any }[]

describe('drift over PowerDNS', () => {
  test('a deleted record is flagged record_missing and delivered; restoring it delivers record_restored', async () => {
    const ws = await provision(p)
    const rx = receiver()
    try {
      const hook = await p.api('POST', '/v1/webhooks', { token: ws.apiKey, body: { url: rx.url, events: ['domain.record_missing', 'domain.record_restored'] } })
      const { id, domain } = await liveConnection(ws, 'shop')
      await sweep()
      const first = await monitorOf(ws, id)
      expect(first).toMatchObject({ watched: true, active: true, result: 'ok', checked: 1, drift: [], attention: null, every: '1h', alerts: { webhooks: true, email: false } })
      expect(first.watching).toEqual([{ name: domain, type: 'CNAME', value: EDGE }])
      const next = Date.parse(first.next_check_at) - p.clock.now().getTime()
      expect(next).toBeGreaterThan(MIN_GAP_MS - 1000)
      expect(next).toBeLessThanOrEqual(HOUR + MIN_GAP_MS)

      await pdns.deleteRecords(domain, 'CNAME')
      await sweep() // not due yet: checked once an hour
      expect((await monitorOf(ws, id)).checked).toBe(1)
      await nextHour()
      const drifted = await monitorOf(ws, id)
      expect(drifted).toMatchObject({ result: 'drift', checked: 2, attention: 'action_required', repair: { automatic: false, via: null, detail: MANUAL_DETAIL } })
      expect(drifted.drift).toEqual([{ subdomain: 'shop', type: 'CNAME', verdict: 'record_missing', expected: [EDGE], observed: [] }])
      expect(Date.parse(drifted.drift_since)).toBe(Date.parse(drifted.last_checked_at))
      await nextHour() // still missing: no second alert
      await deliverAll({ db: p.db, clock: p.clock, config: p.config, dns: p.services.dns })
      const sent = rx.got.map((r) => verified(hook.body.secret, r))
      expect(sent.map((e) => e.type)).toEqual(['domain.record_missing'])
      expect(sent[0]).toMatchObject({ connection_id: id, domain, subdomain: 'shop' })
      expect(sent[0]!.data.records).toEqual([{ type: 'CNAME', host: 'shop', value: EDGE }])
      expect(sent[0]!.data.drift).toEqual([{ subdomain: 'shop', type: 'CNAME', verdict: 'record_missing', expected: [EDGE], observed: [] }])

      await pdns.setRecords(domain, 'CNAME', [`${EDGE}.`])
      await nextHour()
      await deliverAll({ db: p.db, clock: p.clock, config: p.config, dns: p.services.dns })
      const all = rx.got.map((r) => verified(hook.body.secret, r))
      expect(all.map((e) => e.type)).toEqual(['domain.record_missing', 'domain.record_restored'])
      expect(all[1]!.data.records).toEqual([{ type: 'CNAME', host: 'shop', value: EDGE }])
      expect(all[1]!.data.drift[0]).toMatchObject({ subdomain: 'shop', type: 'CNAME' })
      const back = await monitorOf(ws, id)
      expect(back).toMatchObject({ result: 'ok', drift_since: null, attention: null, checked: 4 })
      expect(back.history.map((h: { kind: string }) => h.kind)).toEqual(['restored', 'drift'])
    } finally {
      rx.stop()
    }
  })

  test('without MONITOR_ALERTS_ENABLED the sweep records drift but writes no drift event', async () => {
    const off = await startPortico({ DNS_RESOLVERS: pdns.dnsAddress, EDGE_CNAME_TARGET: EDGE })
    try {
      expect(off.config.monitorAlertsEnabled).toBe(false)
      const ws = await provision(p)
      const { id, domain } = await liveConnection(ws, 'quiet')
      const quiet = { alerts: off.config.monitorAlertsEnabled }
      await sweep(quiet)
      await pdns.deleteRecords(domain, 'CNAME')
      await nextHour(quiet)
      expect((await monitorOf(ws, id)).result).toBe('drift')
      expect(await driftEvents(id)).toEqual([])
      // The same drift with the flag on is alerted: the absence above is the flag's doing.
      await pdns.setRecords(domain, 'CNAME', [`${EDGE}.`])
      await nextHour(quiet)
      await pdns.deleteRecords(domain, 'CNAME')
      await nextHour()
      expect((await driftEvents(id)).map((e) => e.type)).toEqual(['domain.record_missing'])
    } finally {
      await off.close()
    }
  })

  test('a managed connection is repaired through its rail (auto_fixed); without a rail a person is asked to act', async () => {
    const ws = await provision(p)
    const { id, domain } = await liveConnection(ws, 'managed')
    await p.db`update connections set managed = true where id = ${id}`
    await sweep()
    await pdns.deleteRecords(domain, 'CNAME')
    await nextHour()
    const unrepaired = await monitorOf(ws, id)
    expect(unrepaired).toMatchObject({ result: 'drift', attention: 'action_required', repair: { automatic: false, via: 'managed_dns', detail: NO_RAIL_DETAIL } })

    const calls: string[] = []
    const rail: RepairRail = {
      via: 'managed_dns',
      async repair(c, drift) {
        calls.push(`${c.domain} ${drift.map((d) => d.verdict).join(',')}`)
        await pdns.setRecords(c.domain, 'CNAME', [`${EDGE}.`])
        return { fixed: true, detail: 'Re-applied the CNAME through the managed grant' }
      },
    }
    p.services.monitorRepair = rail
    try {
      await pdns.setRecords(domain, 'CNAME', ['elsewhere.example.net.'])
      await nextHour({ repair: rail })
      expect(calls).toEqual([`${domain} record_changed`])
      const fixed = await monitorOf(ws, id)
      expect(fixed).toMatchObject({ result: 'ok', attention: null, drift: [], repair: { automatic: true, via: 'managed_dns' } })
      expect(fixed.action).toMatchObject({ kind: 'auto_fixed', description: 'Re-applied the CNAME through the managed grant' })
      expect(fixed.history.map((h: { kind: string }) => h.kind)).toEqual(['restored', 'auto_fixed', 'drift'])
      expect((await pdns.listRecords(zone)).find((r) => r.name === `${domain}.` && r.type === 'CNAME')?.content).toBe(`${EDGE}.`)
    } finally {
      delete p.services.monitorRepair
    }
  })

  test('sweeps every few minutes: an unchanged check writes nothing; count, last and next check follow the sweep', async () => {
    const ws = await provision(p)
    const { id, domain } = await liveConnection(ws, 'steady')
    await sweep()
    const first = await monitorOf(ws, id)
    expect(first).toMatchObject({ result: 'ok', checked: 1 })
    const version = async () => (await p.db`select xmin::text as v from monitor_state where connection_id = ${id}`)[0].v as string
    const written = await version()
    const slot = Date.parse(first.next_check_at)
    const step = async () => {
      p.clock.advance(5 * 60_000)
      await sweep()
    }
    while (p.clock.now().getTime() + 5 * 60_000 < slot) {
      await step()
      expect((await monitorOf(ws, id)).checked).toBe(1)
    }
    await step() // past its slot: checked once more, nothing written
    const second = await monitorOf(ws, id)
    expect(second).toMatchObject({ result: 'ok', checked: 2 })
    expect(Date.parse(second.last_checked_at)).toBe(slot)
    expect(Date.parse(second.next_check_at)).toBe(slot + HOUR)
    expect(await version()).toBe(written)

    await pdns.deleteRecords(domain, 'CNAME')
    while (p.clock.now().getTime() < slot + HOUR) await step()
    const drifted = await monitorOf(ws, id)
    expect(drifted).toMatchObject({ result: 'drift', checked: 3, attention: 'action_required' })
    expect(Date.parse(drifted.next_check_at)).toBe(slot + 2 * HOUR)
    expect(await version()).not.toBe(written)
    expect((await driftEvents(id)).map((e) => e.type)).toEqual(['domain.record_missing'])
  })

  test('a connection live again with a new record set is watched afresh against it', async () => {
    const ws = await provision(p)
    const { id, domain } = await liveConnection(ws, 'relive')
    await sweep()
    await pdns.deleteRecords(domain, 'CNAME')
    await nextHour()
    expect(await monitorOf(ws, id)).toMatchObject({ result: 'drift', attention: 'action_required' })
    const records = [{ type: 'CNAME', host: 'relive', value: 'app.integrator.example' }]
    expect((await p.api('PUT', `/v1/connections/${id}/records`, { token: ws.apiKey, body: { records } })).status).toBe(200)
    await pdns.setRecords(domain, 'CNAME', ['app.integrator.example.'])
    expect((await p.api('POST', `/v1/connections/${id}:recheck`, { token: ws.apiKey })).body.status).toBe('live')
    expect(await monitorOf(ws, id)).toMatchObject({ result: null, drift: [], attention: null, drift_since: null })
    await sweep()
    const fresh = await monitorOf(ws, id)
    expect(fresh).toMatchObject({ result: 'ok', attention: null })
    expect(fresh.watching).toEqual([{ name: domain, type: 'CNAME', value: 'app.integrator.example' }])
    expect((await driftEvents(id)).map((e) => e.type)).toEqual(['domain.record_missing'])
  })

  test('going live writes nothing for the monitor: the next sweep enrols the connection from its event and checks it', async () => {
    const ws = await provision(p)
    // Sweeps within one hour: the hourly reconciliation (which would enrol it too) does not run.
    const toHour = HOUR - (p.clock.now().getTime() % HOUR)
    if (toHour < 15 * 60_000) p.clock.advance(toHour + 60_000)
    await sweep()
    const { id } = await liveConnection(ws, 'announced')
    expect((await p.db`select count(*)::int as n from monitor_state where connection_id = ${id}`)[0].n).toBe(0)
    const due = await monitorOf(ws, id)
    expect(due).toMatchObject({ watched: true, result: null, checked: 0, last_checked_at: null })
    expect(Date.parse(due.next_check_at)).toBeLessThanOrEqual(p.clock.now().getTime())
    expect(Date.parse(due.next_check_at)).toBeGreaterThan(p.clock.now().getTime() - 5000)
    p.clock.advance(60_000)
    await sweep()
    expect(await monitorOf(ws, id)).toMatchObject({ result: 'ok', checked: 1 })
  })

  test('an event minted before the last sweep but committed after it is still read; older ones are left to the hourly reconciliation', async () => {
    const ws = await provision(p)
    const { id } = await liveConnection(ws, 'late')
    const wentLive = p.clock.now().getTime()
    await p.db`delete from monitor_state where connection_id = ${id}`
    const watched = async () => (await p.db`select count(*)::int as n from monitor_state where connection_id = ${id}`)[0].n as number
    await enrolAnnounced(deps(), new Date(wentLive + 10 * 60_000))
    expect(await watched()).toBe(0)
    await enrolAnnounced(deps(), new Date(wentLive + 2 * 60_000))
    expect(await watched()).toBe(1)
    expect(await monitorOf(ws, id)).toMatchObject({ watched: true, result: null, checked: 0 })
  })

  test('a disconnected connection is no longer watched', async () => {
    const ws = await provision(p)
    const { id } = await liveConnection(ws, 'gone')
    await sweep()
    expect((await p.api('DELETE', `/v1/connections/${id}`, { token: ws.apiKey })).status).toBe(200)
    await sweep()
    expect((await p.db`select count(*)::int as n from monitor_state where connection_id = ${id}`)[0].n).toBe(0)
  })
})

describe('POST /monitor:check', () => {
  test('resolves a supplied baseline read-only, record by record', async () => {
    const ws = await provision(p)
    const token = await widgetToken(p, ws)
    await pdns.setRecords(`www.${zone}`, 'CNAME', [`${EDGE}.`])
    const before = (await p.db`select (select count(*) from monitor_state)::int as s, (select count(*) from events)::int as e`)[0]
    const r = await p.api('POST', '/v1/monitor:check', {
      token,
      body: { domain: zone, baseline: [{ type: 'CNAME', host: 'www', value: EDGE }, { type: 'TXT', host: '_portico-challenge', value: 'portico-verify=nope' }] },
    })
    expect(r.status).toBe(200)
    expect(r.body.in_sync).toBe(false)
    expect(r.body.records).toEqual([
      { type: 'CNAME', host: 'www', value: EDGE, observed: [EDGE], status: 'ok' },
      { type: 'TXT', host: '_portico-challenge', value: 'portico-verify=nope', observed: [], status: 'record_missing' },
    ])
    const inSync = await p.api('POST', '/v1/monitor:check', { token, body: { domain: `www.${zone}`, baseline: [{ type: 'CNAME', host: 'www', value: EDGE }] } })
    expect(inSync.body.in_sync).toBe(true)
    expect((await p.db`select (select count(*) from monitor_state)::int as s, (select count(*) from events)::int as e`)[0]).toEqual(before)
  })

  test('refuses hosts outside the domain, another host for a bound token, and API keys', async () => {
    const ws = await provision(p)
    const bound = await widgetToken(p, ws, { domain: `shop.${zone}` })
    const outside = await p.api('POST', '/v1/monitor:check', { token: bound, body: { domain: `shop.${zone}`, baseline: [{ type: 'CNAME', host: 'blog', value: EDGE }] } })
    expect(outside.status).toBe(400)
    const other = await p.api('POST', '/v1/monitor:check', { token: bound, body: { domain: `blog.${zone}`, baseline: [{ type: 'CNAME', host: 'blog', value: EDGE }] } })
    expect(other.status).toBe(403)
    const key = await p.api('POST', '/v1/monitor:check', { token: ws.apiKey, body: { domain: zone, baseline: [{ type: 'CNAME', host: 'www', value: EDGE }] } })
    expect([401, 403]).toContain(key.status)
  })
})

describe('GET /monitor/domains', () => {
  const N = 2500
  let ws: Workspace
  let bulkZone: string
  const host = (i: number) => `d${i}.${bulkZone}`

  async function setCnames(indexes: number[], present: boolean) {
    for (let i = 0; i < indexes.length; i += 1000) {
      const rrsets = indexes.slice(i, i + 1000).map((n) =>
        present
          ? { name: `${host(n)}.`, type: 'CNAME', ttl: 300, changetype: 'REPLACE', records: [{ content: `${EDGE}.`, disabled: false }] }
          : { name: `${host(n)}.`, type: 'CNAME', changetype: 'DELETE' },
      )
      const r = await fetch(`${pdns.apiUrl}/zones/${bulkZone}.`, { method: 'PATCH', headers: { 'X-API-Key': pdns.apiKey }, body: JSON.stringify({ rrsets }) })
      if (!r.ok) throw new Error(`PowerDNS: ${r.status} ${await r.text()}`)
    }
  }
  const range = (pred: (i: number) => boolean) => Array.from({ length: N }, (_, i) => i).filter(pred)

  beforeAll(async () => {
    ws = await provision(p)
    bulkZone = `page${Date.now().toString(36)}.test`
    await pdns.createZone(bulkZone)
    await setCnames(range(() => true), true)
    const now = p.clock.now()
    const rows = Array.from({ length: N }, (_, i) => ({ id: newId('con', now.getTime()), domain: host(i), sub: `d${i}` }))
    await p.db`
      insert into connections (id, tenant_id, application_id, domain, apex_domain, status, desired_records, planned_target,
        verification_token, live_at, created_at, updated_at)
      select r.id, ${ws.tenantId}, ${ws.appId}, r.domain, ${bulkZone}, 'live',
        jsonb_build_array(jsonb_build_object('type', 'CNAME', 'host', r.sub, 'value', ${EDGE}::text, 'ttl', 300)),
        jsonb_build_object('cname_target', ${EDGE}::text, 'apex_ipv4', '[]'::jsonb), 'tok', ${now}, ${now}, ${now}
      from jsonb_to_recordset(${rows}::jsonb) as r(id text, domain text, sub text)`
    // Every 25th domain has lost its record before the first check.
    await setCnames(range((i) => i % 25 === 0), false)
    // Written straight into the table, they are found by the hourly reconciliation, run here at once.
    await enrolLive(deps())
    await sweep()
  })

  const list = (query: string) => p.api('GET', `/v1/monitor/domains?app_id=${ws.appId}${query}`, { token: ws.apiKey })
  const index = (domain: string) => Number(/^d(\d+)\./.exec(domain)![1])

  test('pages return every domain exactly once, attention first, while drift changes between pages', async () => {
    const first = await list('&limit=300')
    expect(first.status).toBe(200)
    expect(first.body.summary).toEqual({ domains: N, watched: N, ok: N - 100, drift: 100, needs_action: 100, inconclusive: 0, not_checked: 0 })
    expect(first.body.every).toBe('1h')
    expect(first.body.auto_repair).toBe(false)
    const firstPage = first.body.domains as { domain: string; attention: string | null; connection_id: string }[]
    expect(firstPage.slice(0, 100).every((d) => d.attention === 'action_required' && index(d.domain) % 25 === 0)).toBe(true)
    expect(firstPage.slice(100).every((d) => d.attention === null)).toBe(true)

    const seen = firstPage.map((d) => d.connection_id)
    let cursor: string | undefined = first.body.next_cursor
    let round = 0
    let laterDrifted = 0
    while (cursor) {
      // Between pages: a new set of domains loses its records (among them ones not returned yet, which
      // a plain keyset on the current rank would skip), the previous set comes back.
      round++
      await setCnames(range((i) => i % 9 === round % 9 && i % 25 !== 0), false)
      if (round > 1) await setCnames(range((i) => i % 9 === (round - 1) % 9 && i % 25 !== 0), true)
      await nextHour()
      const page = await list(`&limit=300&cursor=${cursor}`)
      expect(page.status).toBe(200)
      for (const d of page.body.domains) {
        seen.push(d.connection_id)
        if (d.result === 'drift' && index(d.domain) % 25 !== 0) laterDrifted++
      }
      cursor = page.body.next_cursor
    }
    expect(round).toBe(Math.ceil(N / 300) - 1)
    expect(seen.length).toBe(N)
    expect(new Set(seen).size).toBe(N)
    // Entries show their current state even though the ordering is the first page's.
    expect(laterDrifted).toBeGreaterThan(0)
    // A new listing orders by the state now.
    const fresh = await list('&limit=1000')
    const drifting = fresh.body.summary.needs_action
    expect(drifting).toBeGreaterThan(100)
    expect(fresh.body.domains.slice(0, drifting).every((d: { attention: string | null }) => d.attention === 'action_required')).toBe(true)
    expect(fresh.body.domains[drifting].attention).toBeNull()
  })

  test('limit: default 200, larger read as 1000, below 1 refused; bad cursors refused', async () => {
    expect((await list('')).body.domains).toHaveLength(200)
    const big = await list('&limit=5000')
    expect(big.status).toBe(200)
    expect(big.body.domains).toHaveLength(1000)
    expect(typeof big.body.next_cursor).toBe('string')
    expect((await list('&limit=0')).status).toBe(400)
    expect((await list('&cursor=bm9wZQ')).status).toBe(400)
    const other = await provision(p)
    expect((await p.api('GET', `/v1/monitor/domains?cursor=${big.body.next_cursor}`, { token: other.apiKey })).status).toBe(400)
    expect((await p.api('GET', `/v1/monitor/domains?app_id=${ws.appId}`, { token: other.apiKey })).status).toBe(404)
  })

  test('the last page has no next_cursor; another workspace sees none of these domains', async () => {
    const last = await list('&limit=1000')
    const p2 = await list(`&limit=1000&cursor=${last.body.next_cursor}`)
    const p3 = await list(`&limit=1000&cursor=${p2.body.next_cursor}`)
    expect(p3.body.domains).toHaveLength(N - 2000)
    expect(p3.body.next_cursor).toBeUndefined()
    const other = await provision(p)
    const theirs = await p.api('GET', '/v1/monitor/domains', { token: other.apiKey })
    expect(theirs.body.summary.domains).toBe(0)
    expect(theirs.body.domains).toEqual([])
  })
})
