// Connect against real DNS: a PowerDNS authoritative server on loopback serves the zones, Portico
// resolves through it, and a person's DNS edits are made in PowerDNS through its API.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { startPdns, type Pdns } from '../harness/pdns.ts'
import { provision, startPortico, widgetToken, type TestPortico, type Workspace } from '../harness/portico.ts'
import { sweepDue } from '../../src/jobs/verify-sweep.ts'
import { DAY, HOUR } from '../../src/clock.ts'
import { eventsAlong } from '../../src/domain/transitions.ts'

let pdns: Pdns
let p: TestPortico
let ws: Workspace
let zone: string
const EDGE = 'edge.portico.test'

async function events(connectionId: string) {
  return (await p.db`select type, payload from events where connection_id = ${connectionId} order by id`) as { type: string; payload: any }[]
}
const sweep = () => sweepDue({ db: p.db, dns: p.services.dns, clock: p.clock })
let seq = 0
const fresh = () => `z${Date.now().toString(36)}${++seq}.test`

beforeAll(async () => {
  pdns = await startPdns()
  p = await startPortico({ DNS_RESOLVERS: pdns.dnsAddress, EDGE_CNAME_TARGET: EDGE, EDGE_APEX_IPV4: '203.0.114.10,203.0.114.11' })
  ws = await provision(p)
  zone = fresh()
  await pdns.createZone(zone)
})

afterAll(async () => {
  await p?.close()
})

describe('domain check', () => {
  test('a delegated zone: provider, registration, rails, desired records and conflicts', async () => {
    await pdns.setRecords(`taken.${zone}`, 'A', ['198.51.100.7'])
    const r = await p.api('POST', '/v1/domains:check', { token: ws.apiKey, body: { domain: `taken.${zone}` } })
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({
      domain: `taken.${zone}`,
      apex_domain: zone,
      subdomain: 'taken',
      registered: true,
      provider: 'powerdns',
      apex_strategy: 'not_apex',
      blocked_reason: null,
      recommended_rail: 'manual',
    })
    expect(r.body.detection_error).toBeUndefined()
    expect(r.body.nameservers.length).toBeGreaterThan(0)
    expect(r.body.rails.manual).toEqual({ available: true })
    expect(r.body.rails.oauth.available).toBe(false)
    expect(r.body.desired_records).toEqual([{ type: 'CNAME', host: 'taken', value: EDGE, ttl: 300, purpose: 'routing' }])
    expect(r.body.conflicts).toEqual([
      { kind: 'routing', type: 'A', host: 'taken', value: '198.51.100.7', desired: { type: 'CNAME', host: 'taken', value: EDGE }, action: 'remove' },
    ])
  })

  test('the apex gets A records to the edge with an ownership record', async () => {
    const r = await p.api('POST', '/v1/domains:check', { token: ws.apiKey, body: { domain: zone } })
    expect(r.body.apex_strategy).toBe('a_records')
    expect(r.body.desired_records.map((d: { type: string }) => d.type)).toEqual(['A', 'A', 'TXT'])
  })

  test('an unregistered name answers registered: false', async () => {
    const r = await p.api('POST', '/v1/domains:check', { token: ws.apiKey, body: { domain: `shop.${fresh()}` } })
    expect(r.status).toBe(200)
    expect(r.body.registered).toBe(false)
    expect(r.body.blocked_reason).toBe('not_registered')
    expect(r.body.recommended_rail).toBeNull()
  })

  test('a stopped resolver gives detection_error: resolver and no verdict', async () => {
    const dead = await startPortico({ DNS_RESOLVERS: '127.0.0.1:9', DNS_TIMEOUT_MS: '300' })
    try {
      const w = await provision(dead)
      const r = await dead.api('POST', '/v1/domains:check', { token: w.apiKey, body: { domain: `shop.${zone}` } })
      expect(r.status).toBe(200)
      expect(r.body.detection_error).toBe('resolver')
      expect('registered' in r.body).toBe(false)
    } finally {
      await dead.close()
    }
  })

  test('hosting-platform subdomains are blocked', async () => {
    const r = await p.api('POST', '/v1/domains:check', { token: ws.apiKey, body: { domain: 'myshop.vercel.app' } })
    expect(r.body.blocked_reason).toBe('platform_subdomain')
    expect(r.body.rails.manual.available).toBe(false)
  })
})

describe('connections', () => {
  test('connect, add the record as a person would, re-check: live with connection.live in the outbox', async () => {
    const domain = `shop.${zone}`
    const c = await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain, end_user_ref: 'user-42' } })
    expect(c.status).toBe(201)
    expect(c.body).toMatchObject({ domain, status: 'pending', provider: 'powerdns', rail: 'manual', end_user_ref: 'user-42' })
    expect(c.body.id).toStartWith('con_')
    const replay = await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain } })
    expect(replay.status).toBe(200)
    expect(replay.body.id).toBe(c.body.id)

    const records = await p.api('GET', `/v1/connections/${c.body.id}/records`, { token: ws.apiKey })
    expect(records.body.records).toEqual([{ type: 'CNAME', host: 'shop', value: EDGE, ttl: 300, purpose: 'routing' }])
    expect(records.body.manual_steps.length).toBeGreaterThan(0)

    // Not there yet: a re-check moves it to propagating and finds nothing.
    const early = await p.api('POST', `/v1/connections/${c.body.id}:recheck`, { token: ws.apiKey })
    expect(early.body.status).toBe('propagating')
    expect(early.body.propagation.records_non_propagated).toEqual([{ type: 'CNAME', host: 'shop', value: EDGE }])

    await pdns.setRecords(domain, 'CNAME', [`${EDGE}.`])
    const live = await p.api('POST', `/v1/connections/${c.body.id}:recheck`, { token: ws.apiKey })
    expect(live.body.status).toBe('live')
    expect(live.body.live_at).not.toBeNull()

    const ev = await events(c.body.id)
    expect(ev.map((e) => e.type)).toEqual(eventsAlong('created', 'said_added', 'records_resolved'))
    const created = ev.find((e) => e.type === 'connection.created')!.payload
    expect(created).toMatchObject({ type: 'connection.created', domain, subdomain: 'shop', user_id: 'user-42', provider: 'powerdns', setup_type: 'manual', propagation_status: 'pending' })
    expect(created.id).toStartWith('evt_')
    const liveEv = ev.find((e) => e.type === 'connection.live')!.payload
    expect(liveEv).toMatchObject({ propagation_status: 'success', user_id: 'user-42' })
    expect(liveEv.data.records_propagated).toEqual([{ type: 'CNAME', host: 'shop', value: EDGE }])
    expect(liveEv.data.records_non_propagated).toEqual([])
    expect(liveEv.error_code).toBeUndefined()
  })

  test('a zone never updated fails after 24 moved hours; re-check revives it', async () => {
    const c = await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: `never.${zone}` } })
    await p.api('POST', `/v1/connections/${c.body.id}:recheck`, { token: ws.apiKey })
    try {
      p.clock.advance(23 * HOUR)
      await sweep()
      expect((await p.api('GET', `/v1/connections/${c.body.id}`, { token: ws.apiKey })).body.status).toBe('propagating')
      p.clock.advance(HOUR + 60_000)
      await sweep()
      const failed = await p.api('GET', `/v1/connections/${c.body.id}`, { token: ws.apiKey })
      expect(failed.body).toMatchObject({ status: 'failed', error_code: 'propagation_timeout' })
      const ev = (await events(c.body.id)).map((e) => e.payload)
      expect(ev.map((e) => e.type)).toEqual(eventsAlong('created', 'said_added', 'timed_out'))
      const failedEv = ev.find((e) => e.type === 'connection.failed')
      expect(failedEv).toMatchObject({ propagation_status: 'timeout', error_code: 'propagation_timeout' })
      expect(failedEv.data.records_non_propagated).toHaveLength(1)
      // The sweep's event carries its connection's sequence first, as every outbox payload does (src/db/verification.ts).
      const [row] = await p.db`select sequence::int as seq, payload::text as text from events where connection_id = ${c.body.id} and type = 'connection.failed'`
      expect(row.text).toStartWith(`{"sequence":${row.seq},"id":"${failedEv.id}","type":"connection.failed",`)
      expect(failedEv.sequence).toBe(ev.length)

      const revived = await p.api('POST', `/v1/connections/${c.body.id}:recheck`, { token: ws.apiKey })
      expect(revived.body.status).toBe('propagating')
      expect(revived.body.retried_at).not.toBeNull()
      expect(revived.body.error_code).toBeNull()
      // Retrying the domain resumes the same connection.
      const again = await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: `never.${zone}` } })
      expect(again.status).toBe(200)
      expect(again.body.id).toBe(c.body.id)
    } finally {
      p.clock.reset()
    }
  })

  test('a pending connection never fails for late DNS, and goes live when the records appear', async () => {
    const domain = `late.${zone}`
    const c = await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain } })
    try {
      for (const step of [2 * HOUR, DAY, 2 * DAY, 30 * DAY]) {
        p.clock.advance(step)
        await sweep()
      }
      const stalled = await p.api('GET', `/v1/connections/${c.body.id}`, { token: ws.apiKey })
      expect(stalled.body).toMatchObject({ status: 'pending', error_code: 'setup_incomplete' })
      const wait = new Date(stalled.body.next_check_at).getTime() - p.clock.now().getTime()
      expect(wait).toBeGreaterThan(6 * HOUR - 5_000)
      expect(wait).toBeLessThanOrEqual(6 * HOUR)
      await pdns.setRecords(domain, 'CNAME', [`${EDGE}.`])
      p.clock.advance(6 * HOUR)
      await sweep()
      const live = await p.api('GET', `/v1/connections/${c.body.id}`, { token: ws.apiKey })
      expect(live.body).toMatchObject({ status: 'live', error_code: null })
    } finally {
      p.clock.reset()
    }
  })

  test('refusals: platform subdomain, unregistered, bad names', async () => {
    const plat = await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: 'shop.github.io' } })
    expect(plat.status).toBe(422)
    expect(plat.body.code).toBe('platform_subdomain')
    const unreg = await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: `www.${fresh()}` } })
    expect(unreg.status).toBe(422)
    expect(unreg.body.code).toBe('InvalidNameservers')
    const bad = await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: 'not a domain' } })
    expect(bad.status).toBe(400)
    const count = await p.db`select count(*)::int as n from connections where domain in ('shop.github.io', 'not a domain')`
    expect(count[0].n).toBe(0)
  })

  test('bulk: one result per domain; 201 domains is 400', async () => {
    const good = Array.from({ length: 150 }, (_, i) => `b${i}.${zone}`)
    const platform = Array.from({ length: 20 }, (_, i) => `site${i}.netlify.app`)
    const unregistered = Array.from({ length: 20 }, (_, i) => `w${i}.${fresh()}`)
    const repeated = good.slice(0, 10)
    const domains = [...good, ...platform, ...unregistered, ...repeated]
    expect(domains).toHaveLength(200)
    const r = await p.api('POST', '/v1/connections:bulk', { token: ws.apiKey, body: { domains } })
    expect(r.status).toBe(200)
    expect(r.body.results).toHaveLength(200)
    expect(r.body.results.map((x: { domain: string }) => x.domain)).toEqual(domains)
    const by = (s: string) => r.body.results.filter((x: { status: string }) => x.status === s)
    expect(by('connected')).toHaveLength(150)
    expect(by('already')).toHaveLength(10)
    expect(by('failed')).toHaveLength(40)
    expect(r.body.results[150]).toMatchObject({ status: 'failed', code: 'platform_subdomain', connection_id: null })
    expect(r.body.results[170]).toMatchObject({ status: 'failed', code: 'InvalidNameservers' })
    const again = await p.api('POST', '/v1/connections:bulk', { token: ws.apiKey, body: { domains: good.slice(0, 3) } })
    expect(again.body.results.map((x: { status: string }) => x.status)).toEqual(['already', 'already', 'already'])
    const tooMany = await p.api('POST', '/v1/connections:bulk', { token: ws.apiKey, body: { domains: [...domains, `x.${zone}`] } })
    expect(tooMany.status).toBe(400)
  })

  test('list pages with a cursor, count by status and application', async () => {
    const w = await provision(p)
    for (const d of ['l1', 'l2', 'l3', 'l4', 'l5']) await p.api('POST', '/v1/connections', { token: w.apiKey, body: { domain: `${d}.${zone}` } })
    const seen: string[] = []
    let cursor: string | undefined
    do {
      const r = await p.api('GET', `/v1/connections?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { token: w.apiKey })
      expect(r.status).toBe(200)
      seen.push(...r.body.connections.map((c: { domain: string }) => c.domain))
      cursor = r.body.next_cursor
    } while (cursor)
    expect(seen).toEqual(['l1', 'l2', 'l3', 'l4', 'l5'].map((d) => `${d}.${zone}`))
    const count = await p.api('GET', '/v1/connections:count', { token: w.apiKey })
    expect(count.body).toEqual({ total: 5, by_status: { pending: 5 }, by_application: [{ application_id: w.appId, total: 5, by_status: { pending: 5 } }] })
    expect((await p.api('GET', '/v1/connections:count?status=bogus', { token: w.apiKey })).status).toBe(400)
    expect((await p.api('GET', '/v1/connections?cursor=bm9wZQ', { token: w.apiKey })).status).toBe(400)
    const wt = await widgetToken(p, w)
    expect((await p.api('GET', '/v1/connections:count', { token: wt })).status).toBe(403)
    // Another tenant sees none of them.
    const other = await provision(p)
    expect((await p.api('GET', '/v1/connections', { token: other.apiKey })).body.count).toBe(0)
  })

  test('a list page shows each connection as a read of it does, as it is now: after a change and after a disconnection', async () => {
    const w = await provision(p)
    const ids: string[] = []
    for (const d of ['v1', 'v2', 'v3']) ids.push((await p.api('POST', '/v1/connections', { token: w.apiKey, body: { domain: `${d}.${zone}` } })).body.id)
    const page = async () => (await p.api('GET', '/v1/connections', { token: w.apiKey })).body.connections as { id: string }[]
    const reads = async (list: { id: string }[]) => Promise.all(list.map(async (c) => (await p.api('GET', `/v1/connections/${c.id}`, { token: w.apiKey })).body))
    const first = await page()
    expect(first).toEqual(await reads(first))
    // Listed once (so this process holds them as they were), then changed and closed behind its back.
    const custom = [{ type: 'CNAME', host: 'v1', value: 'app.integrator.example' }]
    expect((await p.api('PUT', `/v1/connections/${ids[0]}/records`, { token: w.apiKey, body: { records: custom } })).status).toBe(200)
    expect((await p.api('DELETE', `/v1/connections/${ids[1]}`, { token: w.apiKey })).status).toBe(200)
    const after = await page()
    expect(after.map((c) => c.id)).toEqual([ids[0]!, ids[2]!])
    expect(after).toEqual(await reads(after))
    expect(after[0]).toMatchObject({ records_source: 'custom', records: [expect.objectContaining({ value: 'app.integrator.example' })] })
  })

  test('a domain-bound widget token acts only on its hostname', async () => {
    const w = await provision(p)
    const token = await widgetToken(p, w, { domain: `mine.${zone}` })
    const mine = await p.api('POST', '/v1/connections', { token, body: { domain: `mine.${zone}` } })
    expect(mine.status).toBe(201)
    const theirs = await p.api('POST', '/v1/connections', { token, body: { domain: `theirs.${zone}` } })
    expect(theirs.status).toBe(403)
    const check = await p.api('POST', '/v1/domains:check', { token, body: { domain: `theirs.${zone}` } })
    expect(check.status).toBe(403)
    const other = await p.api('POST', '/v1/connections', { token: w.apiKey, body: { domain: `theirs.${zone}` } })
    expect((await p.api('GET', `/v1/connections/${other.body.id}`, { token })).status).toBe(404)
    expect((await p.api('GET', `/v1/connections/${mine.body.id}`, { token })).status).toBe(200)
  })

  test('integrator-authored records: identical set is a no-op, a new set re-verifies', async () => {
    const c = await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: `custom.${zone}` } })
    const set = [{ type: 'CNAME', host: 'custom', value: 'app.integrator.example' }, { type: 'TXT', host: '_owner.custom', value: 'abc' }]
    const put = await p.api('PUT', `/v1/connections/${c.body.id}/records`, { token: ws.apiKey, body: { records: set } })
    expect(put.status).toBe(200)
    expect(put.body.records_source).toBe('custom')
    const before = (await p.db`select updated_at from connections where id = ${c.body.id}`)[0].updated_at
    const same = await p.api('PUT', `/v1/connections/${c.body.id}/records`, { token: ws.apiKey, body: { records: [...set].reverse() } })
    expect(same.status).toBe(200)
    expect((await p.db`select updated_at from connections where id = ${c.body.id}`)[0].updated_at).toEqual(before)
    const bad = await p.api('PUT', `/v1/connections/${c.body.id}/records`, { token: ws.apiKey, body: { records: [{ type: 'A', host: 'elsewhere', value: '1.2.3.4' }] } })
    expect(bad.status).toBe(400)
    const wt = await widgetToken(p, ws)
    expect((await p.api('PUT', `/v1/connections/${c.body.id}/records`, { token: wt, body: { records: set } })).status).toBe(403)
  })

  test('disconnecting a hand-made connection lists the records to remove; repeating answers the same', async () => {
    const c = await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: `gone.${zone}` } })
    const d = await p.api('POST', `/v1/connections/${c.body.id}:disconnect`, { token: ws.apiKey })
    expect(d.status).toBe(200)
    expect(d.body).toMatchObject({ connection_id: c.body.id, domain: `gone.${zone}`, disconnected: true, serving: 'stopped', certificate: 'removed', monitoring: 'stopped' })
    expect(d.body.records.left_in_place).toEqual([{ type: 'CNAME', name: `gone.${zone}`, value: EDGE, note: expect.any(String) }])
    expect(d.body.records.manual_steps).toHaveLength(1)
    const again = await p.api('DELETE', `/v1/connections/${c.body.id}`, { token: ws.apiKey })
    expect(again.status).toBe(200)
    expect(again.body).toEqual(d.body)
    expect((await p.api('GET', `/v1/connections/${c.body.id}`, { token: ws.apiKey })).status).toBe(404)
    expect((await events(c.body.id)).map((e) => e.type)).toEqual(eventsAlong('created', 'disconnected'))
    // The name is free again.
    expect((await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: `gone.${zone}` } })).status).toBe(201)
  })

  test('a widget token must be bound to the domain to remove it', async () => {
    const c = await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: `wrm.${zone}` } })
    const unbound = await widgetToken(p, ws)
    expect((await p.api('DELETE', `/v1/connections/${c.body.id}`, { token: unbound })).status).toBe(403)
    const bound = await widgetToken(p, ws, { domain: `wrm.${zone}` })
    expect((await p.api('DELETE', `/v1/connections/${c.body.id}`, { token: bound })).status).toBe(200)
  })
})

describe('verification sweep', () => {
  const queued = async (id: string) => (await p.db`select count(*)::int as n from verify_queue where connection_id = ${id}`)[0].n

  test('a record set replaced while its check is in flight: the stale result does not land', async () => {
    const domain = `race.${zone}`
    await pdns.setRecords(domain, 'CNAME', [`${EDGE}.`])
    const c = await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain } })
    const set = [{ type: 'CNAME', host: 'race', value: 'app.integrator.example' }]
    // The lookup finds the old record in place; meanwhile the integrator replaces the record set.
    const racing = {
      async lookup(name: string, type: 'CNAME') {
        const answer = await p.services.dns.lookup(name, type)
        if (name === domain) expect((await p.api('PUT', `/v1/connections/${c.body.id}/records`, { token: ws.apiKey, body: { records: set } })).status).toBe(200)
        return answer
      },
    }
    await sweepDue({ db: p.db, dns: racing as never, clock: p.clock })
    const after = await p.api('GET', `/v1/connections/${c.body.id}`, { token: ws.apiKey })
    expect(after.body.status).toBe('pending')
    expect((await events(c.body.id)).map((e) => e.type)).toEqual(eventsAlong('created', 'records_replaced'))
    expect(await queued(c.body.id)).toBe(1)
    // The next sweep checks the new set: not in DNS, so it stays pending.
    await sweep()
    expect((await p.api('GET', `/v1/connections/${c.body.id}`, { token: ws.apiKey })).body.status).toBe('pending')
  })

  test('one sweep at a time: a second sweeper returns at once', async () => {
    const domain = `solo.${zone}`
    await pdns.setRecords(domain, 'CNAME', [`${EDGE}.`])
    const c = await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain } })
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    const slow = {
      async lookup(name: string, type: 'CNAME') {
        await gate
        return p.services.dns.lookup(name, type)
      },
    }
    const first = sweepDue({ db: p.db, dns: slow as never, clock: p.clock })
    await Bun.sleep(100)
    expect(await sweep()).toBe(0)
    release()
    expect(await first).toBeGreaterThanOrEqual(1)
    expect((await p.api('GET', `/v1/connections/${c.body.id}`, { token: ws.apiKey })).body.status).toBe('live')
    expect(await queued(c.body.id)).toBe(0)
  })

  test('a disconnected connection leaves the queue when it comes due, unchecked', async () => {
    const c = await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: `left.${zone}` } })
    expect(await queued(c.body.id)).toBe(1)
    await p.api('DELETE', `/v1/connections/${c.body.id}`, { token: ws.apiKey })
    await sweep()
    expect(await queued(c.body.id)).toBe(0)
    expect((await events(c.body.id)).map((e) => e.type)).toEqual(eventsAlong('created', 'disconnected'))
  })
})

describe('connect target', () => {
  test('validation; pending connections follow a new target, placed ones get records_outdated', async () => {
    const w = await provision(p)
    const pendingC = await p.api('POST', '/v1/connections', { token: w.apiKey, body: { domain: `tp.${zone}` } })
    const placed = await p.api('POST', '/v1/connections', { token: w.apiKey, body: { domain: `tl.${zone}` } })
    await pdns.setRecords(`tl.${zone}`, 'CNAME', [`${EDGE}.`])
    expect((await p.api('POST', `/v1/connections/${placed.body.id}:recheck`, { token: w.apiKey })).body.status).toBe('live')

    for (const body of [{ cname_target: EDGE }, { cname_target: '10.0.0.1' }, { cname_target: 'localhost' }, { cname_target: 'x.example.com', apex_ipv4: ['192.168.0.1'] }, { cname_target: 'x.example.com', apex_ipv4: ['1.1.1.1', '1.1.1.2', '1.1.1.3', '1.1.1.4', '1.1.1.5'] }]) {
      const r = await p.api('PUT', `/v1/applications/${w.appId}/connect-target`, { token: w.apiKey, body })
      expect({ body, status: r.status }).toEqual({ body, status: 400 })
    }
    const put = await p.api('PUT', `/v1/applications/${w.appId}/connect-target`, { token: w.apiKey, body: { cname_target: 'Proxy.Integrator.example.com', apex_ipv4: ['93.184.216.34'] } })
    expect(put.status).toBe(200)
    expect(put.body).toEqual({
      application_id: w.appId,
      mode: 'custom',
      connect_target: { cname_target: 'proxy.integrator.example.com', apex_ipv4: ['93.184.216.34'] },
      edge: { cname_target: EDGE, apex_ipv4: ['203.0.114.10', '203.0.114.11'] },
    })
    const rp = await p.api('GET', `/v1/connections/${pendingC.body.id}/records`, { token: w.apiKey })
    expect(rp.body.records[0].value).toBe('proxy.integrator.example.com')
    const rl = await p.api('GET', `/v1/connections/${placed.body.id}`, { token: w.apiKey })
    expect(rl.body.records[0].value).toBe(EDGE)
    expect(rl.body.records_outdated).toBe(true)
    const ev = await events(placed.body.id)
    const outdated = ev.find((e) => e.type === 'connection.records_outdated')!.payload
    expect(outdated.connect_link).toContain(placed.body.id)
    expect(outdated.data.records).toEqual([{ type: 'CNAME', host: 'tl', value: 'proxy.integrator.example.com' }])
    // The same target again changes nothing and emits nothing.
    await p.api('PUT', `/v1/applications/${w.appId}/connect-target`, { token: w.apiKey, body: { cname_target: 'proxy.integrator.example.com', apex_ipv4: ['93.184.216.34'] } })
    expect((await events(placed.body.id)).filter((e) => e.type === 'connection.records_outdated')).toHaveLength(1)
    // Empty string returns to the edge.
    const back = await p.api('PUT', `/v1/applications/${w.appId}/connect-target`, { token: w.apiKey, body: { cname_target: '' } })
    expect(back.body.mode).toBe('edge')
  })
})

describe('agents and disconnect', () => {
  // The executor is the same for every face; here an agent principal calls the operation directly.
  async function asAgent(scopes: string[], connectionId: string, confirm?: string) {
    const { runOp } = await import('../../src/ops/run.ts')
    const { disconnectOp } = await import('../../src/ops/connect/disconnect.ts')
    const { ApiError } = await import('../../src/errors.ts')
    try {
      const r = await runOp(
        disconnectOp,
        { principal: { kind: 'AGENT', tenantId: ws.tenantId, clientId: 'cli_test', subject: 'agent', scopes }, db: p.db, clock: p.clock, config: p.config, services: p.services, requestId: 'req_t', ip: null },
        { params: { id: connectionId }, query: confirm === undefined ? {} : { confirm } },
      )
      return { status: r.status, body: r.body as any }
    } catch (err) {
      if (err instanceof ApiError) return { status: err.status, body: err.body() as any }
      throw err
    }
  }

  test('an agent needs domains:disconnect and its person\'s yes; confirm naming the domain is not enough', async () => {
    const c = await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: `agent.${zone}` } })
    const noScope = await asAgent(['domains:read'], c.body.id, `agent.${zone}`)
    expect(noScope.status).toBe(403)
    expect(noScope.body.code).toBe('insufficient_scope')
    const missing = await asAgent(['domains:disconnect'], c.body.id)
    expect(missing.status).toBe(400)
    expect(missing.body.code).toBe('confirmation_required')
    const other = await asAgent(['domains:disconnect'], c.body.id, `other.${zone}`)
    expect(other.status).toBe(409)
    expect(other.body.code).toBe('confirmation_mismatch')
    expect((await p.api('GET', `/v1/connections/${c.body.id}`, { token: ws.apiKey })).status).toBe(200)
    const named = await asAgent(['domains:disconnect'], c.body.id, `HTTPS://Agent.${zone.toUpperCase()}./path`)
    expect(named.status).toBe(400)
    expect(named.body.details.reason).toBe('person_confirmation')
    // The person's yes (given on the confirmation page, tested end to end in agent-grants.test.ts).
    const { markConfirmed } = await import('../../src/db/person-confirmations.ts')
    expect(await markConfirmed(p.db, named.body.details.confirmation_id, 'mem_person', p.clock.now(), 600_000)).toBeDefined()
    const ok = await asAgent(['domains:disconnect'], c.body.id, `HTTPS://Agent.${zone.toUpperCase()}./path`)
    expect(ok.status).toBe(200)
    expect(ok.body.disconnected).toBe(true)
  })
})
