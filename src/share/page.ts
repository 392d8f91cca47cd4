// The share page (/share/<token>): a page of its own for the person who runs the DNS of a domain,
// opened from a share link (POST /v1/connections/{id}/share). Server-rendered over the API's own
// `GET /v1/share/{token}` (through `handle`, so the page sees exactly what any client sees), with a
// small script served as a file (src/share/client.ts) that copies values, re-checks in place and
// follows the connection until it is live. Without the script the page still works: "I have added
// them" is a form that POSTs here, re-checks, and comes back (303). Invariants:
// - the page is in one language, the one its `lang` names (src/share/strings.ts picks it), written in
//   that language's direction (`dir`); names and domains are isolated (`dir="auto"`), DNS values are
//   left to right;
// - each thing is said once: the brand at the top, one heading naming the domain, one sentence
//   saying who asked and one saying until when the link works;
// - nothing inline runs without this response's nonce: the script and stylesheet are files, the
//   brand's colours the only inline style (nonce), the page data a JSON block that never executes;
// - the token is in the path: the page sends no Referer anywhere (`referrer-policy: no-referrer`).
import type { Elysia } from 'elysia'
import { createHash } from 'node:crypto'
import { splitUrl, type Mount } from '../http/app.ts'
import { SHARE_PAGE_PREFIX } from '../domain/share.ts'
import type { Peer } from '../client-address.ts'
import { fromElsewhere } from '../http/forms.ts'
import { randomToken } from '../ids.ts'
import { fill, LOCALE_CODES, LOCALES, pickLocale, type Locale, type Strings } from './strings.ts'
import { directionOf } from '../widget/locale.ts'
import { encode, lateBody, PLAIN_NOT_FOUND, respond, type Encoded } from '../http/encoded.ts'
import { fillIn, textOfHtml } from '../widget/fill.ts'

export interface SharePageDeps {
  /** The API's own handler (the page reads `GET /v1/share/{token}` like any client), given the visitor's address. */
  handle: (req: Request, ip: string | null) => Promise<Response>
  /** The visitor's address (the socket peer, walked back through TRUST_PROXY): a guesser's failed tokens are
   * counted against the guesser, never against every visitor of the page together. */
  addressOf: (request: Request, server: Peer) => string | null
  /** PUBLIC_URL: the "I have added them" form is refused when sent from another site (src/http/forms.ts). */
  publicUrl: string
}

/** What `GET /v1/share/{token}` answers (the fields the page uses). */
export interface Shared {
  connection_id: string
  domain: string
  apex_domain: string
  status: 'pending' | 'propagating' | 'live' | 'failed'
  error_code: string | null
  records: { type: string; host: string; value: string; ttl?: number; priority?: number; purpose?: string }[]
  propagation: { records_propagated: { type: string; host: string }[]; records_non_propagated: { type: string; host: string }[] }
  provider: string | null
  provider_name: string | null
  manual_steps: string[]
  dashboard_url: string | null
  expires_at: string
  application_name: string | null
  branding: { display_name: string | null; logo_url: string | null; accent_color: string | null; accent_foreground: string | null; accent_text: string | null } | null
  last_checked_at: string | null
  /** Pre-validation's stage; null (or absent) on the usual path. */
  validation_stage?: string | null
}

export const ASSET_PREFIX = '/share-page'

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
const t = (s: Strings, key: keyof Strings, vars?: Record<string, string | number>) => esc(fill(s[key], vars))
/** A placeholder value set apart (a domain, a name) inside translated text, escaped. */
const em = (v: string) => `<strong class="name" dir="auto">${breakable(v)}</strong>`
/** A domain or name that may wrap only before its dots (a long one still wraps, as a last resort). */
const breakable = (v: string) => esc(v).replace(/\./g, '<wbr>.')
/** A name or domain inside a sentence, isolated so a right-to-left sentence neither flips it nor is pulled along. */
const iso = (v: string) => `<bdi>${esc(v)}</bdi>`
const fillHtml = (text: string, vars: Record<string, string>) => fillIn(esc(text), vars, { shown: textOfHtml })

const keyOf = (r: { type: string; host: string }) => `${r.type} ${r.host}`

/** Where the domain points once live: the routing records' values. */
export function targetOf(records: Shared['records']): string {
  const routing = records.filter((r) => r.purpose?.startsWith('routing'))
  return (routing.length ? routing : records.filter((r) => r.type === 'CNAME' || r.type === 'A')).map((r) => r.value).join(', ')
}

function dateText(locale: Locale, iso: string, withTime: boolean): string {
  const opts: Intl.DateTimeFormatOptions = withTime ? { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' } : { dateStyle: 'long', timeZone: 'UTC' }
  return new Intl.DateTimeFormat(locale, opts).format(new Date(iso))
}

/** The status sentence a person reads for this state (also what the script writes when it changes). */
export function statusText(s: Strings, shared: Pick<Shared, 'status' | 'domain' | 'records' | 'propagation'>): string {
  switch (shared.status) {
    case 'live':
      return fill(s.statusLive, { domain: shared.domain, target: targetOf(shared.records) })
    case 'failed':
      return s.statusFailed
    case 'propagating': {
      const found = new Set(shared.propagation.records_propagated.map(keyOf))
      return fill(s.statusPropagating, { found: shared.records.filter((r) => found.has(keyOf(r))).length, total: shared.records.length })
    }
    default:
      return s.statusPending
  }
}

function steps(s: Strings, locale: Locale, shared: Shared): string[] {
  // Catalog steps name the provider's menus in English: shown as they are on English pages only.
  if (locale === 'en' && shared.provider && shared.manual_steps.length) return shared.manual_steps.map(esc)
  return [
    shared.provider_name ? fillHtml(s.stepSignIn, { provider: iso(shared.provider_name) }) : fillHtml(s.stepSignInUnknown, { apex: iso(shared.apex_domain) }),
    fillHtml(s.stepOpen, { apex: iso(shared.apex_domain) }),
    t(s, 'stepAdd'),
    t(s, 'stepSave'),
  ]
}

function recordItem(s: Strings, shared: Shared, r: Shared['records'][number], i: number, found: Set<string>): string {
  // The host as it is typed (`@` for the apex, explained beside it), with its own Copy.
  const hostCopy = `<button type="button" class="copy" data-copy="share-h${i}" aria-label="${t(s, 'copyHostLabel', { type: r.type, host: r.host })}" hidden>${t(s, 'copy')}</button>`
  const host = r.host === '@' ? `<code id="share-h${i}" dir="ltr">@</code> ${fillHtml(s.apexHost, { apex: iso(shared.apex_domain) }).replace(/^@\s*/, '')}${hostCopy}` : `<code id="share-h${i}" dir="ltr">${esc(r.host)}</code>${hostCopy}`
  const state = found.has(keyOf(r)) ? 'found' : 'missing'
  const copyLabel = t(s, 'copyLabel', { type: r.type, host: r.host })
  // The priority (MX) is a field of its own at DNS hosts: shown and copied on its own, not in the value.
  const priority =
    r.priority !== undefined
      ? `<div class="f-priority"><dt>${t(s, 'priority')}</dt><dd><code id="share-p${i}" dir="ltr">${r.priority}</code>` +
        `<button type="button" class="copy" data-copy="share-p${i}" aria-label="${t(s, 'copyPriorityLabel', { type: r.type, host: r.host })}" hidden>${t(s, 'copy')}</button></dd></div>`
      : ''
  return (
    `<li class="rec" data-key="${esc(keyOf(r))}"><dl>` +
    `<div class="f-type"><dt>${t(s, 'type')}</dt><dd>${esc(r.type)}</dd></div>` +
    `<div class="f-host"><dt>${t(s, 'host')}</dt><dd>${host}</dd></div>` +
    `<div class="f-value"><dt>${t(s, 'value')}</dt><dd><code id="share-v${i}" dir="ltr">${esc(r.value)}</code>` +
    `<button type="button" class="copy" data-copy="share-v${i}" aria-label="${copyLabel}" hidden>${t(s, 'copy')}</button></dd></div>` +
    priority +
    (r.ttl !== undefined ? `<div class="f-ttl"><dt>${t(s, 'ttl')}</dt><dd>${r.ttl}</dd></div>` : '') +
    `</dl><p class="rec-state" data-state="${state}">${t(s, state)}</p></li>`
  )
}

function brandHeader(shared: Shared): string {
  const b = shared.branding
  const name = b?.display_name ?? shared.application_name ?? ''
  // The logo is decoration beside the name; alone, it carries the name.
  const logo = b?.logo_url ? `<img class="logo" src="${esc(b.logo_url)}" alt="${b.display_name ? '' : esc(name)}">` : ''
  const text = b?.display_name || !b?.logo_url ? `<span class="brand-name">${esc(name)}</span>` : ''
  return `<header class="brand"><div class="brand-in">${logo}${text}</div></header>`
}

/** The brand's colours as custom properties (the one inline style, under the response's nonce). */
function brandStyle(shared: Shared, nonce: string): string {
  const b = shared.branding
  if (!b?.accent_color) return ''
  return `<style nonce="${nonce}">:root{--accent:${b.accent_color};--on-accent:${b.accent_foreground};--accent-text:${b.accent_text}}</style>`
}

function languageLinks(s: Strings, locale: Locale, token: string): string {
  const links = LOCALE_CODES.filter((l) => l !== locale).map(
    (l) => `<li><a href="${SHARE_PAGE_PREFIX}${esc(token)}?lang=${l}" lang="${l}" hreflang="${l}">${esc(LOCALES[l].languageName)}</a></li>`,
  )
  return `<nav aria-label="${t(s, 'otherLanguages')}"><ul class="langs">${links.join('')}</ul></nav>`
}

function shell(locale: Locale, title: string, head: string, body: string, assets: ShareAssets): string {
  return (
    `<!doctype html><html lang="${locale}" dir="${directionOf(locale)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<meta name="robots" content="noindex"><title>${title}</title><link rel="stylesheet" href="${assets.cssPath}">${head}</head><body>${body}</body></html>`
  )
}

/**
 * Before cutover, the two steps in order: proving ownership (the records now), then pointing the
 * domain here once its certificate is on every edge node; the current one is marked.
 */
function stages(s: Strings, shared: Shared): string {
  const stage = shared.validation_stage
  if (!stage) return ''
  const now = stage === 'awaiting_records' || stage === 'issuing' ? 0 : 1
  const item = (key: 'stageProve' | 'stageRoute', i: number) =>
    `<li${i === now ? ' aria-current="step"' : ''} class="${i < now ? 'done' : i === now ? 'current' : 'later'}">${fillHtml(s[key], { domain: em(shared.domain) })}</li>`
  return `<ol id="share-stages" class="stages">${item('stageProve', 0)}${item('stageRoute', 1)}</ol>`
}

export function renderSharePage(shared: Shared, o: { locale: Locale; token: string; nonce: string; assets: ShareAssets; unreachable?: boolean }): string {
  const s = LOCALES[o.locale]
  const found = new Set(shared.propagation.records_propagated.map(keyOf))
  const live = shared.status === 'live'
  const who = shared.branding?.display_name ?? shared.application_name
  const dashboard = shared.dashboard_url && shared.provider_name ? `<p><a class="provider" href="${esc(shared.dashboard_url)}" rel="noreferrer noopener" target="_blank">${fillHtml(s.openProvider, { provider: iso(shared.provider_name) })}</a></p>` : ''
  const status = o.unreachable ? s.statusUnreachable : statusText(s, shared)
  const lastChecked = shared.last_checked_at
    ? fillHtml(s.lastChecked, { time: `<time class="local" datetime="${esc(shared.last_checked_at)}" data-time="1">${esc(dateText(o.locale, shared.last_checked_at, true))} UTC</time>` })
    : ''
  const data = {
    token: o.token,
    locale: o.locale,
    status: shared.status,
    domain: shared.domain,
    target: targetOf(shared.records),
    keys: shared.records.map(keyOf),
    strings: { copied: s.copied, copy: s.copy, checking: s.checking, added: s.added, found: s.found, missing: s.missing, statusPending: s.statusPending, statusPropagating: s.statusPropagating, statusFailed: s.statusFailed, statusLive: s.statusLive, statusUnreachable: s.statusUnreachable, closedHint: s.closedHint, lastChecked: s.lastChecked },
  }
  const main =
    `<main id="main">` +
    `<h1>${fillHtml(s.heading, { domain: em(shared.domain) })}</h1>` +
    `<p class="who">${who ? fillHtml(s.asked, { app: em(who) }) + (o.locale === 'ja' || o.locale === 'zh' ? '' : ' ') : ''}${fillHtml(s.until, {
      date: `<time class="local" datetime="${esc(shared.expires_at)}">${esc(dateText(o.locale, shared.expires_at, false))}</time>`,
    })}</p>` +
    `<p id="share-status" class="status" data-status="${shared.status}" role="status">${esc(status)}</p>` +
    `<section id="share-done" class="done" aria-labelledby="share-done-h"${live ? '' : ' hidden'}><h2 id="share-done-h">${t(s, 'doneHeading')}</h2>` +
    `<p>${t(s, 'doneHint')}</p><p><button type="button" id="share-close" class="secondary" hidden>${t(s, 'close')}</button></p><p id="share-closed" hidden>${t(s, 'closedHint')}</p></section>` +
    `<div id="share-work"${live ? ' hidden' : ''}>` +
    `<section aria-labelledby="share-steps-h"><h2 id="share-steps-h">${t(s, 'stepsHeading')}</h2><ol class="steps">${steps(s, o.locale, shared).map((x) => `<li>${x}</li>`).join('')}</ol>${dashboard}</section>` +
    stages(s, shared) +
    `<section aria-labelledby="share-records-h"><h2 id="share-records-h">${t(s, 'recordsHeading')}</h2><ul class="records">${shared.records.map((r, i) => recordItem(s, shared, r, i, found)).join('')}</ul></section>` +
    `<form method="post" id="share-form" action="${SHARE_PAGE_PREFIX}${esc(o.token)}"><input type="hidden" name="lang" value="${o.locale}">` +
    `<button type="submit" id="share-added" class="primary">${t(s, 'added')}</button></form>` +
    `<p id="share-checked" class="muted">${lastChecked}</p></div>` +
    `</main>`
  const footer = `<footer>${languageLinks(s, o.locale, o.token)}<p class="muted">${t(s, 'poweredBy')}</p></footer>`
  const json = JSON.stringify(data).replace(/</g, '\\u003c')
  return shell(
    o.locale,
    t(s, 'title', { domain: shared.domain }),
    brandStyle(shared, o.nonce),
    `${brandHeader(shared)}${main}${footer}<script type="application/json" id="share-data">${json}</script><script src="${o.assets.jsPath}" defer></script>`,
    o.assets,
  )
}

export function renderNotFound(locale: Locale, assets: ShareAssets): string {
  const s = LOCALES[locale]
  return shell(locale, t(s, 'notFoundTitle'), '', `<main id="main" class="gone"><h1>${t(s, 'notFoundTitle')}</h1><p>${t(s, 'notFoundBody')}</p></main><footer><p class="muted">${t(s, 'poweredBy')}</p></footer>`, assets)
}

// ---------------------------------------------------------------- assets

export interface ShareAssets {
  js: Encoded
  css: Encoded
  jsPath: string
  cssPath: string
}

let cached: Promise<ShareAssets> | null = null

async function build(): Promise<ShareAssets> {
  const out = await Bun.build({ entrypoints: [new URL('./client.ts', import.meta.url).pathname], target: 'browser', format: 'iife', minify: true })
  const artifact = out.outputs[0]
  if (!out.success || !artifact) throw new AggregateError(out.logs, 'share page script failed to build')
  const js = await artifact.text()
  const css = await Bun.file(new URL('./share.css', import.meta.url).pathname).text()
  const hash = createHash('sha256').update(js).update(css).digest('hex').slice(0, 12)
  return { js: encode(js), css: encode(css), jsPath: `${ASSET_PREFIX}/${hash}/share.js`, cssPath: `${ASSET_PREFIX}/${hash}/share.css` }
}

export function shareAssets(): Promise<ShareAssets> {
  cached ??= build().catch((err) => {
    cached = null
    throw err
  })
  return cached
}

// ---------------------------------------------------------------- HTTP

function htmlResponse(status: number, html: string, nonce: string): Response {
  return new Response(lateBody(html), {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
      'content-security-policy': `default-src 'none'; script-src 'self'; style-src 'self' 'nonce-${nonce}'; img-src 'self' https: data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`,
      'x-content-type-options': 'nosniff',
      'content-language': html.match(/<html lang="(\w+)"/)?.[1] ?? 'en',
      vary: 'accept-language',
    },
  })
}

const asset = (req: Request, e: Encoded, type: string) => respond(req, e, { 'content-type': type, 'cache-control': 'public, max-age=31536000, immutable', 'x-content-type-options': 'nosniff' })

const TOKEN = /^[A-Za-z0-9_-]{10,100}$/

/** The answer to the form sent from another site: nothing done, and why (the words of Portico's other pages). */
function renderCrossSite(): string {
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>Sent from another site</title></head>' +
    '<body><main><h1 id="cross-site">This form was sent from another site</h1><p>Portico acts only on forms sent from its own pages. Nothing was done.</p>' +
    '<p>If you meant to do this, open the page again from the link you were given and answer there.</p></main></body></html>'
  )
}

function withHeader(r: Response, name: string, value: string): Response {
  r.headers.set(name, value)
  return r
}

export function sharePageMount(deps: SharePageDeps): Mount {
  const read = async (origin: string, token: string, method: 'GET' | 'POST', ip: string | null): Promise<{ status: number; body: Shared | null; retryAfter: string | null }> => {
    const path = `/v1/share/${token}${method === 'POST' ? ':recheck' : ''}`
    const r = await deps.handle(new Request(new URL(path, origin), { method }), ip)
    return { status: r.status, body: r.status === 200 ? ((await r.json()) as Shared) : null, retryAfter: r.headers.get('retry-after') }
  }
  const show = async (request: Request, token: string, lang: string | null, ip: string | null): Promise<Response> => {
    const locale = pickLocale(lang, request.headers.get('accept-language'))
    const assets = await shareAssets()
    const nonce = randomToken(16)
    if (!TOKEN.test(token)) return htmlResponse(404, renderNotFound(locale, assets), nonce)
    const r = await read(deps.publicUrl, token, 'GET', ip)
    if (r.status === 404 || r.status === 400) return htmlResponse(404, renderNotFound(locale, assets), nonce)
    // This visitor's own address (or network) guessed too often: it waits, as the API says.
    if (r.status === 429) return withHeader(htmlResponse(429, renderNotFound(locale, assets), nonce), 'retry-after', r.retryAfter ?? '60')
    if (!r.body) return htmlResponse(503, renderNotFound(locale, assets), nonce)
    return htmlResponse(200, renderSharePage(r.body, { locale, token, nonce, assets }), nonce)
  }
  return (app: Elysia) => {
    app
      .get(`${SHARE_PAGE_PREFIX}:token`, ({ params, request, server }) => show(request, params.token, splitUrl(request.url).query.lang ?? null, deps.addressOf(request, server)))
      // "I have added them" without the script: re-check, then show the page again (post/redirect/get).
      .post(
        `${SHARE_PAGE_PREFIX}:token`,
        async ({ params, request, server }) => {
          // Only from the share page itself: another site cannot make a visitor's browser re-check (and spend their budget).
          if (fromElsewhere(request, deps.publicUrl)) return htmlResponse(403, renderCrossSite(), randomToken(16))
          const form = new URLSearchParams((await request.text()).slice(0, 1000))
          const lang = form.get('lang')
          if (TOKEN.test(params.token)) await read(deps.publicUrl, params.token, 'POST', deps.addressOf(request, server))
          const to = `${SHARE_PAGE_PREFIX}${encodeURIComponent(params.token)}${lang && (LOCALE_CODES as string[]).includes(lang) ? `?lang=${lang}` : ''}`
          return new Response(null, { status: 303, headers: { location: to, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' } })
        },
        { parse: 'none' },
      )
      .get(`${ASSET_PREFIX}/:hash/:file`, async ({ params, request }) => {
        const a = await shareAssets()
        const hash = a.jsPath.split('/')[2]!
        if (params.hash !== hash) return new Response('Not found', { status: 404, headers: PLAIN_NOT_FOUND })
        if (params.file === 'share.js') return asset(request, a.js, 'text/javascript; charset=utf-8')
        if (params.file === 'share.css') return asset(request, a.css, 'text/css; charset=utf-8')
        return new Response('Not found', { status: 404, headers: PLAIN_NOT_FOUND })
      })
    return app
  }
}
