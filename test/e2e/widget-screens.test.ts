// Every widget screen (test/harness/widget-tour.ts) in Chromium, in every locale, looked at as a person
// on a phone would: each screen opens at its top with its title and its warnings in view at 375x667,
// no string runs out of the dialog (the overflow check on a screenshot's layout), the dialog's `lang`
// is the locale shown, Japanese headings break between phrases, only the status region is live; and
// axe-core finds nothing on any screen (through the shadow root) in English, French, Japanese and
// Arabic (right to left) at 375x667 and 1280x800; every other locale is walked at 375x667.
// Screenshots go to test-artifacts/widget-tour/<locale>/<width>x<height>/.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { mkdirSync, readFileSync } from 'node:fs'
import { chromium, type Browser, type Page } from 'playwright-core'
import { startPortico, type TestPortico } from '../harness/portico.ts'
import { tour, TOUR_SCREENS, type TourScreen } from '../harness/widget-tour.ts'
import { LOCALE_TAGS } from '../../src/widget/i18n.ts'

const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8')
const OUT = 'test-artifacts/widget-tour'
const PHONE = { width: 375, height: 667 }
const DESKTOP = { width: 1280, height: 800 }
const TIMEOUT = 300_000
let p: TestPortico
let server: { stop(force?: boolean): unknown }
let host: ReturnType<typeof Bun.serve>
let browser: Browser

beforeAll(async () => {
  const probe = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
  const port = probe.port!
  probe.stop(true)
  const base = `http://127.0.0.1:${port}`
  p = await startPortico({ PUBLIC_URL: base })
  server = p.app.listen({ port, hostname: '127.0.0.1' })
  const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Host</title></head><body><h1>Acme Sites</h1><script src="${base}/widget.js"></script></body></html>`
  host = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response(page, { headers: { 'content-type': 'text/html' } }) })
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] })
}, TIMEOUT)

afterAll(async () => {
  await browser?.close()
  host?.stop(true)
  await server?.stop(true)
  await p?.close()
})

/** What a person sees of the screen: layout facts measured in the page. */
function look(page: Page) {
  return page.evaluate(() => {
    // The dialog element (in the page: lang, dir, the heading and the screen's words) and its box (in its
    // shadow root): what is on screen is in either tree.
    const host = document.querySelector<HTMLElement>('[data-portico]')!
    const root = host.shadowRoot!.querySelector<HTMLElement>('.je-root')!
    const all = (sel: string) => [...host.querySelectorAll<HTMLElement>(sel), ...root.querySelectorAll<HTMLElement>(sel)]
    const box = root.getBoundingClientRect()
    const vh = window.innerHeight
    const inView = (el: Element | null) => {
      if (!el) return null
      const r = el.getBoundingClientRect()
      return r.top >= 0 && r.bottom <= vh && r.top >= box.top - 1
    }
    const overflowing = all('*')
      // Decorations and visually hidden text (screen-reader labels, the table head on a phone) are not read on screen.
      .filter((el) => !el.closest('.je-confetti,.je-sr') && el.getClientRects().length > 0 && !['INPUT', 'SELECT', 'TEXTAREA'].includes(el.tagName))
      .filter((el) => ![...(function* (e: Element | null) { for (; e && e !== root; e = e.parentElement) yield e })(el)].some((a) => getComputedStyle(a).clip !== 'auto'))
      .filter((el) => {
        const r = el.getBoundingClientRect()
        return r.right > box.right + 1 || r.left < box.left - 1 || el.scrollWidth > el.clientWidth + 1
      })
      .filter((el) => getComputedStyle(el).overflowX === 'visible' || el.scrollWidth > el.clientWidth + 1)
      .map((el) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}: ${el.textContent!.trim().slice(0, 40)}`)
    return {
      lang: host.getAttribute('lang'),
      dir: host.getAttribute('dir'),
      scrolledTop: root.scrollTop === 0,
      titleInView: inView(host.querySelector('h2')),
      warningInView: inView(all('.je-warn')[0] ?? null),
      firstConflictInView: inView(root.querySelector('#je-conflicts tbody tr')),
      horizontalScroll: root.scrollWidth > root.clientWidth + 1,
      overflowing: overflowing.slice(0, 5),
      live: all('[aria-live],[role="status"],[role="alert"]').map((el) => el.getAttribute('role') ?? `aria-live=${el.getAttribute('aria-live')}`),
      headingBreak: getComputedStyle(host.querySelector('h2')!).wordBreak,
    }
  })
}

async function axe(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: AXE })
  return page.evaluate(async () => {
    const r = await (window as any).axe.run(document.querySelector('[data-portico]'), { resultTypes: ['violations'] })
    return r.violations.map((v: any) => `${v.id}: ${v.nodes.map((n: any) => n.target.join(' ')).join(', ')}`)
  })
}

async function walk(locale: string, viewport: { width: number; height: number }, check: (page: Page, name: TourScreen) => Promise<void>): Promise<TourScreen[]> {
  const context = await browser.newContext({ viewport, locale })
  const page = await context.newPage()
  await page.clock.install()
  await page.goto(`http://127.0.0.1:${host.port}/`)
  await page.waitForFunction(() => typeof (window as any).Portico?.open === 'function')
  const seen: TourScreen[] = []
  const dir = `${OUT}/${locale}/${viewport.width}x${viewport.height}`
  mkdirSync(dir, { recursive: true })
  try {
    await tour({
      page,
      hostUrl: `http://127.0.0.1:${host.port}/`,
      locale,
      at: async (name) => {
        seen.push(name)
        await page.screenshot({ path: `${dir}/${name}.png` })
        await check(page, name)
      },
    })
  } finally {
    await context.close()
  }
  return seen
}

describe('every screen, as a person sees it', () => {
  const dirOf = (locale: string) => (['ar', 'he'].includes(locale) ? 'rtl' : 'ltr')
  for (const locale of ['en', 'fr', 'ja', 'ar']) {
    for (const viewport of [PHONE, DESKTOP]) {
      test(`${locale} at ${viewport.width}x${viewport.height}: at its top, title and warnings in view, nothing overflows, axe finds nothing`, async () => {
        const seen = await walk(locale, viewport, async (page, name) => {
          const l = await look(page)
          const { headingBreak, ...seenNow } = l
          expect({ name, ...seenNow }).toEqual({
            name,
            lang: locale,
            dir: dirOf(locale),
            scrolledTop: true,
            titleInView: true,
            // Warnings and the first record in the way, where the screen has them, are in view too.
            warningInView: l.warningInView === null ? null : true,
            firstConflictInView: l.firstConflictInView === null ? null : true,
            horizontalScroll: false,
            overflowing: [],
            // The one live region is the status region: screens are not re-read as they update.
            live: ['status'],
          })
          if (locale === 'ja') expect(['auto-phrase', 'keep-all']).toContain(headingBreak)
          expect({ name, violations: await axe(page) }).toEqual({ name, violations: [] })
        })
        expect(seen).toEqual([...TOUR_SCREENS])
      }, TIMEOUT)
    }
  }

  test('every other locale at 375x667: the locale shown is the dialog\'s lang, and no string overflows', async () => {
    for (const locale of LOCALE_TAGS.filter((l) => !['en', 'fr', 'ja', 'ar'].includes(l))) {
      await walk(locale, PHONE, async (page, name) => {
        const l = await look(page)
        expect({ locale, name, lang: l.lang, dir: l.dir, overflowing: l.overflowing, horizontalScroll: l.horizontalScroll, titleInView: l.titleInView }).toEqual({ locale, name, lang: locale, dir: dirOf(locale), overflowing: [], horizontalScroll: false, titleInView: true })
      })
    }
  }, TIMEOUT * 2)
})
