// The widget SDK's pure parts: the bundle stays small and takes from the server only types, design
// tokens become `--je-` custom properties, every locale has every string (plurals by Intl.PluralRules),
// one locale rule, the 15 statuses are the contract's, fallback reasons and the integrator's record
// sets are picked as documented, and checkRecords answers `{inSync, records}`.
import { describe, test, expect } from 'bun:test'
import { gzipSync } from 'bun'
import { readdirSync, readFileSync } from 'node:fs'
import { brotliDecompressSync } from 'node:zlib'
import { join } from 'node:path'
import { widgetBundle, bundlePath } from '../../src/widget/build.ts'
import { DEFAULT_TOKENS, STYLESHEET, tokenDeclarations } from '../../src/widget/styles.ts'
import { over, parseColour, ratio } from '../../src/widget/colour.ts'
import { LOCALE_TAGS, loadTranslator, translator } from '../../src/widget/i18n.ts'
import { resolveLocale } from '../../src/widget/locale.ts'
import { TABLES } from '../../src/widget/locales/index.ts'
import { widget as en } from '../../src/widget/locales/en.ts'
import { STEPS } from '../../src/widget/types.ts'
import { fallbackReason, normalizeDomain, recordsFor } from '../../src/widget/machine.ts'
import { camel, checkRecords } from '../../src/widget/api.ts'

// English (the other locales are fetched when shown) and fourteen provider logos (about 5 KiB) live in the
// bundle; the shadow-root styling, the colour reader of the contrast guard and token renewal (issue 45) about 3.5 KiB.
const GZIP_BUDGET = 32 * 1024

describe('bundle', () => {
  test(`is one minified script under ${GZIP_BUDGET} bytes gzipped, exposing the seven methods`, async () => {
    const b = await widgetBundle()
    const gz = gzipSync(new TextEncoder().encode(b.code)).length
    console.log(`widget bundle: ${b.code.length} bytes, ${gz} bytes gzip`)
    expect(gz).toBeLessThan(GZIP_BUDGET)
    expect(new TextDecoder().decode(Bun.gunzipSync(b.gzip as Uint8Array<ArrayBuffer>))).toBe(b.code)
    expect(new TextDecoder().decode(brotliDecompressSync(b.br))).toBe(b.code)
    // The other locales are not in the bundle: they are served beside it.
    expect(b.code).not.toContain('Connectez votre domaine')
    expect([...b.locales.keys()].sort()).toEqual(LOCALE_TAGS.filter((l) => l !== 'en').sort())
    expect(b.code).toContain(b.localesVersion)
    // Minified: no comments and no indentation survive (the stylesheet keeps its line breaks).
    expect(b.code).not.toContain('Invariants')
    expect(b.code).not.toMatch(/\n[ \t]+\S/)
    for (const m of ['open', 'purchaseDomain', 'loadSharedFlow', 'checkDomain', 'checkRecords', 'load', 'close']) expect(b.code).toContain(`${m}:`)
    expect(bundlePath(b)).toBe(`/widget/v${b.version}/portico.js`)
    expect(await widgetBundle()).toBe(b)
  })
})

describe('design tokens', () => {
  const decl = (s: string) => Object.fromEntries(s.split(';').map((d) => d.split(/:(.*)/s).slice(0, 2) as [string, string]))

  test('defaults, colours, font, radius and free tokens become --je-<token> declarations', () => {
    const d = decl(tokenDeclarations({ colors: { primary: '#123456', Accent: 'red' }, font: 'Inter, sans-serif', borderRadius: 6, tokens: { 'space-4': '20px', 'Card Shadow': 'none' } }))
    expect(d['--je-color-primary']).toBe('#123456')
    expect(d['--je-color-accent']).toBe('red')
    expect(d['--je-font-family']).toBe('Inter, sans-serif')
    expect(d['--je-radius']).toBe('6px')
    expect(d['--je-space-4']).toBe('20px')
    expect(d['--je-card-shadow']).toBe('none')
    expect(d['--je-color-text']).toBe(DEFAULT_TOKENS['color-text']!)
    expect(Object.keys(d).every((k) => k.startsWith('--je-'))).toBe(true)
  })

  test('a token value cannot break out of its declaration', () => {
    const d = tokenDeclarations({ tokens: { x: 'red;} body{display:none' } })
    expect(d).toContain('--je-x:red bodydisplay:none')
    expect(d).not.toContain('}')
  })

  test('contrast guard: text on an unreadable primary colour becomes black or white, primary-coloured text falls back to the text colour', () => {
    const warn = console.warn
    const said: string[] = []
    console.warn = (m: string) => said.push(m)
    try {
      const yellow = decl(tokenDeclarations({ colors: { primary: '#ffd400' } }))
      expect(yellow['--je-color-primary-text']).toBe('#000000')
      expect(yellow['--je-color-link']).toBe(DEFAULT_TOKENS['color-text']!)
      const navy = decl(tokenDeclarations({ colors: { primary: '#102a6b', 'primary-text': '#203060' } }))
      expect(navy['--je-color-primary-text']).toBe('#ffffff')
      expect(navy['--je-color-link']).toBe('#102a6b')
      expect(said).toHaveLength(2)
      expect(decl(tokenDeclarations({}))['--je-color-primary-text']).toBe('#ffffff')
      expect(said).toHaveLength(2)
    } finally {
      console.warn = warn
    }
  })

  test('contrast guard: every replacement reads at 4.5:1 exactly as declared; a see-through background is replaced; text with alpha is judged as it shows', () => {
    const warn = console.warn
    console.warn = () => undefined
    try {
      const rgb = (v: string) => parseColour(v)!
      const themes: Record<string, string>[] = [
        { text: 'rgba(0,0,0,.2)' },
        { text: '#0003' },
        { text: '#777', muted: '#999' },
        { background: '#808080', text: '#909090', muted: '#8a8a8a', error: '#7a7a7a', success: '#858585' },
        { background: 'transparent', text: '#ccc' },
        { background: 'rgba(255,255,255,.5)' },
        { background: '#111827', text: '#f9fafb', primary: 'rgb(255,255,0)' },
      ]
      for (const colors of themes) {
        const d = decl(tokenDeclarations({ colors }))
        const bg = rgb(d['--je-color-background']!)
        expect([colors, bg[3]]).toEqual([colors, 1])
        const surface = over(rgb(d['--je-color-surface']!), bg)
        for (const k of ['text', 'muted', 'error', 'success']) {
          const c = rgb(d[`--je-color-${k}`]!)
          expect([colors, k, c[3]]).toEqual([colors, k, 1])
          expect([colors, k, ratio(c, bg) >= 4.5]).toEqual([colors, k, true])
        }
        for (const k of ['text', 'muted']) expect([colors, k, ratio(rgb(d[`--je-color-${k}`]!), surface) >= 4.5]).toEqual([colors, k, true])
      }
      expect(decl(tokenDeclarations({ colors: { background: 'transparent' } }))['--je-color-background']).toBe(DEFAULT_TOKENS['color-background']!)
    } finally {
      console.warn = warn
    }
  })

  test('every custom property the stylesheet reads has a default', () => {
    const used = [...STYLESHEET.matchAll(/var\(--je-([a-z0-9-]+)\)/g)].map((m) => m[1]!)
    expect(used.length).toBeGreaterThan(20)
    expect(used.filter((u) => !(u in DEFAULT_TOKENS))).toEqual([])
  })
})

describe('locales', () => {
  const forms = (m: unknown) => (typeof m === 'string' ? { other: m } : (m as Record<string, string>))
  const placeholders = (x: string) => (x.match(/\{\w+\}/g) ?? []).sort()

  test('at least 12 locales; every one has every key, with the same placeholders in every form', () => {
    expect(Object.keys(TABLES).sort()).toEqual([...LOCALE_TAGS].sort())
    expect(LOCALE_TAGS.length).toBeGreaterThanOrEqual(12)
    for (const [lang, table] of Object.entries(TABLES)) {
      expect([lang, Object.keys(table).sort()]).toEqual([lang, Object.keys(en).sort()])
      for (const k of Object.keys(en) as (keyof typeof en)[]) {
        const want = placeholders(forms(en[k]).other!)
        for (const [form, text] of Object.entries(forms(table[k]))) {
          expect([lang, k, form, text.trim().length > 0]).toEqual([lang, k, form, true])
          // A plural form may leave the number out ("one record" said as a word); nothing else may differ.
          expect([lang, k, form, placeholders(text).filter((p) => p !== '{count}')]).toEqual([lang, k, form, want.filter((p) => p !== '{count}')])
        }
      }
    }
  })

  test('plural messages have exactly the forms each language uses (Intl.PluralRules), and no "(s)"', () => {
    for (const [lang, table] of Object.entries(TABLES)) {
      const categories = new Intl.PluralRules(lang).resolvedOptions().pluralCategories.sort()
      for (const k of Object.keys(en) as (keyof typeof en)[]) {
        if (typeof en[k] === 'string') {
          expect([lang, k, typeof table[k]]).toEqual([lang, k, 'string'])
          expect([lang, k, /\(s\)|\(e\)s|\(n\)/.test(table[k] as string)]).toEqual([lang, k, false])
        } else expect([lang, k, Object.keys(table[k]).sort()]).toEqual([lang, k, categories])
      }
    }
    expect(translator('en').t('waitingFor', { count: 1 })).toBe('Still waiting for 1 record')
    expect(translator('en').t('waitingFor', { count: 2 })).toBe('Still waiting for 2 records')
    expect(translator('pl', TABLES.pl).t('waitingFor', { count: 5 })).not.toBe(translator('pl', TABLES.pl).t('waitingFor', { count: 2 }))
  })

  test('step lists have as many steps in every locale as in English', () => {
    for (const [lang, table] of Object.entries(TABLES)) {
      for (const k of ['stepsGeneric', 'stepsProvider'] as const) expect([lang, k, table[k].split('|').length]).toEqual([lang, k, en[k].split('|').length])
    }
  })

  test('one locale rule: canonical BCP 47 lookup, the first wanted that is served, else English', () => {
    expect(LOCALE_TAGS as readonly string[]).not.toContain('qaa') // ISO 639-2's reserved-for-local-use code: never a locale file
    expect(resolveLocale('fr-CA', LOCALE_TAGS)).toBe('fr')
    expect(resolveLocale('FR_ca', LOCALE_TAGS)).toBe('fr')
    expect(resolveLocale('zh-Hans-CN', LOCALE_TAGS)).toBe('zh')
    expect(resolveLocale('pt-BR-u-nu-latn', LOCALE_TAGS)).toBe('pt')
    expect(resolveLocale(['qaa', 'de-AT', 'fr'], LOCALE_TAGS)).toBe('de')
    expect(resolveLocale('not a tag', LOCALE_TAGS)).toBe('en')
    expect(resolveLocale(undefined, LOCALE_TAGS)).toBe('en')
  })

  test('a table is fetched only for the locale shown; one that cannot be fetched leaves English with lang "en"', async () => {
    const asked: string[] = []
    const ok = (async (url: string) => {
      asked.push(url)
      return Response.json(TABLES.fr)
    }) as unknown as typeof fetch
    const fr = await loadTranslator('fr-CA', 'https://w.example/widget/locales/abc', ok)
    expect([fr.locale, fr.t('titleApp', { app: 'Acme' }), asked]).toEqual(['fr', 'Connectez votre domaine à Acme', ['https://w.example/widget/locales/abc/fr.json']])
    expect((await loadTranslator('en-GB', 'https://w.example/x', ok)).locale).toBe('en')
    expect(asked).toHaveLength(1)
    const down = (async () => new Response('no', { status: 503 })) as unknown as typeof fetch
    const fallback = await loadTranslator('ja', 'https://w.example/x', down)
    expect([fallback.locale, fallback.t('added')]).toEqual(['en', 'I have added them'])
  })

  test('Japanese and Chinese put no space between a name in their own script and the sentence; a Latin name keeps its spaces', () => {
    const ja = translator('ja', TABLES.ja)
    expect(ja.t('shareBy', { app: ja.t('someApp'), domain: 'shop.example.com' })).toBe('このページを開いたサイトから、shop.example.com に次の DNS レコードを追加するよう依頼されています。')
    expect(ja.t('shareBy', { app: 'Acme', domain: 'shop.example.com' })).toBe('Acme から、shop.example.com に次の DNS レコードを追加するよう依頼されています。')
    const zh = translator('zh', TABLES.zh)
    expect(zh.t('titleApp', { app: zh.t('someApp') })).toBe('将您的域名连接到将您引导至此的网站')
    expect(zh.t('titleApp', { app: 'Acme' })).toBe('将您的域名连接到 Acme')
    // Other languages keep every space, and a right-to-left one still isolates the name.
    expect(translator('en').t('titleApp', { app: '日本の店' })).toEndWith(' 日本の店')
    expect(translator('ar', TABLES.ar).t('titleApp', { app: 'Acme' })).toContain('\u2068Acme\u2069')
  })

  test('dates, relative times and lists are said by Intl in the locale shown', () => {
    const ja = translator('ja', TABLES.ja)
    expect(ja.ago('2026-01-01T00:00:00Z', Date.parse('2026-01-01T00:02:00Z'))).toBe('2 分前')
    expect(translator('en').ago('2026-01-01T00:00:00Z', Date.parse('2026-01-01T00:00:01Z'))).toBe('1 second ago')
    expect(translator('fr', TABLES.fr).date('2026-03-12T10:00:00Z')).toBe('12 mars 2026')
    expect(translator('en').list(['a', 'b', 'c'])).toBe('a, b, and c')
  })
})

describe('statuses and routing', () => {
  // the API contract, section 3, "Widget statuses (15 fixed values)", in its order.
  const CONTRACT_STATUSES =
    '`INITIAL`, `ENTER_DOMAIN`, `DOMAIN_ANALYSIS`, `DOMAIN_SETUP`, `IN_PROGRESS`, `EXISTING_RECORDS`, `LOGIN`, `LOGIN_2FA`, `MANUAL_CONFIGURATION`, `PROVIDER_MANUAL_SELECTION`, `EXIT_WITH_ERROR`, `DKIM_SETUP`, `FINISHED_SUCCESSFULLY`, `FINISHED_SUCCESSFULLY_MANUAL`, `FINISHED_SUCCESSFULLY_LINK_SHARED`.'
  test("the 15 widget statuses are exactly the contract's", () => {
    expect([...STEPS] as string[]).toEqual([...CONTRACT_STATUSES.matchAll(/`([A-Z_0-9]+)`/g)].map((m) => m[1]!))
    expect(STEPS).toHaveLength(15)
  })

  test('browser code takes only types from the server (the imports the layer rule allows are type-only)', () => {
    const dir = join(import.meta.dir, '../../src/widget')
    const files = readdirSync(dir, { recursive: true }).map(String).filter((f) => f.endsWith('.ts'))
    const fromServer = files.flatMap((f) =>
      readFileSync(join(dir, f), 'utf8')
        .split('\n')
        .filter((l) => /from '\.\.\/(\.\.\/)?ops\//.test(l))
        .map((l) => `${f}: ${l}`),
    )
    expect(fromServer.length).toBeGreaterThan(0)
    expect(fromServer.filter((l) => !/^\S+: (import|export) type /.test(l))).toEqual([])
  })

  const rails = (over: Record<string, boolean> = {}) => ({ oauth: { available: !!over.oauth }, domainConnect: { available: !!over.dc }, apiKey: { available: !!over.apiKey }, manual: { available: true } })
  const conflict = { kind: 'routing' as const, type: 'A', host: 'a', value: '192.0.2.1', desired: { type: 'CNAME', host: 'a', value: 'x' }, action: 'remove' as const }
  test('fallback reasons', () => {
    expect(fallbackReason({ provider: null, rails: rails(), conflicts: [], supports_automatic: false }, false)).toBe('unknown_provider')
    expect(fallbackReason({ provider: 'x', rails: rails({ oauth: true }), conflicts: [conflict], supports_automatic: true }, false)).toBe('conflicts_exceed_tolerance')
    // A CAA set that stands in the way of HTTPS is shown beside the records, not routed on.
    const caa = { kind: 'certificate' as const, type: 'CAA' as const, host: '@', value: '0 issue "other.example"', desired: { type: 'CAA', host: '@', value: '0 issue "ca.example"' }, action: 'add' as const, reason: 'caa_forbids_ca' as const, blocks_certificate: true, fix: 'Add it' }
    expect(fallbackReason({ provider: 'x', rails: rails({ oauth: true }), conflicts: [caa], supports_automatic: true }, false)).toBe('no_end_user_rail')
    expect(fallbackReason({ provider: 'powerdns', rails: rails(), conflicts: [], supports_automatic: false }, false)).toBe('provider_unsupported')
    expect(fallbackReason({ provider: 'x', rails: rails({ apiKey: true }), conflicts: [], supports_automatic: true }, true)).toBe('no_end_user_rail')
  })

  test('domains are normalised and integrator records picked per domain', () => {
    expect(normalizeDomain(' HTTPS://Shop.Example.com/path?q ')).toBe('shop.example.com')
    expect(normalizeDomain('example.com.')).toBe('example.com')
    const r = [{ type: 'TXT', host: '@', value: 'v' }]
    expect(recordsFor(r, 'a.example')).toBe(r)
    expect(recordsFor({ 'a.example': r }, 'a.example')).toBe(r)
    expect(recordsFor({ 'a.example': r }, 'b.example')).toBeUndefined()
    expect(recordsFor(undefined, 'a.example')).toBeUndefined()
  })

  test('camelCase conversion is deep', () => {
    expect(camel({ recommended_rail: 'manual', rails: { domain_connect: { available: true } }, list: [{ in_sync: 1 }] })).toEqual({ recommendedRail: 'manual', rails: { domainConnect: { available: true } }, list: [{ inSync: 1 }] })
  })
})

describe('checkRecords', () => {
  test('posts the baseline to /monitor:check with the token and answers {inSync, records}', async () => {
    let seen: { auth: string | null; path: string; body: unknown } | null = null
    const stand = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      async fetch(req) {
        seen = { auth: req.headers.get('authorization'), path: new URL(req.url).pathname, body: await req.json() }
        return Response.json({ domain: 'a.example', in_sync: false, checked_at: '2026-01-01T00:00:00Z', records: [{ type: 'CNAME', host: 'a', status: 'record_missing', observed_values: [] }] })
      },
    })
    try {
      const r = await checkRecords('a.example', { auth: 'tok', apiBase: `http://127.0.0.1:${stand.port}/v1`, dnsRecords: [{ type: 'CNAME', host: 'a', value: 'edge.example', ttl: 300 }] })
      expect(seen!).toEqual({ auth: 'Bearer tok', path: '/v1/monitor:check', body: { domain: 'a.example', baseline: [{ type: 'CNAME', host: 'a', value: 'edge.example' }] } })
      expect(r).toEqual({ inSync: false, records: [{ type: 'CNAME', host: 'a', status: 'record_missing', observedValues: [] }] })
    } finally {
      stand.stop(true)
    }
  })
})

describe('getToken: the widget token renewed', () => {
  /** A token expiring at `exp` (seconds), issued at `iat` when given. */
  const jwt = (exp: number, iat?: number) => `h.${btoa(JSON.stringify({ exp, ...(iat === undefined ? {} : { iat }) })).replace(/=+$/, '')}.s`

  test('a minute before it expires, one renewal however many calls ask; a 401 asks once more, then the call is retried with the new token', async () => {
    const { Session, client } = await import('../../src/widget/api.ts')
    let now = 1_000_000
    let minted = 0
    const s = new Session(jwt(now / 1000 + 3600), async () => jwt(now / 1000 + 3600 + ++minted), () => now)
    expect(await s.current()).toBe(jwt(now / 1000 + 3600))
    expect(minted).toBe(0)
    now += 3600_000 - 30_000
    const [a, b] = await Promise.all([s.current(), s.current()])
    expect(minted).toBe(1)
    expect(a).toBe(b)
    // Refused: the stand-in answers 401 to the old token only.
    const good = new Set<string>()
    const stand = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (req) => (good.has(req.headers.get('authorization')!.slice(7)) ? Response.json({ ok: true }) : Response.json({ code: 'unauthorized', title: 'expired' }, { status: 401 })) })
    try {
      const renewing = new Session('old', async () => {
        good.add('new')
        return 'new'
      })
      expect(await client(`http://127.0.0.1:${stand.port}/v1`, renewing).call('GET', '/x')).toEqual({ ok: true })
      // Without getToken (or when it gives nothing) the 401 stands: a SessionError.
      const ended = new Session('old', async () => '')
      const err = await client(`http://127.0.0.1:${stand.port}/v1`, ended).call('GET', '/x').catch((e) => e)
      expect([err.status, err.sdkCode]).toEqual([401, 'SessionError'])
    } finally {
      stand.stop(true)
    }
  })

  test('a token refused before its expiry (revoked) while getToken fails this once is a renewable 401, asked again; an expired one, or one without getToken, is the end', async () => {
    const { Session, client } = await import('../../src/widget/api.ts')
    const live = jwt(Date.now() / 1000 + 3600)
    const expired = jwt(Date.now() / 1000 - 10)
    let asks = 0
    const stand = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (req) => (req.headers.get('authorization') === 'Bearer fresh' ? Response.json({ ok: true }) : Response.json({ code: 'unauthorized', title: 'revoked' }, { status: 401 })) })
    try {
      const api = (s: InstanceType<typeof Session>) => client(`http://127.0.0.1:${stand.port}/v1`, s)
      const flaky = new Session(live, async () => (++asks === 1 ? Promise.reject(new Error('integrator 500')) : 'fresh'))
      const first = await api(flaky).call('GET', '/x').catch((e) => e)
      expect([first.status, first.sdkCode, first.renewable]).toEqual([401, 'SessionError', true])
      // The next call asks getToken again (a 401 always asks once), and its token carries it.
      expect(await api(flaky).call('GET', '/x')).toEqual({ ok: true })
      expect(asks).toBe(2)
      // Judged by the token last sent: a renewal that hands out an expired token refused again is the end.
      for (const s of [new Session(expired, async () => ''), new Session(live), new Session(live, async () => expired)]) {
        const err = await api(s).call('GET', '/x').catch((e) => e)
        expect([err.status, err.renewable]).toEqual([401, false])
      }
    } finally {
      stand.stop(true)
    }
  })

  test('a getToken that throws at once (not a rejected promise) is asked again after 2 s like any failure, and its next token is used', async () => {
    const { Session } = await import('../../src/widget/api.ts')
    let now = 1_000_000
    const asked: number[] = []
    const s = new Session(jwt(now / 1000 + 50), () => {
      asked.push(now)
      if (asked.length === 1) throw new Error('blip')
      return jwt(now / 1000 + 3600)
    }, () => now)
    const start = now
    for (let t = 0; t < 3000; t += 500, now += 500) await s.current()
    expect(asked.map((a) => a - start)).toEqual([0, 2000])
    expect(await s.current()).toBe(jwt((start + 2000) / 1000 + 3600))
  })

  test('a renewal ahead of expiry does not hold a request up while the token held has more than 15 s left; after that the request waits for it', async () => {
    const { Session } = await import('../../src/widget/api.ts')
    let now = 1_000_000
    let give: (t: string) => void = () => {}
    let asked = 0
    const held = jwt(now / 1000 + 30)
    const s = new Session(held, () => {
      asked++
      return new Promise<string>((r) => (give = r))
    }, () => now)
    const settled = async (p: Promise<unknown>) => Promise.race([p.then(() => true), Bun.sleep(50).then(() => false)])
    // 30 s left: sent with the token held, at once, the renewal under way.
    expect(await s.current()).toBe(held)
    expect(asked).toBe(1)
    // 10 s left: the request waits for the renewal (the same one), and goes with its token.
    now += 20_000
    const waiting = s.current()
    expect(await settled(waiting)).toBe(false)
    give(jwt(now / 1000 + 3600))
    expect(await waiting).toBe(jwt(now / 1000 + 3600))
    expect(asked).toBe(1)
  })

  test('a one-minute token is renewed half-way through its life, not before every call', async () => {
    const { Session } = await import('../../src/widget/api.ts')
    let now = 1_000_000
    const short = (at: number) => jwt(at / 1000 + 60, at / 1000)
    const asked: number[] = []
    const s = new Session(short(now), async () => (asked.push(now), short(now)), () => now)
    const start = now
    // A call every second for two minutes.
    for (let t = 0; t < 120_000; t += 1000, now += 1000) await s.current()
    // Each at the first call with less than 30 s left: three tokens, not 120.
    expect(asked.map((a) => a - start)).toEqual([31_000, 62_000, 93_000])
  })

  test('a getToken that keeps failing is asked again after 2 s, then 4, 8, 16 and 30 s, not at every call; a token it gives ends the back-off', async () => {
    const { Session } = await import('../../src/widget/api.ts')
    let now = 1_000_000
    const asked: number[] = []
    let give = false
    const s = new Session(jwt(now / 1000 + 50), async () => {
      asked.push(now)
      if (give) return jwt(now / 1000 + 3600)
      throw new Error('backend down')
    }, () => now)
    const start = now
    for (let t = 0; t < 50_000; t += 500, now += 500) await s.current()
    expect(asked.map((a) => a - start)).toEqual([0, 2000, 6000, 14000, 30000])
    give = true
    now = start + 60_000
    expect(await s.current()).toBe(jwt(now / 1000 + 3600))
    expect(asked).toHaveLength(6)
  })
})
