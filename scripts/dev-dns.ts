// npm run dev:dns: a laptop's whole DNS world for the README tour. Starts PowerDNS on loopback (the
// Debian package the tests use, installed when missing and root) serving a demo zone, `example.com`,
// then starts Portico in development with its resolvers pointed at that PowerDNS, so a domain of the
// demo zone goes all the way to `live`. Writes DATA_DIR/dev-dns.env (PDNS_API, PDNS_KEY,
// DNS_RESOLVERS) for the tour, which adds the customer's record through the PowerDNS API.
// Ctrl-C stops both.
import { spawnSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'

const DEMO_ZONE = process.env.DEMO_ZONE || 'example.com'

function ensurePowerDns(): void {
  if (Bun.which('pdns_server') && Bun.which('sqlite3')) return
  const packages = ['pdns-server', 'pdns-backend-sqlite3', 'sqlite3']
  if (process.getuid?.() !== 0) {
    console.error(`dev:dns needs PowerDNS: sudo apt-get install -y --no-install-recommends ${packages.join(' ')}`)
    process.exit(1)
  }
  console.log(`installing ${packages.join(' ')}`)
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  for (const cmd of [['apt-get', 'update', '-qq'], ['apt-get', 'install', '-y', '-qq', '--no-install-recommends', ...packages]]) {
    if (spawnSync(cmd[0]!, cmd.slice(1), { stdio: 'inherit', env }).status !== 0) process.exit(1)
  }
}

ensurePowerDns()
// The test harness's PowerDNS: free loopback ports, caches off, killed with this process.
const { startPdns } = await import('../test/harness/pdns.ts')
const pdns = await startPdns()
await pdns.createZone(DEMO_ZONE)

const dataDir = resolve(process.env.DATA_DIR || './.data')
mkdirSync(dataDir, { recursive: true })
const envFile = join(dataDir, 'dev-dns.env')
const vars = { PDNS_API: pdns.apiUrl, PDNS_KEY: pdns.apiKey, DNS_RESOLVERS: pdns.dnsAddress, DEMO_ZONE }
writeFileSync(envFile, Object.entries(vars).map(([k, v]) => `${k}=${v}\n`).join(''), { mode: 0o600 })
console.log(`PowerDNS on ${pdns.dnsAddress} serves ${DEMO_ZONE}; its API is ${pdns.apiUrl}`)
console.log(`tour variables in ${envFile} (source it)`)

const portico = Bun.spawn([process.execPath, join(import.meta.dir, '../src/main.ts')], {
  env: { ...process.env, APP_ENV: process.env.APP_ENV || 'development', DATA_DIR: dataDir, DNS_RESOLVERS: pdns.dnsAddress },
  stdout: 'inherit',
  stderr: 'inherit',
})
const stop = (signal: NodeJS.Signals) => portico.kill(signal)
process.on('SIGINT', () => stop('SIGINT'))
process.on('SIGTERM', () => stop('SIGTERM'))
const code = await portico.exited
await pdns.stop()
process.exit(code)
