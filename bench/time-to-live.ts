// bench/time-to-live: how soon a customer's DNS change is live, and how soon it is served over HTTPS,
// as a user meets it. Real PowerDNS (zones delegated to nameservers on port 53 of loopback), a real
// Caddy edge, a real Pebble CA, Portico with its workers, and a webhook receiver on loopback.
// 20 domains per variant (BENCH_DOMAINS), p50 / p95 / max in seconds:
// - click: the CNAME is written, then "I have added them" (:recheck) → `connection.live` webhook;
// - no click: the CNAME is written a second after the connection's first check → webhook;
// - certificate without a visitor: `connection.live` → Portico's certificate served by the edge;
// - backlog: 200 connections (BENCH_BACKLOG) go live together → every one has Portico's certificate;
// - no click behind a caching recursor (PowerDNS Recursor as DNS_RESOLVERS, negative cache at its default).
// Goals: click p95 ≤ 1 s, no click p95 ≤ 10 s (with or without the recursor), certificate p95 ≤ 3 s,
// backlog ≤ 60 s.
import { AUTH_NAMESERVERS } from '../test/harness/pdns.ts'
import { startRecursor } from '../test/harness/recursor.ts'
import { startServed } from '../test/harness/served.ts'
import { provision, startPortico, type TestPortico } from '../test/harness/portico.ts'
import { dropBenchDatabase } from './lib/util.ts'

const N = Number(process.env.BENCH_DOMAINS ?? 20)
const BACKLOG = Number(process.env.BENCH_BACKLOG ?? 200)
const tag = Date.now().toString(36)
const zone = `ttl${tag}.test`

/** Arrival time (performance.now) of each connection's `connection.live` webhook. */
const liveAt = new Map<string, number>()
const receiver = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  async fetch(req) {
    const e = (await req.json()) as { type: string; connection_id: string }
    if (e.type === 'connection.live' && !liveAt.has(e.connection_id)) liveAt.set(e.connection_id, performance.now())
    return new Response(null, { status: 204 })
  },
})

const served = await startServed(zone, { PORTICO_ROLE: 'all' })
const { pdns, p } = served
// The customers' zones are delegated to nameservers that answer on port 53, as on the internet.
const customers = `cust${tag}.test`
await pdns.createZone(customers, { nameservers: AUTH_NAMESERVERS })

async function workspace(portico: TestPortico) {
  const ws = await provision(portico)
  const hook = await portico.api('POST', '/v1/webhooks', { token: ws.apiKey, body: { url: `http://127.0.0.1:${receiver.port}/hook`, events: ['connection.live'] } })
  if (hook.status !== 201) throw new Error(`webhook: ${hook.status} ${JSON.stringify(hook.body)}`)
  return ws
}

const ws = await workspace(p)

function stats(secs: number[]): string {
  const s = [...secs].sort((a, b) => a - b)
  const at = (q: number) => s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!
  return `${at(0.5).toFixed(2)} / ${at(0.95).toFixed(2)} / ${s[s.length - 1]!.toFixed(2)}`
}

async function until(what: string, ok: () => Promise<boolean> | boolean, withinMs: number): Promise<void> {
  const end = performance.now() + withinMs
  while (!(await ok())) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(20)
  }
}

async function create(portico: TestPortico, apiKey: string, host: string): Promise<string> {
  const c = await portico.api('POST', '/v1/connections', { token: apiKey, body: { domain: `${host}.${customers}` } })
  if (c.status !== 201) throw new Error(`create ${host}: ${c.status} ${JSON.stringify(c.body)}`)
  return c.body.id
}

const cname = (host: string) => pdns.setRecords(`${host}.${customers}`, 'CNAME', [`${served.edgeHost}.`])

/** DNS written → `connection.live`, with a click or without; the times, in seconds. */
async function toLive(portico: TestPortico, apiKey: string, prefix: string, click: boolean): Promise<number[]> {
  return Promise.all(
    Array.from({ length: N }, async (_, i) => {
      const host = `${prefix}${i}`
      const id = await create(portico, apiKey, host)
      if (!click) await Bun.sleep(1000) // a second after the first check
      await cname(host)
      const written = performance.now()
      if (click) await portico.api('POST', `/v1/connections/${id}:recheck`, { token: apiKey })
      await until(`${host} live`, () => liveAt.has(id), 120_000)
      return (liveAt.get(id)! - written) / 1000
    }),
  )
}

/** True once the edge serves a certificate naming `host` (no visitor before: this is the first handshake that succeeds). */
const servedFor = (host: string) =>
  served
    .viaEdge(host)
    .then((r) => r.names.includes(host))
    .catch(() => false)

const click = await toLive(p, ws.apiKey, 'click', true)
console.log(`DNS written → connection.live, with a click:        ${stats(click)} s (p50 / p95 / max)`)
const noClick = await toLive(p, ws.apiKey, 'noclick', false)
console.log(`DNS written → connection.live, no click:            ${stats(noClick)} s`)

// Portico's own certificate, nobody visiting: `live` (the webhook) → the edge serves it. The edge is
// polled through Portico's database first (no TLS handshake that could make Caddy order on demand).
const certIds = await Promise.all(Array.from({ length: N }, (_, i) => create(p, ws.apiKey, `cert${i}`)))
const certHosts = certIds.map((_, i) => `cert${i}.${customers}`)
for (let i = 0; i < N; i++) await cname(`cert${i}`)
for (const id of certIds) await p.api('POST', `/v1/connections/${id}:recheck`, { token: ws.apiKey })
const certSecs = await Promise.all(
  certIds.map(async (id, i) => {
    await until(`cert ${id}`, async () => (await p.db`select 1 from certificates where connection_id = ${id} and status = 'issued'`).length > 0, 120_000)
    await until(`served ${id}`, () => servedFor(certHosts[i]!), 30_000)
    return (performance.now() - liveAt.get(id)!) / 1000
  }),
)
console.log(`connection.live → Portico's certificate served:     ${stats(certSecs)} s`)

// A backlog going live together.
const backlogIds: string[] = []
for (let i = 0; i < BACKLOG; i++) backlogIds.push(await create(p, ws.apiKey, `bl${i}`))
for (let i = 0; i < BACKLOG; i++) await cname(`bl${i}`)
const backlogStart = performance.now()
await Promise.all(backlogIds.map((id) => p.api('POST', `/v1/connections/${id}:recheck`, { token: ws.apiKey })))
await until(
  'backlog certificates',
  async () => ((await p.db`select count(*)::int as n from certificates where connection_id = any(${backlogIds}) and status = 'issued'`) as { n: number }[])[0]!.n === BACKLOG,
  300_000,
)
const backlogSecs = (performance.now() - backlogStart) / 1000
console.log(`backlog of ${BACKLOG} going live → every certificate issued: ${backlogSecs.toFixed(1)} s (CERT_CONCURRENCY ${p.config.certConcurrency})`)

// No click, behind a caching recursor as DNS_RESOLVERS.
const recursor = await startRecursor(`${pdns.nsAddresses[0]}:53`)
const behind = await startPortico({ DNS_RESOLVERS: recursor.address, EDGE_CNAME_TARGET: served.edgeHost, PORTICO_ROLE: 'all', WEBHOOK_ALLOW_LOOPBACK: '1' })
const ws2 = await workspace(behind)
const recursed = await toLive(behind, ws2.apiKey, 'rec', false)
console.log(`DNS written → connection.live, no click, recursor:  ${stats(recursed)} s`)

const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.ceil(0.95 * xs.length) - 1]!
const goals = [
  ['click p95 ≤ 1 s', p95(click) <= 1],
  ['no click p95 ≤ 10 s', p95(noClick) <= 10],
  ['no click behind a recursor p95 ≤ 10 s', p95(recursed) <= 10],
  ['live → certificate p95 ≤ 3 s', p95(certSecs) <= 3],
  [`backlog of ${BACKLOG} ≤ 60 s`, backlogSecs <= 60],
] as const
for (const [goal, met] of goals) console.log(`${met ? 'met' : 'NOT MET'}: ${goal}`)

await behind.close()
await recursor.stop()
await served.stop()
receiver.stop(true)
await dropBenchDatabase()
process.exit(0)
