// The pages people see under /oauth (consent, sign-in, "Your agents", confirmations): one shell, no
// scripts, never framed. The shell is the one place a workspace's branding plugs in: once a person has
// signed in, their workspace's logo and name on its accent colour; before that, Portico's mark. A page
// in another language than English says so (`lang`, `dir`, `Content-Language`; oauth/strings.ts); the
// layout is written in logical directions, so a right-to-left page mirrors.
import { fromElsewhere } from '../src/http/forms.ts'
import { lateBody } from '../src/http/encoded.ts'
import type { BrandingView } from '../src/domain/branding.ts'
import { directionOf } from '../src/widget/locale.ts'
import type { Peer } from '../src/client-address.ts'

export const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

export const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  // No scripts at all; the page cannot be framed (clickjacking an approve button). Images: a branded header's logo.
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src https: data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
}

const STYLE = `*{box-sizing:border-box}body{font-family:system-ui,sans-serif;max-width:44rem;margin:0 auto;padding:1rem;color:#1b1f24;line-height:1.45}
header{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem;padding:.5rem 0 1rem;border-bottom:1px solid #d8dde3;margin-bottom:1.5rem;font-weight:700}
header nav{margin-inline-start:auto;font-weight:400;display:flex;gap:1rem;align-items:center;flex-wrap:wrap}
.mark{display:inline-grid;place-items:center;width:1.8rem;height:1.8rem;border-radius:6px;background:#1f4fbf;color:#fff}
.who{display:flex;align-items:center;gap:.75rem}.avatar{flex:none;display:inline-grid;place-items:center;width:3rem;height:3rem;border-radius:50%;background:#5b3cc4;color:#fff;font-size:1.4rem;font-weight:700}
h1{font-size:1.5rem;margin:.25rem 0}.host{font-size:1.4rem;font-weight:700;overflow-wrap:anywhere}
.warn{background:#fff4e5;border:1px solid #b86e00;padding:.75rem;border-radius:6px}.bad{background:#fdecec;border:1px solid #b3261e;padding:.75rem;border-radius:6px}
.ok{color:#176f2c}.workspace{background:#eef3fb;border-radius:6px;padding:.75rem}.note{background:#f3f5f7;border-radius:6px;padding:.75rem}
ul.scopes{padding-inline-start:1.2rem}ul.scopes li{margin:.4rem 0}fieldset{border:1px solid #d8dde3;border-radius:6px}
fieldset label{display:flex;gap:.5rem;align-items:flex-start;margin:.5rem 0}fieldset input{width:1.25rem;height:1.25rem;flex:none;margin-top:.1rem}
label.field{display:block;margin:1rem 0 .3rem;font-weight:600}input[type=email]{display:block;width:100%;max-width:100%;padding:.6rem;font-size:1rem;border:1px solid #6b7480;border-radius:6px}
.actions{display:flex;flex-wrap:wrap;gap:.75rem;margin-top:1.25rem}.inline{display:inline}
button{font-size:1rem;min-height:44px;padding:.55rem 1.4rem;border-radius:6px;cursor:pointer}
button.primary{background:#1f4fbf;color:#fff;border:1px solid #1f4fbf;font-weight:600}button.secondary{background:#fff;color:#1b1f24;border:1px solid #6b7480}
button.danger{background:#fff;color:#a1160a;border:1px solid #a1160a;font-weight:600}button.link{background:none;border:none;color:#1f4fbf;text-decoration:underline;padding:.5rem;min-height:44px}
a{color:#1f4fbf}table{border-collapse:collapse;width:100%}th,td{text-align:start;padding:.5rem;border-bottom:1px solid #d8dde3;vertical-align:top}
.grants{list-style:none;padding:0;margin:0}.grants>li{border:1px solid #d8dde3;border-radius:8px;padding:1rem;margin:0 0 1rem}
.grants h2{font-size:1.15rem;margin:0 0 .5rem;overflow-wrap:anywhere}.grants dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:0 0 .75rem}
.grants dt{color:#4a525c}.grants dd{margin:0;overflow-wrap:anywhere}.status-active{color:#176f2c;font-weight:600}.status-ended{color:#4a525c}
@media (max-width:30rem){.grants dl{grid-template-columns:1fr}.grants dd{margin-bottom:.4rem}header nav{margin-inline-start:0;width:100%;gap:0 1rem}}
header .logo{max-height:2.25rem;max-width:9rem;background:#fff;border-radius:4px;padding:2px}
footer{margin-top:2rem;padding-top:1rem;border-top:1px solid #d8dde3;font-size:.875rem;color:#4a525c}`

export interface PageOptions {
  /** Links in the header (the agents page, sign out), already HTML. */
  nav?: string
  footer?: string
  headers?: Record<string, string>
  /** The signed-in person's workspace branding; absent: Portico's mark. */
  brand?: BrandingView | null
  /** The language the page is written in (default English), and the name of its header's navigation. */
  lang?: string
  navLabel?: string
}

/** The header's brand: the workspace's logo and name on its accent colour (with the computed
 * foreground), or Portico's mark; and the CSS rule that colours it. */
export function brandHeader(brand?: BrandingView | null): { html: string; css: string } {
  if (!brand) return { html: '<span class="mark" aria-hidden="true">P</span><span>Portico</span>', css: '' }
  const name = brand.display_name ? `<span class="brand-name">${esc(brand.display_name)}</span>` : ''
  const logo = brand.logo_url ? `<img class="logo" src="${esc(brand.logo_url)}" alt="${brand.display_name ? '' : 'Application logo'}">` : ''
  const css = brand.accent_color ? `header.brand{background:${brand.accent_color};color:${brand.accent_foreground};border-bottom:0;padding:.75rem 1rem;border-radius:6px}header.brand a,header.brand button.link{color:inherit}` : ''
  return { html: `${logo}${name || (logo ? '' : '<span>Portico</span>')}`, css }
}

const DEFAULT_FOOTER =
  'Portico asks on behalf of your workspace. Approving lets the application act only within the scopes you leave checked; you can revoke it at any time on <a href="/oauth/agents">Your agents</a>.'

export function page(status: number, title: string, main: string, opts: PageOptions = {}): Response {
  const brand = brandHeader(opts.brand)
  const lang = opts.lang ?? 'en'
  const html = `<!doctype html><html lang="${esc(lang)}" dir="${directionOf(lang)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>${esc(title)}</title><style>${STYLE}${brand.css}</style></head>
<body><header${opts.brand ? ' class="brand" id="brand"' : ''}>${brand.html}${opts.nav ? `<nav aria-label="${esc(opts.navLabel ?? 'Account')}">${opts.nav}</nav>` : ''}</header>
<main>${main}</main>
<footer><p>${opts.footer ?? DEFAULT_FOOTER}</p></footer></body></html>`
  const language: Record<string, string> = opts.lang ? { 'content-language': lang, vary: 'accept-language' } : {}
  // Made after the database was read, as most pages are: sent in one write (`lateBody`).
  return new Response(lateBody(html), { status, headers: { ...PAGE_HEADERS, ...language, ...opts.headers } })
}

export const seeOther = (to: string, headers: Record<string, string> = {}) => new Response(null, { status: 303, headers: { location: to, 'cache-control': 'no-store', ...headers } })

const MAX_FORM_BYTES = 8 * 1024

/** A posted form, refused when larger than a person's form could be. */
export async function readForm(req: Request): Promise<URLSearchParams | null> {
  const text = await req.text()
  return text.length > MAX_FORM_BYTES ? null : new URLSearchParams(text)
}

/** Whether a form was sent from another site (src/http/forms.ts): every form here that signs in or acts refuses it. */
export { fromElsewhere }

/** The answer to a form sent from another site: nothing done, and why. */
export function crossSitePage(): Response {
  return page(
    403,
    'Sent from another site',
    '<h1 id="cross-site">This form was sent from another site</h1><p>Portico acts only on forms sent from its own pages, so that no other site can sign you in or answer in your name. Nothing was done.</p>' +
      '<p>If you meant to do this, open the page again from the link you were given and answer there.</p>',
  )
}

/** What a page route's handler is given (Elysia's context, as much of it as the pages use). */
export interface FormContext {
  request: Request
  params: Record<string, string>
  server: Peer
}

/** Portico's own forms only: a POST from another site gets `crossSitePage` and its handler never runs. */
export function ownFormsOnly(publicUrl: string, handler: (a: FormContext) => Response | Promise<Response>): (a: FormContext) => Response | Promise<Response> {
  return (a) => (fromElsewhere(a.request, publicUrl) ? crossSitePage() : handler(a))
}

/** Adds a Set-Cookie to a page already made. */
export function withCookie(res: Response, cookie: string): Response {
  res.headers.append('set-cookie', cookie)
  return res
}
