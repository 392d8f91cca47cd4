// bench/widget-weight: what the widget costs a person on a slow phone. Real Portico on loopback
// (resolving through PowerDNS), Debian's Chromium driven by playwright-core with the DevTools "Fast 3G"
// profile (562.5 ms latency, 1.6 Mbit/s down, 750 kbit/s up, as Chromium's own preset) applied through
// CDP. A host page loads /widget.js and opens the widget for a domain at a known provider; measured:
// - bytes on the wire (encoded, headers included) and time until the manual records screen is shown,
//   from a cold cache;
// - the same with a warm HTTP cache (a second open in the same page: revalidations, 304s);
// - the bytes of each response, by path.
// BENCH_RUNS (default 3) cold runs; the median is reported.
import { chromium, type CDPSession, type Page } from 'playwright-core'
import { startPdns } from '../test/harness/pdns.ts'
import { provision, startPortico, widgetToken } from '../test/harness/portico.ts'
import { dropBenchDatabase, freePort } from './lib/util.ts'

const RUNS = Number(process.env.BENCH_RUNS ?? 3)
const EDGE = 'edge.portico.test'
const FAST_3G = { offline: false, latency: 562.5, downloadThroughput: ((1.6 * 1024 * 1024) / 8) * 0.9, uploadThroughput: ((750 * 1024) / 8) * 0.9 }

const pdns = await startPdns()
const port = await freePort()
const base = `http://127.0.0.1:${port}`
const p = await startPortico({ PUBLIC_URL: base, DNS_RESOLVERS: pdns.dnsAddress, EDGE_CNAME_TARGET: EDGE })
const server = p.app.listen({ port, hostname: '127.0.0.1' })
const ws = await provision(p)
const zone = `ww${Date.now().toString(36)}.test`
await pdns.createZone(zone)
const hostPage = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Host</title></head><body><script src="${base}/widget.js"></script></body></html>`
const host = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response(hostPage, { headers: { 'content-type': 'text/html' } }) })
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] })

interface Run {
  ms: number
  bytes: number
  byPath: Record<string, number>
}

/** Sums encoded bytes per path from CDP's Network.loadingFinished. */
function meter(cdp: CDPSession): { reset(): void; total(): number; byPath(): Record<string, number> } {
  const urls = new Map<string, string>()
  let sizes: [string, number][] = []
  cdp.on('Network.requestWillBeSent', (e: any) => urls.set(e.requestId, `${e.request.method} ${new URL(e.request.url).pathname.replace(/con_\w+/, '{id}').replace(/\/v1\.[0-9a-f]+\//, '/v…/')}`))
  cdp.on('Network.loadingFinished', (e: any) => sizes.push([urls.get(e.requestId) ?? '?', e.encodedDataLength]))
  return {
    reset: () => (sizes = []),
    total: () => sizes.reduce((s, [, n]) => s + n, 0),
    byPath: () => sizes.reduce<Record<string, number>>((o, [k, n]) => ((o[k] = (o[k] ?? 0) + n), o), {}),
  }
}

async function openOnce(page: Page, token: string, domain: string): Promise<number> {
  const t0 = await page.evaluate(() => performance.now())
  await page.evaluate(([app, tok, d]) => (window as any).Portico.open({ applicationId: app, token: tok, domain: d }), [ws.appId, token, domain] as const)
  await page.locator('#je-added').waitFor({ timeout: 120_000 })
  const t1 = await page.evaluate(() => performance.now())
  // The bytes of what the screen goes on to fetch (the provider's steps) count too: wait for them.
  await page.waitForTimeout(4000)
  await page.evaluate(() => (window as any).Portico.close())
  return t1 - t0
}

async function run(i: number): Promise<{ cold: Run; warm: Run }> {
  const context = await browser.newContext()
  const page = await context.newPage()
  const cdp = await context.newCDPSession(page)
  await cdp.send('Network.enable')
  await cdp.send('Network.emulateNetworkConditions', FAST_3G)
  const m = meter(cdp)
  const token = await widgetToken(p, ws)
  const start = performance.now()
  await page.goto(`http://127.0.0.1:${host.port}/`)
  await page.waitForFunction(() => typeof (window as any).Portico?.open === 'function')
  const loadMs = performance.now() - start
  const openMs = await openOnce(page, token, `cold${i}.${zone}`)
  const cold: Run = { ms: loadMs + openMs, bytes: m.total(), byPath: m.byPath() }
  m.reset()
  const start2 = performance.now()
  await page.reload()
  await page.waitForFunction(() => typeof (window as any).Portico?.open === 'function')
  const reloadMs = performance.now() - start2
  const warmOpen = await openOnce(page, token, `warm${i}.${zone}`)
  const warm: Run = { ms: reloadMs + warmOpen, bytes: m.total(), byPath: m.byPath() }
  await context.close()
  return { cold, warm }
}

try {
  const runs: { cold: Run; warm: Run }[] = []
  for (let i = 0; i < RUNS; i++) runs.push(await run(i))
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
  const show = (k: 'cold' | 'warm') => {
    const ms = median(runs.map((r) => r[k].ms))
    const bytes = median(runs.map((r) => r[k].bytes))
    console.log(`${k}: page load + open → manual records screen ${Math.round(ms)} ms (median of ${RUNS}), ${bytes} bytes on the wire`)
    for (const [path, n] of Object.entries(runs[0]![k].byPath).sort()) console.log(`  ${path.padEnd(48)} ${n}`)
  }
  show('cold')
  show('warm')
} finally {
  await browser.close()
  host.stop(true)
  await server.stop(true)
  await p.close()
  await pdns.stop()
  await dropBenchDatabase()
}
