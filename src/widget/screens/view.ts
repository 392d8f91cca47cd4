// What every screen is given, and the pieces several screens share. A screen is a function of the
// state: it answers its title, its content and where focus goes when it opens; it turns codes
// (reasons, problems, record states) into the person's words and never looks at words itself.
import type { Translator } from '../i18n.ts'
import type { Conflict } from '../check.ts'
import { logoSvg } from '../providers.ts'
import { h, recordsTable, type Child } from '../ui.ts'
import { certificateConflicts, conflictsNow, routingConflicts, type Event, type Problem, type Reason, type Settings, type State } from '../machine.ts'
import type { DnsRecordIn, HostEvents } from '../types.ts'

export interface View {
  state: State
  settings: Settings
  tr: Translator
  /** The application's name as shown (the integrator's, else its branding), or null. */
  app: string | null
  send(e: Event): void
  announce(text: string): void
  emit<K extends keyof HostEvents>(name: K, detail: HostEvents[K]): void
  /** Opens the provider's window inside the person's click (pop-up blockers allow only that). */
  openPopup(): boolean
  /** Close asked by the person (the host decides when it delegates dismissal). */
  dismiss(): void
  now(): number
  manualDocs: string | null
}

export interface Screen {
  title: string
  content: (Child | Child[])[]
  /** The id of the element focused when the screen opens (else its heading). */
  focus?: string
}

export type Render = (v: View) => Screen

/** `{app}` in a sentence: the application's name, else "the site that sent you here". */
export const appOr = (v: View) => v.app ?? v.tr.t('someApp')

/**
 * A button. A busy one is `aria-disabled` and ignores clicks, but stays focusable: a focused button
 * made `disabled` ("Check now" while it checks) dropped the focus out of the dialog to the page's body.
 */
export function button(id: string, label: string, onclick: () => void, opts: { alt?: boolean; disabled?: boolean; type?: 'button' | 'submit' } = {}): HTMLElement {
  const click = (e: globalThis.Event): void => (opts.disabled ? e.preventDefault() : onclick())
  return h('button', { type: opts.type ?? 'button', class: opts.alt ? 'je-btn je-alt' : 'je-btn', id, 'aria-disabled': opts.disabled ? 'true' : undefined, onclick: click }, label)
}

export const row = (...children: Child[]) => h('div', { class: 'je-row' }, ...children)

export function backButton(v: View): HTMLElement {
  return button('je-back', v.tr.t('back'), () => v.send({ type: 'back' }), { alt: true })
}

/** The provider found from the nameservers, with its logo. */
export function detected(v: View): HTMLElement | null {
  const c = v.state.data.check
  if (!c?.provider_name) return null
  return h('div', { class: 'je-detected' }, logoSvg(c.provider), h('p', { class: 'je-plain' }, v.tr.t('detected', { provider: c.provider_name })))
}

export function providerName(v: View): string {
  const d = v.state.data
  return d.chosen?.name ?? d.check?.provider_name ?? ''
}

/** A reason, in words. */
export function reasonText(v: View, r: Reason): string {
  const tt = v.tr.t
  const domain = v.state.data.conn?.domain ?? v.state.data.domain ?? ''
  const provider = providerName(v) || tt('providerOther')
  switch (r.code) {
    case 'dns':
      return tt('reasonDns', { domain })
    case 'oneClick':
      return tt('reasonOneClick', { provider: oneClickName(v) ?? provider })
    case 'key':
      return tt('reasonKey', { provider, scopes: v.tr.list(scopesOf(v)) || '—' })
    case 'unreachable':
      return tt('reasonUnreachable', { provider })
    case 'popup':
      return tt('reasonPopup', { provider: oneClickName(v) ?? provider })
    case 'conflict':
      return tt('reasonConflict', { domain })
    case 'failed':
      return tt('reasonFailed', { reason: r.detail ?? '—' })
    case 'checkFailed':
      return tt('checkFailed')
    case 'network':
      return tt('errorNetwork')
    case 'misconfigured':
      return tt('errorMisconfigured')
    case 'unavailable':
      return tt('errorUnavailable')
    case 'rateLimited':
      return tt('errorRateLimited')
    case 'generic':
      return tt('reasonGeneric')
  }
}

export function reasonLine(v: View): HTMLElement | null {
  const r = v.state.data.reason
  return r ? h('p', { class: 'je-err je-warn', id: 'je-reason' }, reasonText(v, r)) : null
}

/** A problem, in words. */
export function problemText(v: View, p: Problem): string {
  const tt = v.tr.t
  const domain = v.state.data.domain ?? v.state.data.typed.domain.trim().toLowerCase()
  const app = appOr(v)
  switch (p.code) {
    case 'invalid':
      return tt('domainInvalid')
    case 'subdomainRequired':
      return tt('subdomainRequired', { domain })
    case 'subdomainRefused':
      return tt('subdomainRefused')
    case 'not_registered':
      return tt('notRegistered', { domain })
    case 'not_delegated':
      return tt('notDelegated', { domain })
    case 'apex_not_supported':
      return tt('apexNotSupported', { domain, app })
    case 'platform_subdomain':
      return tt('platformSubdomain', { domain })
    case 'session':
      return tt('errorSession', { app })
    case 'forbidden':
      return tt('errorForbidden', { app, domain })
    case 'network':
      return tt('errorNetwork')
    case 'misconfigured':
      return tt('errorMisconfigured')
    case 'linkGone':
      return tt('errorLinkGone')
    case 'rateLimited':
      return tt('errorRateLimited')
    case 'unavailable':
      return tt('errorUnavailable')
    case 'generic':
      return tt('errorGeneric', { app })
  }
}

/** The Domain Connect provider's own name (from its settings), when known. */
export function oneClickName(v: View): string | null {
  const c = v.state.data.check
  if (!c) return null
  if (c.recommended_rail === 'oauth') return c.provider_name
  return c.domain_connect?.provider_name ?? null
}

export const scopesOf = (v: View): string[] => tokenHelp(v)?.scopes ?? []

/** Where to create a credential and what it must allow (the link names the provider when several share the rail). */
export interface TokenHelp {
  /** The credential as the person knows it (the chosen or detected provider's). */
  kind: string | null
  scopes: string[]
  links: { at: string | null; url: string }[]
}

/**
 * The credential the API rail takes, as the domain check tells it: each provider the nameservers may
 * belong to whose credential the rail takes, with where to create it and what it must allow (from the
 * provider's folder). When several take it (NS1's fleet also serves Netlify DNS), each scope and link
 * names its provider, the chosen or detected one first.
 */
export function tokenHelp(v: View): TokenHelp | null {
  const id = v.state.data.chosen?.id ?? v.state.data.check?.provider
  const takes = (v.state.data.check?.provider_candidates ?? []).filter((c) => c.api_credential && c.token_url)
  takes.sort((a, b) => Number(b.provider === id) - Number(a.provider === id))
  if (!takes.length) return null
  const many = takes.length > 1
  return {
    kind: takes[0]!.credential ?? null,
    scopes: takes.flatMap((c) => c.token_scopes.map((s) => (many ? `${c.provider_name}: ${s}` : s))),
    links: takes.map((c) => ({ at: many ? c.provider_name : null, url: c.token_url! })),
  }
}

export function table(v: View, records: readonly DnsRecordIn[], opts: Parameters<typeof recordsTable>[2] = {}): HTMLElement {
  return recordsTable(records, v.tr, { announce: (s) => v.announce(s), ...opts })
}

/** The records in the way of the desired ones, each with what to do with it. */
export function conflictsTable(v: View, conflicts: Conflict[] = conflictsNow(v.state.data)): HTMLElement | null {
  const routing = routingConflicts(conflicts)
  if (!routing.length) return null
  const byKey = new Map(routing.map((c) => [`${c.type} ${c.host} ${c.value}`, c.action]))
  return table(v, routing, { copy: false, ttl: false, id: 'je-conflicts', action: (r) => byKey.get(`${r.type} ${r.host} ${r.value}`) ?? 'remove' })
}

/**
 * What stands in the way of HTTPS (a CAA set that does not allow the certificate authority, an
 * `_acme-challenge` delegation), in the person's words, with the record to add or remove.
 */
export function certificateNotes(v: View, conflicts: Conflict[] = conflictsNow(v.state.data)): HTMLElement | null {
  const list = certificateConflicts(conflicts)
  if (!list.length) return null
  const t = v.tr.t
  const apex = v.state.data.check?.apex_domain ?? v.state.data.conn?.domain ?? ''
  const fqdn = (host: string) => (host === '@' ? apex : apex ? `${host}.${apex}` : host)
  return h(
    'div',
    { id: 'je-https-notes' },
    ...list.map((c) =>
      h(
        'div',
        { class: c.blocks_certificate ? 'je-note' : undefined, 'data-reason': c.reason },
        h('p', { class: c.blocks_certificate ? 'je-warn' : 'je-small' }, t(c.reason === 'acme_challenge_delegated' ? 'acmeDelegated' : c.action === 'add' ? 'caaForbids' : 'caaForbidsAll', { host: fqdn(c.host) })),
        c.action === 'add'
          ? table(v, [c.desired], { copy: true, ttl: false, action: () => 'add' })
          : table(v, [{ type: c.type, host: c.host, value: c.value }], { copy: false, ttl: false, action: () => 'remove' }),
      ),
    ),
  )
}

/** What stands in the way of HTTPS as last known: the connection's own look, else the analysis's. */
export function httpsConflicts(v: View) {
  const d = v.state.data
  const own = certificateConflicts(d.conn?.conflicts ?? [])
  return own.length ? own : certificateConflicts(d.check?.conflicts ?? [])
}

export function spinner(label: string): HTMLElement {
  return h('div', { class: 'je-spin', role: 'progressbar', 'aria-label': label })
}
