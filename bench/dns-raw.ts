// bench/dns-raw: the raw DNS rate other benchmarks compare against. Sends N A queries (default
// 10,000) with a bounded window in flight straight over UDP and prints queries per second.
//   bun bench/dns-raw.ts [server host:port] [N] [concurrency]
// Without a server it starts the test PowerDNS and asks for N names that exist there.
import { rawQueryRate } from './lib/dns-raw.ts'
import { startPdns } from '../test/harness/pdns.ts'
import { fmt } from './lib/util.ts'

const [serverArg, nArg, cArg] = process.argv.slice(2)
const N = Number(nArg ?? 10_000)
const concurrency = Number(cArg ?? 200)
const A = 1

let server = serverArg
let names: string[]
if (server) {
  names = Array.from({ length: N }, (_, i) => `c${i}.bench.test`)
} else {
  const pdns = await startPdns()
  const zone = `raw${Date.now().toString(36)}.test`
  await pdns.createZone(zone)
  names = Array.from({ length: N }, (_, i) => `c${i}.${zone}`)
  // One wildcard answers every name with an A record: the zone stays small, the answers real.
  await pdns.setRecords(`*.${zone}`, 'A', ['192.0.2.10'])
  server = pdns.dnsAddress
}

const rounds: number[] = []
for (let round = 0; round < 3; round++) rounds.push(await rawQueryRate(server, names, A, concurrency))
console.log(`raw DNS (${N} A queries, ${concurrency} in flight, ${server}):`)
console.log(`  rounds: ${rounds.map((r) => fmt(r)).join(', ')} q/s`)
console.log(`  best:   ${fmt(Math.max(...rounds))} q/s`)
process.exit(0)
