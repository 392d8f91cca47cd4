// bench/verify: verifies 10,000 propagating connections against the local PowerDNS (the real sweep:
// lease, lookups, lifecycle, batched writes and outbox events) and prints connections per second next
// to the raw rate of the same DNS questions sent straight from a script, in the same run.
// Goal: at least 0.5 of the raw rate.
import { startPdns } from '../test/harness/pdns.ts'
import { benchWorkspace, dropBenchDatabase, fmt, publishCnames } from './lib/util.ts'
import { rawQueryRate } from './lib/dns-raw.ts'
import { Resolver } from '../src/adapters/resolver.ts'
import { sweepDue } from '../src/jobs/verify-sweep.ts'
import { newId } from '../src/ids.ts'
import { record } from './lib/record.ts'
import { cpuBetween, databaseCpu } from './lib/cpu.ts'

const N = Number(process.env.BENCH_CONNECTIONS ?? 10_000)
const EDGE = 'edge.portico.test'
const pdns = await startPdns()
const zone = `bench${Date.now().toString(36)}.test`
await pdns.createZone(zone)
const hosts = Array.from({ length: N }, (_, i) => `c${i}.${zone}`)
await publishCnames(pdns, zone, hosts, EDGE)
const { db, clock, now, tenant, app } = await benchWorkspace()

// Each round starts from freshly loaded tables, as the first did: deleting the previous round's rows
// instead would leave their dead versions in every index the sweep walks, and autovacuum at work.
async function seed() {
  await db`truncate events, monitor_state, verify_queue, connections cascade`
  const rows = hosts.map((h, i) => ({
    id: newId('con', now.getTime()),
    domain: h,
    sub: `c${i}`,
  }))
  for (let i = 0; i < rows.length; i += 2000) {
    await db`
      insert into connections (id, tenant_id, application_id, domain, apex_domain, status, desired_records, planned_target,
        verification_token, next_check_at, propagating_since, created_at, updated_at)
      select r.id, ${tenant.id}, ${app.id}, r.domain, ${zone}, 'propagating',
        jsonb_build_array(jsonb_build_object('type', 'CNAME', 'host', r.sub, 'value', ${EDGE}::text, 'ttl', 300)),
        jsonb_build_object('cname_target', ${EDGE}::text, 'apex_ipv4', '[]'::jsonb), 'tok', ${now}, ${now}, ${now}, ${now}
      from jsonb_to_recordset(${rows.slice(i, i + 2000)}::jsonb) as r(id text, domain text, sub text)`
  }
}

const resolver = new Resolver({ servers: [pdns.dnsAddress], timeoutMs: 5000 })
// A sweeper is a long-lived worker: the first round warms it (JIT, the pool's connections, their
// plan and catalog caches) and the raw script alike, and is shown but not counted. The machine is
// shared and noisy, so the figures are medians of the rounds after it, each pair run back to back.
const WARMUP = 1
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const raw: number[] = []
const verified: number[] = []
// CPU microseconds and statements per connection, summed over the counted rounds: this process (the
// raw script, or the sweep), PostgreSQL's backends for this database, and the DNS questions the sweep
// asked. On a busy machine these move less than the rates do.
const cost = { script: 0, sweep: 0, pg: 0, questions: 0, commits: 0, tuples: 0 }
const self = () => {
  const c = process.cpuUsage()
  return (c.user + c.system) / 1e6
}
let asked = 0
const dns = { lookup: (name: string, type: Parameters<Resolver['lookup']>[1]) => (asked++, resolver.lookup(name, type)) } as unknown as Resolver
const dbStats = async () => {
  const [s] = await db`select xact_commit::float8 as commits, (tup_returned + tup_fetched + tup_inserted + tup_updated + tup_deleted)::float8 as tuples
    from pg_stat_database where datname = current_database()`
  return s as { commits: number; tuples: number }
}
for (let round = 0; round < WARMUP + ROUNDS; round++) {
  const c0 = self()
  const r = await rawQueryRate(pdns.dnsAddress, hosts, 5, 64)
  const scriptCpu = self() - c0
  await seed()
  await db`select pg_stat_clear_snapshot()`
  const st0 = await dbStats()
  const pg0 = await databaseCpu(db)
  const q0 = asked
  const s0 = self()
  const started = performance.now()
  const total = await sweepDue({ db, dns, clock })
  const secs = (performance.now() - started) / 1000
  const sweepCpu = self() - s0
  const pgCpu = cpuBetween(pg0, await databaseCpu(db))
  if (round >= WARMUP) {
    cost.script += scriptCpu
    cost.sweep += sweepCpu
    cost.pg += pgCpu
    cost.questions += asked - q0
  }
  const [{ live }] = await db`select count(*)::int as live from connections where status = 'live'`
  if (total !== N || live !== N) throw new Error(`verified ${total}, live ${live}, expected ${N}`)
  const label = round < WARMUP ? 'warm-up' : `round ${round}`
  console.log(`${label}: raw DNS ${fmt(r)} q/s, verify ${fmt(N / secs)} connections/s (${(N / secs / r).toFixed(2)})`)
  if (round < WARMUP) continue
  raw.push(r)
  // The statistics collector reports with a delay: read after the round, before the next one writes.
  await Bun.sleep(1100)
  await db`select pg_stat_clear_snapshot()`
  const st1 = await dbStats()
  cost.commits += st1.commits - st0.commits
  cost.tuples += st1.tuples - st0.tuples
  verified.push(N / secs)
}
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}
const ratios = verified.map((v, i) => v / raw[i]!)
console.log(`verify (${N} propagating connections, one CNAME each, PowerDNS on loopback; medians of ${ROUNDS} rounds):`)
console.log(`  raw DNS queries from a script: ${fmt(median(raw))} q/s`)
console.log(`  portico verification sweep:   ${fmt(median(verified))} connections/s (every one went live, with its event)`)
const per = (x: number, scale = 1e6) => ((x / (ROUNDS * N)) * scale).toFixed(scale === 1 ? 2 : 1)
console.log(`  CPU a connection: sweep ${per(cost.sweep)} + postgres ${per(cost.pg)} µs; a raw question ${per(cost.script)} µs`)
console.log(`  a connection: ${per(cost.questions, 1)} DNS questions, ${per(cost.commits, 1)} commits, ${per(cost.tuples, 1)} tuples touched`)
console.log(`  ratio: ${median(ratios).toFixed(2)} (goal >= 0.50; rounds ${ratios.map((x) => x.toFixed(2)).join(', ')})`)
await record('verify', { ratio: median(ratios) }, `${median(ratios).toFixed(2)}: ${fmt(median(verified))} connections/s vs ${fmt(median(raw))} raw q/s (rounds ${ratios.map((x) => x.toFixed(2)).join(', ')})`, { connections: N, rounds: ROUNDS })
await resolver.close()
await db.close()
await dropBenchDatabase()
await pdns.stop()
