// bench/monitor: sweeps 20,000 watched (live) domains against the local PowerDNS with the real monitor
// sweep (enrolment, lookups, drift states, rank log, history and drift events with alerts on; 1% of
// the domains have lost their record) and prints domains per second next to the raw rate of the same
// DNS questions sent straight from a script, in the same run.
// Round 1 enrols every domain and makes its first check (every one written). Rounds 2 and 3 are the
// hourly watch as it runs: the clock moves five minutes per sweep, each sweep takes the slots that
// came round, and every domain is checked once per round. Goal: the hourly watch at least 0.5 of the
// raw rate. Also prints how many domains one process can watch hourly.
import { startPdns } from '../test/harness/pdns.ts'
import { benchWorkspace, dropBenchDatabase, fmt, publishCnames } from './lib/util.ts'
import { rawQueryRate } from './lib/dns-raw.ts'
import { Resolver } from '../src/adapters/resolver.ts'
import { HOUR } from '../src/clock.ts'
import { sweepMonitor } from '../src/jobs/monitor-sweep.ts'
import { MIN_GAP_MS } from '../src/domain/monitor.ts'
import { newId } from '../src/ids.ts'
import { record } from './lib/record.ts'
import { cpuBetween, databaseCpu } from './lib/cpu.ts'

const N = Number(process.env.BENCH_DOMAINS ?? 20_000)
const ROUNDS = 3
const EDGE = 'edge.portico.test'
const pdns = await startPdns()
const zone = `mbench${Date.now().toString(36)}.test`
await pdns.createZone(zone)
const hosts = Array.from({ length: N }, (_, i) => `m${i}.${zone}`)
// Every 100th domain has lost its record: the sweep flags it and writes its drift event.
await publishCnames(pdns, zone, hosts.filter((_, i) => i % 100 !== 0), EDGE)
const { db, clock, now, tenant, app } = await benchWorkspace()
const rows = hosts.map((h, i) => ({ id: newId('con', now.getTime()), domain: h, sub: `m${i}` }))
for (let i = 0; i < rows.length; i += 2000) {
  await db`
    insert into connections (id, tenant_id, application_id, domain, apex_domain, status, desired_records, planned_target,
      verification_token, live_at, created_at, updated_at)
    select r.id, ${tenant.id}, ${app.id}, r.domain, ${zone}, 'live',
      jsonb_build_array(jsonb_build_object('type', 'CNAME', 'host', r.sub, 'value', ${EDGE}::text, 'ttl', 300)),
      jsonb_build_object('cname_target', ${EDGE}::text, 'apex_ipv4', '[]'::jsonb), 'tok', ${now}, ${now}, ${now}
    from jsonb_to_recordset(${rows.slice(i, i + 2000)}::jsonb) as r(id text, domain text, sub text)`
}

const resolver = new Resolver({ servers: [pdns.dnsAddress], timeoutMs: 5000 })
// The sweeps run on a clock that moves only in five-minute steps, so each hour holds every slot once.
let at = clock.now().getTime()
// CPU microseconds per domain of the hourly watch (rounds 2 and 3): this process (the sweep, or the
// raw script), PostgreSQL's backends for this database, and the DNS questions the sweep asked.
const cost = { script: 0, sweep: 0, pg: 0, questions: 0 }
const self = () => {
  const c = process.cpuUsage()
  return (c.user + c.system) / 1e6
}
let asked = 0
const dns = { lookup: (name: string, type: Parameters<Resolver['lookup']>[1]) => (asked++, resolver.lookup(name, type)) } as unknown as Resolver
const deps = { db, dns, clock: { now: () => new Date(at) }, alerts: true }
const STEP = 5 * 60_000
const raw: number[] = []
const swept: number[] = []
for (let round = 0; round < ROUNDS; round++) {
  const c0 = self()
  raw.push(await rawQueryRate(pdns.dnsAddress, hosts, 5, 64))
  if (round > 0) cost.script += self() - c0
  const pg0 = await databaseCpu(db)
  const q0 = asked
  // Round 2 covers 70 minutes: slots within ten minutes of a domain's first check wait for the next hour.
  const steps = round === 0 ? 1 : round === 1 ? (HOUR + MIN_GAP_MS) / STEP : HOUR / STEP
  let total = 0
  let secs = 0
  for (let s = 0; s < steps; s++) {
    if (round > 0) at += STEP
    const started = performance.now()
    const s0 = self()
    total += await sweepMonitor(deps)
    if (round > 0) cost.sweep += self() - s0
    secs += (performance.now() - started) / 1000
  }
  if (round > 0) {
    cost.pg += cpuBetween(pg0, await databaseCpu(db))
    cost.questions += asked - q0
  }
  if (total !== N) throw new Error(`checked ${total}, expected ${N}`)
  swept.push(N / secs)
  console.log(`round ${round + 1}${round === 0 ? ' (enrol + first check, every domain written)' : ` (an hour of sweeps, ${steps} x 5 min)`}: raw DNS ${fmt(raw[round]!)} q/s, monitor ${fmt(swept[round]!)} domains/s`)
}
const [{ drift, events }] = await db`
  select (select count(*) from monitor_state where result = 'drift')::int as drift,
         (select count(*) from events where type = 'domain.record_missing')::int as events`
if (drift !== N / 100 || events !== N / 100) throw new Error(`drift ${drift}, events ${events}, expected ${N / 100}`)
const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length
const rate = avg(swept.slice(1))
const rawRate = avg(raw.slice(1))
console.log(`monitor (${N} live domains, one CNAME each, PowerDNS on loopback, ${N / 100} drifted with alerts on):`)
console.log(`  first check (round 1):         ${fmt(swept[0]!)} domains/s, ratio ${(swept[0]! / raw[0]!).toFixed(2)} to ${fmt(raw[0]!)} raw q/s`)
console.log(`  raw DNS queries from a script: ${fmt(rawRate)} q/s`)
console.log(`  portico hourly watch:          ${fmt(rate)} domains/s (${drift} drifted, ${events} drift events)`)
const per = (x: number, scale = 1e6) => ((x / ((ROUNDS - 1) * N)) * scale).toFixed(scale === 1 ? 2 : 1)
console.log(`  CPU a domain of the hourly watch: sweep ${per(cost.sweep)} + postgres ${per(cost.pg)} µs, ${per(cost.questions, 1)} DNS questions; a raw question ${per(cost.script)} µs`)
console.log(`  ratio: ${(rate / rawRate).toFixed(2)} (goal >= 0.50)`)
await record('monitor', { ratio: rate / rawRate }, `${(rate / rawRate).toFixed(2)}: hourly watch ${fmt(rate)} domains/s vs ${fmt(rawRate)} raw q/s (first check ${(swept[0]! / raw[0]!).toFixed(2)})`, { domains: N })
console.log(`  one process can watch about ${fmt(rate * 3600)} domains hourly at this rate (${fmt(rate * 3600 * 0.5)} at half its time)`)
await resolver.close()
await db.close()
await dropBenchDatabase()
await pdns.stop()
