// The browser widget SDK's entry point: `window.Portico` with the seven methods of the API contract
// section 6. `open`, `purchaseDomain` and `loadSharedFlow` each return `{close}`; one widget is shown at
// a time (opening another closes the first). The API base defaults to the origin this script was served
// from, so a host page needs only the script tag and a widget token minted by its server.
import { checkDomain as check, checkRecords as records, client, Session } from './api.ts'
import { emit, Flow, GLOBAL } from './flow.ts'
import { loadTranslator, translator } from './i18n.ts'
import { browserLanguages } from './locale.ts'
import { tokenDeclarations } from './styles.ts'
import { Dialog, h, injectStyles } from './ui.ts'
import type { DnsRecordIn, GetToken, OpenConfig, PorticoApi } from './types.ts'

/** Set at build (build.ts): the content hash of the locale tables served beside the bundle. */
declare const __PORTICO_LOCALES__: string | undefined

const script = typeof document !== 'undefined' ? (document.currentScript as HTMLScriptElement | null) : null
const scriptOrigin = script?.src ? new URL(script.src).origin : location.origin

function apiBaseOf(c: { apiBase?: string; widgetBase?: string }): string {
  return c.apiBase ?? `${(c.widgetBase ?? scriptOrigin).replace(/\/+$/, '')}/v1`
}

function widgetOrigin(c: { widgetBase?: string }): string {
  return (c.widgetBase ?? scriptOrigin).replace(/\/+$/, '')
}

/** Where the locale tables are served: beside the bundle, under their own content hash (cached forever). */
function localesBase(c: { widgetBase?: string }): string | null {
  return typeof __PORTICO_LOCALES__ === 'string' ? `${widgetOrigin(c)}/widget/locales/${__PORTICO_LOCALES__}` : null
}

/** Portico's page that closes the provider's window when it comes back (on the API's origin). */
function returnUrl(apiBase: string): string | null {
  try {
    return `${new URL(apiBase, location.href).origin}/widget/return`
  } catch {
    return null
  }
}

let current: { close(): void } | null = null

function show<T extends { close(): void }>(w: T): { close: () => void } {
  current?.close()
  current = w
  return { close: () => w.close() }
}

/** The credential of one widget: its token, renewed through `getToken` when the integrator gave one. */
function sessionOf(c: { token?: string; getToken?: GetToken }, what: string): Session {
  if (!c?.token && typeof c?.getToken !== 'function') throw new TypeError(`${GLOBAL}.${what}: a token or getToken is required`)
  return new Session(c.token, c.getToken)
}

function open(config: OpenConfig): { close: () => void } {
  if (!config?.applicationId) throw new TypeError(`${GLOBAL}.open: applicationId is required`)
  const apiBase = apiBaseOf(config)
  const f = new Flow(config, client(apiBase, sessionOf(config, 'open')), { localesBase: localesBase(config), returnUrl: returnUrl(apiBase) })
  const handle = show(f)
  f.start()
  return handle
}

/**
 * The shared manual setup behind a share link, given as its url (`https://portico.example/share/{token}`:
 * Portico is that origin) or as its token (Portico is found as for `open`: `apiBase`, else `widgetBase`
 * or the script's origin). No credential is needed.
 */
function loadSharedFlow(link: string, config: Partial<OpenConfig> = {}): { close: () => void } {
  const { token, origin } = shareLink(String(link ?? ''))
  const base = { widgetBase: config.widgetBase ?? origin }
  const cfg = { applicationId: '', ...config, apiBase: apiBaseOf({ apiBase: config.apiBase, ...base }) } as OpenConfig
  const f = new Flow(cfg, client(cfg.apiBase!), { localesBase: localesBase(base), returnUrl: null, shareToken: token })
  const handle = show(f)
  f.startShared()
  return handle
}

/** A share link's token, and the origin it names when it is an absolute url (undefined for a bare token). */
function shareLink(link: string): { token: string; origin: string | undefined } {
  const url = /^https?:\/\//i.test(link.trim()) ? new URL(link.trim()) : null
  return { token: (url?.pathname ?? link.trim()).split('/').filter(Boolean).pop() ?? '', origin: url?.origin }
}

/** Sell: the buyer's domain and email, then the payment page of `POST /registrar/checkout`. */
function purchaseDomain(config: OpenConfig): { close: () => void } {
  const api = client(apiBaseOf(config), sessionOf(config, 'purchaseDomain'))
  let tr = translator('en')
  const t = (k: Parameters<typeof tr.t>[0]) => tr.t(k)
  let closed = false
  const close = () => {
    if (closed) return
    closed = true
    dialog.destroy()
    const detail = { lastStatus: 'ENTER_DOMAIN' as const, domain: null, success: false, setupType: null, provider: null, connectionId: null, rail: null }
    emit('close', detail)
    config.onClose?.(detail)
  }
  const dialog = new Dialog({
    container: config.container ? document.querySelector(config.container) : null,
    declarations: tokenDeclarations(config.whiteLabel),
    lang: 'en',
    closeLabel: t('close'),
    logo: config.whiteLabel?.logo,
    hideLogo: config.whiteLabel?.hideLogo,
    hideFooter: config.whiteLabel?.hideFooter,
    footer: t('poweredBy'),
    nonce: config.nonce,
    onDismiss: close,
  })
  const domain = h('input', { id: 'je-buy-domain', required: true }) as HTMLInputElement
  domain.value = config.domain ?? (typeof config.prefilledDomain === 'string' ? config.prefilledDomain : '')
  const email = h('input', { id: 'je-buy-email', type: 'email', required: true, autocomplete: 'email' }) as HTMLInputElement
  const err = h('p', { class: 'je-err', role: 'alert' })
  const form = h(
    'form',
    {
      onsubmit: async (e) => {
        e.preventDefault()
        try {
          const s = await api.call('POST', '/registrar/checkout', { domain: domain.value.trim().toLowerCase(), buyer: { email: email.value }, return_url: location.href })
          location.assign(s.url)
        } catch (x) {
          err.textContent = (x as Error).message
          config.onError?.({ code: 'GenericError', message: (x as Error).message })
        }
      },
    },
    h('label', { for: 'je-buy-domain' }, t('domainLabel')),
    domain,
    h('label', { for: 'je-buy-email' }, t('buyEmail')),
    email,
    err,
    h('div', { class: 'je-row' }, h('button', { type: 'submit', class: 'je-btn' }, t('buyGo'))),
  )
  const render = () => dialog.show(t('buyTitle'), [form], { fresh: true, focus: 'je-buy-domain' })
  render()
  void loadTranslator(config.locale ?? browserLanguages(), localesBase(config)).then((loaded) => {
    if (closed || loaded.locale === 'en') return
    tr = loaded
    dialog.setLocale(tr.locale, t('close'), t('poweredBy'))
    form.querySelector('label[for="je-buy-domain"]')!.textContent = t('domainLabel')
    form.querySelector('label[for="je-buy-email"]')!.textContent = t('buyEmail')
    form.querySelector('button[type="submit"]')!.textContent = t('buyGo')
    render()
  })
  return show({ close })
}

const Portico: PorticoApi = {
  open,
  purchaseDomain,
  loadSharedFlow,
  checkDomain: (domain: string, o: { token?: string; getToken?: GetToken; apiBase?: string }) => check(domain, { auth: sessionOf(o, 'checkDomain'), apiBase: apiBaseOf(o) }),
  checkRecords: (domain: string, o: { token?: string; getToken?: GetToken; dnsRecords: DnsRecordIn[]; apiBase?: string }) =>
    records(domain, { auth: sessionOf(o, 'checkRecords'), dnsRecords: o.dnsRecords, apiBase: apiBaseOf(o) }),
  /** Prepares the widget (its styles) ahead of `open()`; resolves once ready. */
  load: async (): Promise<void> => injectStyles(),
  close: (): void => {
    current?.close()
    current = null
  },
}

;(window as unknown as Record<string, PorticoApi>)[GLOBAL] = Portico
