// Events as an integrator builds against them: one connection's events reach a receiver in order
// (each carries its connection's sequence), a receiver that was away for ten minutes catches up
// through the events API and a replay, a test event of any type can be sent to an endpoint, events
// are kept for the stated time. Every body a receiver gets is verified with `standardwebhooks` and
// checked against the event registry.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { Webhook } from 'standardwebhooks'
import { startPdns, type Pdns } from '../harness/pdns.ts'
import { provision, startPortico, widgetToken, type TestPortico, type Workspace } from '../harness/portico.ts'
import { deliverAll } from '../../src/domain/webhook-delivery.ts'
import { assertEventValid, EVENT_TYPES } from '../../src/domain/events.ts'
import { deleteOldEvents } from '../../src/jobs/event-retention.ts'
import { eventsAlong, type Step } from '../../src/domain/transitions.ts'

let pdns: Pdns
let p: TestPortico
let zone: string
const EDGE = 'edge.portico.test'

interface Got {
  id: string
  event: Record<string, any>
}

/** A loopback receiver that verifies each delivery (Standard Webhooks) and checks it against the registry; `answer` decides the status. */
function receiver(secret: () => string, answer: (e: Record<string, any>, n: number) => number = () => 200) {
  const got: Got[] = []
  const taken: Got[] = []
  let n = 0
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      const body = await req.text()
      // The signature as standardwebhooks computes it, the timestamp within five minutes of the (moved) clock.
      const [id, ts] = [req.headers.get('webhook-id')!, Number(req.headers.get('webhook-timestamp'))]
      const expected = new Webhook(secret()).sign(id, new Date(ts * 1000), body)
      if (!req.headers.get('webhook-signature')!.split(' ').includes(expected)) throw new Error('bad signature')
      if (Math.abs(ts - p.clock.now().getTime() / 1000) > 300) throw new Error('stale timestamp')
      const event = JSON.parse(body) as Record<string, any>
      expect(event.id).toBe(id)
      assertEventValid(event)
      const r = { id: event.id as string, event }
      got.push(r)
      const status = answer(event, ++n)
      if (status < 300) taken.push(r)
      return new Response(null, { status })
    },
  })
  return { got, taken, url: `http://127.0.0.1:${server.port}/hooks`, stop: () => server.stop(true) }
}

const deliver = () => deliverAll({ db: p.db, clock: p.clock, config: p.config, dns: p.services.dns })

beforeAll(async () => {
  pdns = await startPdns()
  zone = `ev${Date.now().toString(36)}.test`
  await pdns.createZone(zone)
  p = await startPortico({ DNS_RESOLVERS: pdns.dnsAddress, EDGE_CNAME_TARGET: EDGE, WEBHOOK_ALLOW_LOOPBACK: '1' })
})

afterAll(async () => {
  await p?.close()
})

/** A connection that goes through created → live → records_outdated → disconnected: four events, in that order. */
async function lifecycle(ws: Workspace, label: string, metadata: Record<string, string> = {}) {
  const domain = `${label}.${zone}`
  const c = await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain, end_user_ref: `cust-${label}`, metadata } })
  expect(c.status).toBe(201)
  await pdns.setRecords(domain, 'CNAME', [`${EDGE}.`])
  expect((await p.api('POST', `/v1/connections/${c.body.id}:recheck`, { token: ws.apiKey })).body.status).toBe('live')
  return { id: c.body.id as string, domain }
}

/** The path `lifecycle` walks, and `outdateAndDisconnect` after it (src/domain/transitions.ts gives their events). */
const LIFECYCLE: Step[] = ['created', 'said_added', 'records_resolved']
const OUTDATE_AND_DISCONNECT: Step[] = ['connection.records_outdated', 'disconnected']
/** The events of `then`, walked after `before`. */
const eventsAfter = (before: Step[], then: Step[]) => eventsAlong(...before, ...then).slice(eventsAlong(...before).length)

async function outdateAndDisconnect(ws: Workspace, id: string) {
  expect((await p.api('PUT', `/v1/applications/${ws.appId}/connect-target`, { token: ws.apiKey, body: { cname_target: `other-${id.slice(-6)}.example.net` } })).status).toBe(200)
  expect((await p.api('POST', `/v1/connections/${id}:disconnect`, { token: ws.apiKey })).status).toBe(200)
}

describe('order', () => {
  test('one connection\'s events reach the receiver in order, even when the first fails and waits for its retry', async () => {
    const ws = await provision(p)
    let secret = ''
    // The first delivery is refused once: without ordering the later events would go past it.
    const rx = receiver(() => secret, (_e, n) => (n === 1 ? 500 : 200))
    try {
      const w = await p.api('POST', '/v1/webhooks', { token: ws.apiKey, body: { url: rx.url } })
      secret = w.body.secret
      const c = await lifecycle(ws, `ord-${Date.now().toString(36)}`, { plan: 'pro', account: 'a-17' })
      await outdateAndDisconnect(ws, c.id)

      await deliver()
      // Only the first was tried: the three after it wait behind it.
      expect(rx.got.map((g) => g.event.type)).toEqual(eventsAlong('created'))
      const log = await p.api('GET', '/v1/webhook-deliveries', { token: ws.apiKey })
      expect(log.body.deliveries.map((d: { event_type: string; delivered: boolean }) => [d.event_type, d.delivered])).toEqual([['connection.created', false]])

      p.clock.advance(11_000)
      await deliver()
      const taken = rx.taken.map((g) => g.event)
      expect(taken.map((e) => e.type)).toEqual(eventsAlong(...LIFECYCLE, ...OUTDATE_AND_DISCONNECT))
      expect(taken.map((e) => e.sequence)).toEqual(taken.map((_, i) => i + 1))
      // Ids are monotonic, and every event carries the connection's metadata and end user.
      expect([...taken.map((e) => e.id)].sort()).toEqual(taken.map((e) => e.id))
      for (const e of taken) expect(e).toMatchObject({ connection_id: c.id, metadata: { plan: 'pro', account: 'a-17' }, user_id: c.domain.split('.')[0]!.replace('ord-', 'cust-ord-') })
      // One shape per field: data.records is the same array of {type, host, value} on every event that has it.
      const created = taken.find((e) => e.type === 'connection.created')!
      const disconnected = taken.find((e) => e.type === 'connection.disconnected')!
      expect(created.data.records).toEqual([{ type: 'CNAME', host: created.subdomain, value: EDGE }])
      expect(disconnected.data.records).toEqual(created.data.records)
      expect(disconnected.data.removal).toMatchObject({ choice: 'remove', outcome: 'manual', via: 'manual' })
    } finally {
      p.clock.reset()
      rx.stop()
    }
  })

  test('connections do not wait for each other: another connection\'s events go while one is held', async () => {
    const ws = await provision(p)
    let secret = ''
    const rx = receiver(() => secret, (e) => (e.domain.startsWith('stuck-') ? 500 : 200))
    try {
      const w = await p.api('POST', '/v1/webhooks', { token: ws.apiKey, body: { url: rx.url } })
      secret = w.body.secret
      const t = Date.now().toString(36)
      const stuck = await lifecycle(ws, `stuck-${t}`)
      const free = await lifecycle(ws, `free-${t}`)
      await deliver()
      expect(rx.taken.map((g) => [g.event.connection_id, g.event.type])).toEqual(eventsAlong(...LIFECYCLE).map((t) => [free.id, t]))
      expect(rx.got.filter((g) => g.event.connection_id === stuck.id).map((g) => g.event.type)).toEqual(eventsAlong('created'))
    } finally {
      rx.stop()
    }
  })
})

describe('catching up', () => {
  test('a receiver away for ten minutes catches up through the events API, then by a replay of its failed deliveries', async () => {
    const ws = await provision(p)
    let secret = ''
    let away = true
    const rx = receiver(() => secret, () => (away ? 503 : 200))
    try {
      const w = await p.api('POST', '/v1/webhooks', { token: ws.apiKey, body: { url: rx.url } })
      secret = w.body.secret
      const before = await lifecycle(ws, `pre-${Date.now().toString(36)}`)
      away = false
      await deliver()
      expect(rx.taken.map((g) => g.event.type)).toEqual(eventsAlong(...LIFECYCLE))
      const lastSeen = rx.taken[rx.taken.length - 1]!.event

      // Away: everything that happens in the next ten minutes is refused until its attempts run out.
      away = true
      const wentAway = p.clock.now()
      const t = Date.now().toString(36)
      const a = await lifecycle(ws, `away-a-${t}`)
      const b = await lifecycle(ws, `away-b-${t}`)
      await outdateAndDisconnect(ws, before.id)
      for (let minute = 0; minute < 10; minute++) {
        await deliver()
        p.clock.advance(61_000)
      }
      const refused = new Set(rx.got.filter((g) => !rx.taken.includes(g)).map((g) => g.event.id))
      expect(refused.size).toBeGreaterThan(0)

      // Back: the events API answers everything since it went away, oldest first, each exactly as delivered.
      away = false
      const seen = new Set(rx.taken.map((g) => g.event.id))
      const caught: Record<string, any>[] = []
      let cursor: string | undefined
      do {
        const q = new URLSearchParams({ created_after: new Date(wentAway.getTime() - 60_000).toISOString(), limit: '2', ...(cursor ? { cursor } : {}) })
        const page = await p.api('GET', `/v1/events?${q}`, { token: ws.apiKey })
        expect(page.status).toBe(200)
        expect(page.body.retention_days).toBe(30)
        caught.push(...page.body.events.filter((e: { id: string }) => !seen.has(e.id)))
        cursor = page.body.next_cursor
      } while (cursor)
      // a and b: their lifecycle and the new target's records_outdated; the earlier one: outdated, then disconnected.
      const outdatedToo = eventsAlong(...LIFECYCLE, 'connection.records_outdated')
      expect(caught.map((e) => [e.connection_id, e.type]).sort()).toEqual(
        [...outdatedToo.map((t) => [a.id, t]), ...outdatedToo.map((t) => [b.id, t]), ...eventsAfter(LIFECYCLE, OUTDATE_AND_DISCONNECT).map((t) => [before.id, t])].sort(),
      )
      expect(caught.map((e) => e.id)).toEqual([...caught.map((e) => e.id)].sort())
      for (const id of refused) expect(caught.some((e) => e.id === id)).toBe(true)
      for (const e of caught) {
        assertEventValid(e)
        const delivered = rx.got.find((g) => g.event.id === e.id)
        if (delivered) expect(e).toEqual(delivered.event)
      }
      // One connection from the last sequence it saw: exactly what followed, in order.
      const after = await p.api('GET', `/v1/events?connection_id=${before.id}&after_sequence=${lastSeen.sequence}`, { token: ws.apiKey })
      expect(after.body.events.map((e: { type: string; sequence: number }) => [e.sequence, e.type])).toEqual(
        eventsAfter(LIFECYCLE, OUTDATE_AND_DISCONNECT).map((t, i) => [lastSeen.sequence + 1 + i, t]),
      )
      const live = await p.api('GET', `/v1/events?type=connection.live&created_after=${encodeURIComponent(wentAway.toISOString())}`, { token: ws.apiKey })
      expect(live.body.events.map((e: { connection_id: string }) => e.connection_id).sort()).toEqual([a.id, b.id].sort())
      const one = await p.api('GET', `/v1/events/${caught[0]!.id}`, { token: ws.apiKey })
      expect(one.body).toEqual(caught[0])

      // Or the endpoint asks for its failed deliveries again; what was still queued goes on its own.
      const replay = await p.api('POST', `/v1/webhooks/${w.body.id}:replay`, { token: ws.apiKey, body: { since: wentAway.toISOString() } })
      expect(replay.status).toBe(200)
      expect(replay.body).toMatchObject({ endpoint_id: w.body.id, more: false })
      expect(replay.body.replayed).toBeGreaterThan(0)
      expect(replay.body.event_ids.length).toBe(replay.body.replayed)
      const again = await p.api('POST', `/v1/webhooks/${w.body.id}:replay`, { token: ws.apiKey, body: { since: wentAway.toISOString() } })
      expect(again.body.replayed).toBe(0)
      const takenBefore = rx.taken.length
      await deliver()
      expect(new Set(rx.taken.map((g) => g.event.id))).toEqual(new Set([...seen, ...caught.map((e) => e.id)]))
      // The replayed ones of each connection arrive in sequence order (after any of its own still queued, which went on its own).
      const replayed = rx.taken.slice(takenBefore).map((g) => g.event).filter((e) => replay.body.event_ids.includes(e.id))
      expect(replayed.length).toBe(replay.body.replayed)
      for (const id of [a.id, b.id, before.id]) {
        const seqs = replayed.filter((e) => e.connection_id === id).map((e) => e.sequence)
        expect(seqs).toEqual([...seqs].sort((x, y) => x - y))
      }
    } finally {
      p.clock.reset()
      rx.stop()
    }
  }, 120_000)
})

describe('test events and the events API\'s authority', () => {
  test('an endpoint can be sent a test event of every type, signed, marked test, readable by id and never listed', async () => {
    const ws = await provision(p)
    let secret = ''
    const rx = receiver(() => secret)
    try {
      // Subscribed to one type: a test event of any type still goes to it.
      const w = await p.api('POST', '/v1/webhooks', { token: ws.apiKey, body: { url: rx.url, events: ['connection.live'] } })
      secret = w.body.secret
      for (const type of EVENT_TYPES) {
        const r = await p.api('POST', `/v1/webhooks/${w.body.id}:test`, { token: ws.apiKey, body: { type } })
        expect({ type, status: r.status }).toEqual({ type, status: 200 })
        expect(r.body.attempt).toMatchObject({ status_code: 200, delivered: true, event_type: type })
        expect(r.body.event).toMatchObject({ type, test: true, application_id: ws.appId })
      }
      expect(rx.got.map((g) => g.event.type)).toEqual(EVENT_TYPES)
      expect(rx.got.every((g) => g.event.test === true)).toBe(true)
      const one = await p.api('GET', `/v1/events/${rx.got[0]!.id}`, { token: ws.apiKey })
      expect(one.body).toEqual(rx.got[0]!.event)
      expect((await p.api('GET', '/v1/events', { token: ws.apiKey })).body.events).toEqual([])
      expect((await p.api('POST', `/v1/webhooks/${w.body.id}:test`, { token: ws.apiKey, body: { type: 'connection.nothing' } })).status).toBe(400)
    } finally {
      rx.stop()
    }
  })

  test('API keys and application-scoped widget tokens read their own events; end-user tokens and other tenants do not', async () => {
    const ws = await provision(p)
    const other = await provision(p)
    const c = await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: `auth-${Date.now().toString(36)}.${zone}` } })
    const list = await p.api('GET', '/v1/events', { token: ws.apiKey })
    const created = list.body.events.find((e: { connection_id: string }) => e.connection_id === c.body.id)
    expect(created).toMatchObject({ type: 'connection.created', sequence: 1 })
    const app = await widgetToken(p, ws, { scope: 'app' })
    expect((await p.api('GET', `/v1/events/${created.id}`, { token: app })).body).toEqual(created)
    for (const token of [await widgetToken(p, ws), await widgetToken(p, ws, { domain: c.body.domain })]) {
      expect((await p.api('GET', '/v1/events', { token })).status).toBe(403)
    }
    expect((await p.api('GET', `/v1/events/${created.id}`, { token: other.apiKey })).status).toBe(404)
    expect((await p.api('GET', `/v1/events?app_id=${ws.appId}`, { token: other.apiKey })).status).toBe(404)
    expect((await p.api('GET', '/v1/events', { token: other.apiKey })).body.events).toEqual([])
    expect((await p.api('GET', '/v1/events?after_sequence=1', { token: ws.apiKey })).status).toBe(400)
  })

  test('events are kept 30 days, then leave (one a delivery still waits for stays)', async () => {
    const ws = await provision(p)
    try {
      const c = await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: `old-${Date.now().toString(36)}.${zone}` } })
      const [created] = (await p.api('GET', `/v1/events?connection_id=${c.body.id}`, { token: ws.apiKey })).body.events
      p.clock.advance(29 * 86_400_000)
      await deleteOldEvents(p.db, p.clock.now(), p.config.eventRetentionDays)
      expect((await p.api('GET', `/v1/events/${created.id}`, { token: ws.apiKey })).status).toBe(200)
      p.clock.advance(2 * 86_400_000)
      await deleteOldEvents(p.db, p.clock.now(), p.config.eventRetentionDays)
      expect((await p.api('GET', `/v1/events/${created.id}`, { token: ws.apiKey })).status).toBe(404)
    } finally {
      p.clock.reset()
    }
  })
})

describe('finding a connection', () => {
  test('by domain and by end_user_ref; bulk items with their own end user and metadata', async () => {
    const ws = await provision(p)
    const t = Date.now().toString(36)
    const bulk = await p.api('POST', '/v1/connections:bulk', {
      token: ws.apiKey,
      body: { end_user_ref: 'batch', domains: [`b1-${t}.${zone}`, { domain: `b2-${t}.${zone}`, end_user_ref: 'cust-b2', metadata: { order: '77' } }] },
    })
    expect(bulk.body.results.map((r: { status: string }) => r.status)).toEqual(['connected', 'connected'])
    const byDomain = await p.api('GET', `/v1/connections?domain=${encodeURIComponent(`B2-${t}.${zone}.`)}`, { token: ws.apiKey })
    expect(byDomain.body.connections.map((c: Record<string, unknown>) => [c.domain, c.end_user_ref, c.metadata])).toEqual([[`b2-${t}.${zone}`, 'cust-b2', { order: '77' }]])
    const byUser = await p.api('GET', '/v1/connections?end_user_ref=batch', { token: ws.apiKey })
    expect(byUser.body.connections.map((c: Record<string, unknown>) => [c.domain, c.metadata])).toEqual([[`b1-${t}.${zone}`, {}]])
    const bad = await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: `b3-${t}.${zone}`, metadata: { 'no spaces': 'x' } } })
    expect(bad.status).toBe(400)
    const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v']))
    expect((await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: `b3-${t}.${zone}`, metadata: many } })).status).toBe(400)
  })
})
