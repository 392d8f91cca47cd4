// A connection's deliveries go one at a time (migrations/0120_event_order.sql): a new event's delivery
// is held while an earlier one of its connection is queued, and released when that one leaves. Here the
// two transactions meet in both orders a busy system has them (the earlier delivery leaving while the
// next event is being written, and the reverse), each committed in the order that used to leave the new
// delivery held for good with nothing ahead of it. A receiver gets both events, in order.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { startPortico, provision, type TestPortico, type Workspace } from '../harness/portico.ts'
import { testDatabaseUrl } from '../harness/db.ts'
import { connect, type Sql } from '../../src/db/sql.ts'
import { deliverAll } from '../../src/domain/webhook-delivery.ts'

let p: TestPortico
let ws: Workspace
let pool: Sql
let endpoint = ''
let n = 0
const got: { connection: string; sequence: number }[] = []
const receiver = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  async fetch(req) {
    const e = (await req.json()) as { sequence: number; data: { connection_id: string } }
    got.push({ connection: e.data.connection_id, sequence: e.sequence })
    return new Response(null, { status: 204 })
  },
})

beforeAll(async () => {
  p = await startPortico({ WEBHOOK_ALLOW_LOOPBACK: '1' })
  ws = await provision(p)
  pool = connect(await testDatabaseUrl(), 2)
  const w = await p.api('POST', '/v1/webhooks', { token: ws.apiKey, body: { url: `http://127.0.0.1:${receiver.port}/hook` } })
  expect(w.status).toBe(201)
  endpoint = w.body.id
})

afterAll(async () => {
  receiver.stop(true)
  await pool?.close()
  await p?.close()
})

/** Two sessions of their own, each with a transaction left open between steps. */
async function sessions() {
  const open = async () => {
    const c = (await pool.reserve()) as Sql & { release(): void }
    await c.unsafe('begin')
    return { sql: c, commit: async () => (await c.unsafe('commit'), c.release()) }
  }
  return [await open(), await open()] as const
}

/** One event of `connection` with its sequence, written as the event writer writes it (the fan-out queues its delivery). */
async function writeEvent(sql: Sql, connection: string, sequence: number): Promise<void> {
  const id = `evt_race${++n}${Date.now().toString(36)}`
  await sql`insert into events (id, tenant_id, application_id, connection_id, type, payload, created_at, sequence)
    values (${id}, ${ws.tenantId}, ${ws.appId}, ${connection}, 'connection.status_changed',
            json_build_object('sequence', ${sequence}::int, 'id', ${id}::text, 'type', 'connection.status_changed',
                              'data', json_build_object('connection_id', ${connection}::text)), now(), ${sequence})`
}

/** A delivered event leaves the queue as a drain's completion removes it. */
async function leaves(sql: Sql, connection: string, sequence: number): Promise<void> {
  await sql`delete from webhook_deliveries where endpoint_id = ${endpoint} and connection_id = ${connection} and sequence = ${sequence}`
}

/** What the receiver gets of one connection after the delivery workers ran (a drain, and the one it wakes). */
async function received(connection: string): Promise<number[]> {
  for (let i = 0; i < 3; i++) await deliverAll({ db: p.db, clock: p.clock, config: p.config, dns: p.services.dns })
  return got.filter((g) => g.connection === connection).map((g) => g.sequence)
}

describe('a delivery held behind one that is leaving the queue at that moment', () => {
  test('the earlier delivery leaves while the next event is being written: the next event still arrives', async () => {
    const con = `con_race_a${Date.now().toString(36)}`
    await writeEvent(p.db, con, 1)
    const [a, b] = await sessions()
    await leaves(a.sql, con, 1) // not committed yet: the writer below still sees it queued
    await writeEvent(b.sql, con, 2)
    await a.commit()
    await b.commit()
    expect(await received(con)).toEqual([2])
  })

  test('the next event is written while the earlier delivery leaves: the next event still arrives', async () => {
    const con = `con_race_b${Date.now().toString(36)}`
    await writeEvent(p.db, con, 1)
    const [a, b] = await sessions()
    await writeEvent(b.sql, con, 2) // not committed yet: the leaving delivery's release cannot see it
    await leaves(a.sql, con, 1)
    await a.commit()
    await b.commit()
    expect(await received(con)).toEqual([2])
  })

  test('without a race the order holds: events of one connection arrive one after the other, in order', async () => {
    const con = `con_race_c${Date.now().toString(36)}`
    for (const s of [1, 2, 3]) await writeEvent(p.db, con, s)
    const [held] = await p.db`select count(*)::int as n from webhook_deliveries where connection_id = ${con} and next_attempt_at = 'infinity'`
    expect(held.n).toBe(2)
    expect(await received(con)).toEqual([1, 2, 3])
  })
})
