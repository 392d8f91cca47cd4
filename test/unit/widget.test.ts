// The widget SDK's pure parts: the bundle stays small, design tokens become `--je-` custom properties,
// every locale has every string, the 15 statuses are the contract's, fallback reasons and the
// integrator's record sets are picked as documented, and checkRecords answers `{inSync, records}`.
import { describe, test, expect } from 'bun:test'
import { gzipSync } from 'bun'
import { readFileSync } from 'node:fs'
import { widgetBundle, bundlePath } from '../../src/widget/build.ts'
import { DEFAULT_TOKENS, STYLESHEET, tokenDeclarations } from '../../src/widget/styles.ts'
import { LOCALES, translator } from '../../src/widget/i18n.ts'
import { STEPS } from '../../src/widget/types.ts'
import { fallbackReason, normalizeDomain, recordsFor } from '../../src/widget/flow.ts'
import { camel, checkRecords } from '../../src/widget/api.ts'

// Six locales (about 9 KiB gzip of strings) and fourteen provider logos (about 5 KiB) live in the bundle.
const GZIP_BUDGET = 32 * 1024

describe('bundle', () => {
  test(`is one minified script under ${GZIP_BUDGET} bytes gzipped, exposing the seven methods`, async () => {
    const b = await widgetBundle()
    const gz = gzipSync(new TextEncoder().encode(b.code)).length
    console.log(`widget bundle: ${b.code.length} bytes, ${gz} bytes gzip`)
    expect(gz).toBeLessThan(GZIP_BUDGET)
    expect(b.gzip.length).toBe(gz)
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

  test('every custom property the stylesheet reads has a default', () => {
    const used = [...STYLESHEET.matchAll(/var\(--je-([a-z0-9-]+)\)/g)].map((m) => m[1]!)
    expect(used.length).toBeGreaterThan(20)
    expect(used.filter((u) => !(u in DEFAULT_TOKENS))).toEqual([])
  })
})

describe('locales', () => {
  test('every locale has every string with the same placeholders', () => {
    const en = LOCALES.en!
    for (const [lang, table] of Object.entries(LOCALES)) {
      expect(Object.keys(table).sort()).toEqual(Object.keys(en).sort())
      for (const k of Object.keys(en) as (keyof typeof en)[]) {
        const ph = (s: string) => (s.match(/\{\w+\}/g) ?? []).sort()
        expect([lang, k, ph(table[k])]).toEqual([lang, k, ph(en[k])])
      }
    }
    expect(Object.keys(LOCALES).sort()).toEqual(['de', 'en', 'es', 'fr', 'ja', 'pt'])
  })

  test('every translation is filled in, and step lists have as many steps as in English', () => {
    for (const [lang, table] of Object.entries(LOCALES)) {
      for (const [k, v] of Object.entries(table)) expect([lang, k, v.trim().length > 0]).toEqual([lang, k, true])
      for (const k of ['stepsGeneric', 'stepsProvider'] as const) expect([lang, k, table[k].split('|').length]).toEqual([lang, k, LOCALES.en![k].split('|').length])
    }
  })

  test('a regional tag uses its language and unknown ones fall back to English', () => {
    expect(translator('fr-CA')('titleApp', { app: 'Acme' })).toBe('Connectez votre domaine à Acme')
    expect(translator('xx')('added')).toBe('I have added them')
  })
})

describe('statuses and routing', () => {
  test('the 15 widget statuses are exactly the contract\'s', () => {
    const contract = readFileSync('/work/shared/CONTRACT.md', 'utf8')
    const line = contract.split('### Widget statuses')[1]!.split('\n').find((l) => l.startsWith('`'))!
    expect([...STEPS] as string[]).toEqual([...line.matchAll(/`([A-Z_0-9]+)`/g)].map((m) => m[1]!))
    expect(STEPS).toHaveLength(15)
  })

  const rails = (over: Record<string, boolean> = {}) => ({ oauth: { available: !!over.oauth }, domainConnect: { available: !!over.dc }, apiKey: { available: !!over.apiKey }, manual: { available: true } })
  test('fallback reasons', () => {
    expect(fallbackReason({ provider: null, rails: rails(), conflicts: [] }, false)).toBe('unknown_provider')
    expect(fallbackReason({ provider: 'x', rails: rails({ oauth: true }), conflicts: [{}], supports_automatic: true }, false)).toBe('conflicts_exceed_tolerance')
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
      const r = await checkRecords('a.example', { token: 'tok', apiBase: `http://127.0.0.1:${stand.port}/v1`, dnsRecords: [{ type: 'CNAME', host: 'a', value: 'edge.example', ttl: 300 }] })
      expect(seen!).toEqual({ auth: 'Bearer tok', path: '/v1/monitor:check', body: { domain: 'a.example', baseline: [{ type: 'CNAME', host: 'a', value: 'edge.example' }] } })
      expect(r).toEqual({ inSync: false, records: [{ type: 'CNAME', host: 'a', status: 'record_missing', observedValues: [] }] })
    } finally {
      stand.stop(true)
    }
  })
})
