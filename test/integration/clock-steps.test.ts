// The wall clock steps (NTP correcting a drifted host, a VM resumed): waits and timers run on the
// monotonic clock, so a step neither stalls nor hurries them; business time (the movable clock, wall
// based) moves with the step, as it should. The step is made in this process by moving Date.now, which
// is what the wall clock is to Portico (the movable clock reads it).
import { afterAll, afterEach, beforeAll, expect, test } from 'bun:test'
import { DueTimer } from '../../src/jobs/index.ts'
import { startPdns } from '../harness/pdns.ts'
import { provision, startPortico, type TestPortico, type Workspace } from '../harness/portico.ts'

const realNow = Date.now
const stepBack = (ms: number) => {
  const base = realNow.call(Date)
  const at = performance.now()
  Date.now = () => base - ms + (performance.now() - at)
}
afterEach(() => {
  Date.now = realNow
})

test('a due timer fires for work made due after the wall clock stepped back an hour, at its time, not at the next cron', async () => {
  let due: Date | null = new Date(Date.now() + 30)
  const fired: number[] = []
  const timer = new DueTimer(async () => due, () => fired.push(performance.now()), () => Date.now())
  try {
    timer.rearm()
    while (fired.length === 0) await Bun.sleep(10)
    // The sweep is still at the first item when the clock steps back; then new work comes due 300 ms
    // later by the new wall clock, and a notification re-arms the timer.
    stepBack(3_600_000)
    const t0 = performance.now()
    due = new Date(Date.now() + 300)
    timer.rearm()
    while (fired.length < 2 && performance.now() - t0 < 5_000) await Bun.sleep(10)
    expect(fired.length).toBe(2)
    expect(fired[1]! - t0).toBeGreaterThan(250)
    expect(fired[1]! - t0).toBeLessThan(2_000)
  } finally {
    timer.stop()
  }
})

let p: TestPortico
let ws: Workspace
const zone = `steps${Date.now().toString(36)}.test`
beforeAll(async () => {
  const pdns = await startPdns()
  await pdns.createZone(zone)
  p = await startPortico({ DNS_RESOLVERS: pdns.dnsAddress }, { poolSize: 4 })
  ws = await provision(p)
})
afterAll(async () => {
  await p?.close()
})

test('a long poll open across a one-hour step back answers when its wait is over', async () => {
  const made = await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: `poll.${zone}` } })
  expect(made.status).toBe(201)
  const first = await p.api('GET', `/v1/connections/${made.body.id}/status`, { token: ws.apiKey })
  const t0 = performance.now()
  const poll = p.api('GET', `/v1/connections/${made.body.id}/status?after=${first.body.version}&wait=3`, { token: ws.apiKey })
  await Bun.sleep(200)
  stepBack(3_600_000)
  const r = await poll
  const took = performance.now() - t0
  expect(r.status).toBe(200)
  expect(took).toBeGreaterThan(2_500)
  expect(took).toBeLessThan(4_500)
})
