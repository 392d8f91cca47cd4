// bench/dcv: from "records added" to "certificate on every edge", per validation path, as the person
// who adds the records meets it. Real PowerDNS (the customers' zone and Portico's DCV zone), a real
// Caddy edge, a real Pebble CA (resolving through PowerDNS), Portico with its workers. One domain
// at a time (a latency, not a throughput), 20 per path (BENCH_DOMAINS), p50 / p95 / max in seconds:
// - before cutover: the ownership TXT and the `_acme-challenge` CNAME to the DCV zone are written,
//   then "I have added them" (:recheck) → DNS-01 through the delegation → the edge serves the
//   certificate (the routing record is not even there yet);
// - usual (HTTP-01): the routing CNAME is written, then "I have added them" → live → HTTP-01 through
//   the edge → the edge serves the certificate.
// "On every edge" is the edge fleet's own judgement (every node up and holding it) for before-cutover,
// and a handshake at the edge naming the host for both. Prints its figures; not recorded.
import { startPdns } from '../test/harness/pdns.ts'
import { startServed } from '../test/harness/served.ts'
import { provision } from '../test/harness/portico.ts'
import { dropBenchDatabase } from './lib/util.ts'

const N = Number(process.env.BENCH_DOMAINS ?? 20)
const tag = Date.now().toString(36)
const zone = `dcvb${tag}.test`
const dcvZone = `dcvz${tag}.test`

const pdns = await startPdns()
await pdns.createZone(dcvZone)
const served = await startServed(zone, { PORTICO_ROLE: 'all', DCV_ZONE: dcvZone, DCV_PDNS_API_URL: pdns.apiUrl, DCV_PDNS_API_KEY: pdns.apiKey })
const { p } = served
const ws = await provision(p)

function stats(secs: number[]): string {
  const s = [...secs].sort((a, b) => a - b)
  const at = (q: number) => s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!
  return `${at(0.5).toFixed(2)} / ${at(0.95).toFixed(2)} / ${s[s.length - 1]!.toFixed(2)}`
}

async function until(what: string, ok: () => Promise<boolean>, withinMs: number): Promise<void> {
  const end = performance.now() + withinMs
  while (!(await ok())) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(20)
  }
}

const servedFor = (host: string) =>
  served
    .viaEdge(host)
    .then((r) => r.names.includes(host))
    .catch(() => false)

async function write(records: { type: string; host: string; value: string }[]) {
  for (const r of records) await pdns.setRecords(`${r.host}.${zone}`, r.type, [r.type === 'CNAME' ? `${r.value}.` : `"${r.value}"`])
}

/** Seconds from the records written to the certificate served, per domain. */
async function path(kind: 'before_cutover' | 'http'): Promise<number[]> {
  const out: number[] = []
  for (let i = 0; i < N; i++) {
    const host = `${kind === 'http' ? 'usual' : 'pre'}${i}`
    const c = await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: `${host}.${zone}`, ...(kind === 'http' ? {} : { validation: kind }) } })
    if (c.status !== 201) throw new Error(`create ${host}: ${c.status} ${JSON.stringify(c.body)}`)
    await write(c.body.records)
    const t0 = performance.now()
    await p.api('POST', `/v1/connections/${c.body.id}:recheck`, { token: ws.apiKey })
    if (kind === 'before_cutover') {
      await until(`${host} routing asked`, async () => (await p.api('GET', `/v1/connections/${c.body.id}`, { token: ws.apiKey })).body.validation_stage === 'awaiting_routing', 60_000)
    }
    await until(`${host} served`, () => servedFor(`${host}.${zone}`), 60_000)
    out.push((performance.now() - t0) / 1000)
  }
  return out
}

const pre = await path('before_cutover')
const usual = await path('http')
console.log(`records added → certificate on every edge, ${N} domains each (p50 / p95 / max, seconds):`)
console.log(`  before cutover (DNS-01 through the delegation): ${stats(pre)}`)
console.log(`  usual (HTTP-01 once live):                      ${stats(usual)}`)
console.log('  before cutover, visitors meet no broken HTTPS at all: the routing record is asked for only after this.')

await served.stop()
await dropBenchDatabase()
process.exit(0)
