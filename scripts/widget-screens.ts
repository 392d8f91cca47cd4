// Screenshots of every widget screen (test/harness/widget-tour.ts) at 375x667 and 1280x800, in English,
// French and Japanese by default, into test-artifacts/widget-screens/<locale>/<width>x<height>/.
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test bun scripts/widget-screens.ts [locale …]
// The widget is the real bundle served by a Portico on loopback; the API answers are scripted.
import { mkdirSync } from 'node:fs'
import { chromium } from 'playwright-core'
import { startPortico } from '../test/harness/portico.ts'
import { dropTestDatabase } from '../test/harness/db.ts'
import { tour } from '../test/harness/widget-tour.ts'

const LOCALES = process.argv.slice(2).length ? process.argv.slice(2) : ['en', 'fr', 'ja']
const VIEWPORTS = [
  { width: 375, height: 667 },
  { width: 1280, height: 800 },
]
const OUT = 'test-artifacts/widget-screens'

const probe = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
const port = probe.port!
probe.stop(true)
const base = `http://127.0.0.1:${port}`
const p = await startPortico({ PUBLIC_URL: base })
const server = p.app.listen({ port, hostname: '127.0.0.1' })
const HOST = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Acme Sites</title></head><body style="font-family:system-ui;margin:24px"><h1>Acme Sites</h1><p>Your site is almost ready.</p><script src="${base}/widget.js"></script></body></html>`
const host = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response(HOST, { headers: { 'content-type': 'text/html' } }) })
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] })
let shots = 0
try {
  for (const locale of LOCALES) {
    for (const vp of VIEWPORTS) {
      const dir = `${OUT}/${locale}/${vp.width}x${vp.height}`
      mkdirSync(dir, { recursive: true })
      const context = await browser.newContext({ viewport: vp, locale })
      const page = await context.newPage()
      await page.clock.install()
      await page.goto(`http://127.0.0.1:${host.port}/`)
      await page.waitForFunction(() => typeof (window as any).Portico?.open === 'function')
      await tour({
        page,
        hostUrl: `http://127.0.0.1:${host.port}/`,
        locale,
        at: async (name) => {
          await page.screenshot({ path: `${dir}/${name}.png` })
          shots++
        },
      })
      await context.close()
    }
  }
  console.log(`${shots} screenshots in ${OUT}/`)
} finally {
  await browser.close()
  host.stop(true)
  await server.stop(true)
  await p.close()
  await dropTestDatabase()
}
