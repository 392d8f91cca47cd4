// The connect flow a person sees (CONTRACT.md section 6): enter domain → analysis (POST /domains:check)
// → the recommended rail's screen (automatic rails only when `rails.x.available`, else the manual
// records with a `fallback` event) → progress while propagating (polling the connection) → success or
// error. Every screen change is a `step` event with one of the 15 statuses. Invariants:
// - `step` fires on every screen change, `fallback` at most once per analysis, `success` once per flow;
// - after a failed connection the manual screen shows the records and the reason, and "I have added
//   them" re-checks (`:recheck`) before polling again;
// - a shared flow (share link) runs the same manual and progress screens without a credential;
// - analysis only reads (`POST /domains:check`); the connection is created when the person commits to
//   a rail ("I have added them", sharing, starting one-click setup, submitting a key), so browsing
//   leaves nothing behind to be re-checked. Records whose value only the connection can issue (an
//   ownership token) make the manual screen itself the commitment;
// - every failure after analysis ends on the manual records with the reason in the person's words.
import { ApiFailure, type Client } from './api.ts'
import { translator, localeOf, type Translate } from './i18n.ts'
import { tokenDeclarations } from './styles.ts'
import { logoSvg, TOKEN_HELP } from './providers.ts'
import { copyButton, Dialog, h, recordsTable } from './ui.ts'
import type { CloseDetail, DnsRecordIn, FallbackReason, OpenConfig, Step, StepError, WidgetErrorInfo } from './types.ts'

export const GLOBAL = 'Portico'
const POLL_MS = 2000
const POLL_LIMIT = 60

export function emit(name: string, detail: unknown): void {
  window.dispatchEvent(new CustomEvent(`${GLOBAL}:${name}`, { detail }))
}

/** The connection state a flow needs, from either a connection or a share link. */
interface ConnState {
  id: string
  domain: string
  status: 'pending' | 'propagating' | 'live' | 'failed'
  errorCode: string | null
  errorMessage: string | null
  waiting: number
  /** Records the last verification found, as `type host` keys. */
  found: Set<string>
  lastCheckedAt: string | null
}

const keyOf = (r: { type: string; host: string }) => `${r.type} ${r.host}`

interface Manual {
  records: DnsRecordIn[]
  steps: string[] | null
  dashboardUrl: string | null
}

/** Where the manual screens get their data: the connection itself (token) or a share link (capability). */
export interface Source {
  load(): Promise<Manual>
  recheck(): Promise<ConnState>
  poll(): Promise<ConnState>
  share?(): Promise<{ url: string; expiresAt: string }>
  /** Who asks, on a share page. */
  applicationName?(): string | null
}

const state = (c: any): ConnState => ({
  id: c.id ?? c.connection_id,
  domain: c.domain,
  status: c.status,
  errorCode: c.error_code ?? null,
  errorMessage: c.error_message ?? null,
  waiting: c.propagation?.records_non_propagated?.length ?? 0,
  found: new Set((c.propagation?.records_propagated ?? []).map(keyOf)),
  lastCheckedAt: c.last_checked_at ?? null,
})

export function connectionSource(api: Client, id: string, knownProvider: boolean): Source {
  return {
    async load() {
      const r = await api.call('GET', `/connections/${id}/records`)
      return { records: r.records, steps: knownProvider ? r.manual_steps : null, dashboardUrl: r.dashboard_url }
    },
    recheck: async () => state(await api.call('POST', `/connections/${id}:recheck`)),
    poll: async () => state(await api.call('GET', `/connections/${id}`)),
    async share() {
      const r = await api.call('POST', `/connections/${id}/share`)
      return { url: r.url, expiresAt: r.expires_at }
    },
  }
}

export function sharedSource(api: Client, token: string): Source {
  const path = `/share/${encodeURIComponent(token)}`
  let app: string | null = null
  return {
    applicationName: () => app,
    async load() {
      const r = await api.call('GET', path)
      app = r.application_name ?? null
      return { records: r.records, steps: r.manual_steps.length ? r.manual_steps : null, dashboardUrl: r.dashboard_url }
    },
    recheck: async () => state(await api.call('POST', `${path}:recheck`)),
    poll: async () => state(await api.call('GET', path)),
  }
}

const DOMAIN_RE = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,62}$/

export function normalizeDomain(input: string): string {
  return input.trim().toLowerCase().replace(/^[a-z]+:\/\//, '').replace(/[/?#].*$/, '').replace(/\.$/, '')
}

/** The records an integrator supplied for `domain`: one list for every domain, or a map per domain. */
export function recordsFor(dns: OpenConfig['dnsRecords'], domain: string): DnsRecordIn[] | undefined {
  if (!dns) return undefined
  return Array.isArray(dns) ? dns : dns[domain]
}

/** Why a person lands on a non-automatic screen after analysis (`fallback` event reasons). */
export function fallbackReason(check: any, forced: boolean): FallbackReason {
  if (!check.provider) return 'unknown_provider'
  if (!forced && check.conflicts?.length && (check.rails.oauth.available || check.rails.domainConnect.available || check.rails.apiKey.available)) return 'conflicts_exceed_tolerance'
  if (!check.supports_automatic) return 'provider_unsupported'
  return 'no_end_user_rail'
}

export class Flow {
  step: Step = 'INITIAL'
  private error: StepError | undefined
  private readonly t: Translate
  private readonly dialog: Dialog
  private timer: ReturnType<typeof setTimeout> | undefined
  private closed = false
  private succeeded = false
  private conn: ConnState | null = null
  private source: Source | null = null
  private provider: string | null = null
  private providerId: string | null = null
  private knownProvider = false
  private setupType: 'manual' | 'automatic' | null = null
  private shared = false
  private domain: string | null = null
  /** The last analysis (`POST /domains:check`), until a connection exists. */
  private check: any = null
  /** Why the person is on the manual screen, in their words (cleared once they act on it). */
  private reason: string | null = null
  private catalogSteps: string[] | null = null
  private catalogDashboard: string | null = null
  private fellBack = false

  constructor(
    private readonly cfg: OpenConfig,
    private readonly api: Client,
  ) {
    this.t = translator(cfg.locale)
    const wl = cfg.whiteLabel ?? {}
    const container = cfg.container ? document.querySelector(cfg.container) : wl.embedded ? document.body : null
    if (cfg.container && !container) throw new TypeError(`${GLOBAL}: no element matches container ${cfg.container}`)
    this.dialog = new Dialog({
      container,
      declarations: tokenDeclarations(wl),
      lang: localeOf(cfg.locale),
      closeLabel: this.t('close'),
      logo: wl.logo,
      hideLogo: wl.hideLogo,
      hideFooter: wl.hideFooter,
      hideClose: wl.hideClose,
      footer: this.t('poweredBy'),
      onDismiss: () => this.dismiss(),
    })
    this.go('INITIAL')
  }

  private get app(): string {
    return this.cfg.applicationName ?? ''
  }
  private disabled(s: Step): boolean {
    return this.cfg.whiteLabel?.screens?.disable?.includes(s) ?? false
  }

  private go(step: Step, error?: StepError): void {
    this.step = step
    this.error = error
    const detail = error ? { step, error } : { step }
    emit('step', detail)
    this.cfg.onStepChange?.(detail)
  }

  start(): void {
    if (this.cfg.domain) void this.analyse(normalizeDomain(this.cfg.domain))
    else this.enterDomain()
  }

  startShared(source: Source): void {
    this.source = source
    this.shared = true
    void this.showManual()
  }

  enterDomain(message?: string, value?: string): void {
    this.go('ENTER_DOMAIN')
    const pre = this.cfg.prefilledDomain
    const input = h('input', { id: 'je-domain', name: 'domain', type: 'text', inputmode: 'url', autocomplete: 'off', spellcheck: 'false', required: true, autofocus: true, 'aria-describedby': 'je-domain-hint', list: Array.isArray(pre) ? 'je-domains' : undefined }) as HTMLInputElement
    input.value = value ?? (Array.isArray(pre) ? '' : pre ?? '')
    const hint = h('p', { id: 'je-domain-hint', class: message ? 'je-err' : 'je-hint', role: message ? 'alert' : undefined }, message ?? this.t('domainHint'))
    const form = h(
      'form',
      {
        novalidate: true,
        onsubmit: (e) => {
          e.preventDefault()
          const d = normalizeDomain(input.value)
          if (!DOMAIN_RE.test(d)) return this.enterDomain(this.t('domainInvalid'), input.value)
          void this.analyse(d)
        },
      },
      h('label', { for: 'je-domain' }, this.t('domainLabel')),
      input,
      Array.isArray(pre) ? h('datalist', { id: 'je-domains' }, ...pre.map((d) => h('option', { value: d }))) : null,
      hint,
      h('div', { class: 'je-row' }, h('button', { type: 'submit', class: 'je-btn', id: 'je-continue' }, this.t('continue'))),
    )
    this.dialog.show(this.app ? this.t('titleApp', { app: this.app }) : this.t('title'), form)
  }

  private spinner(title: string, intro?: string): void {
    this.dialog.show(title, intro ? h('p', {}, intro) : null, h('div', { class: 'je-spin', role: 'progressbar', 'aria-label': title }))
  }

  async analyse(domain: string): Promise<void> {
    this.go('DOMAIN_ANALYSIS')
    this.conn = null
    this.source = null
    this.check = null
    this.reason = null
    this.domain = domain
    this.spinner(this.t('analysing', { domain }))
    try {
      const check = await this.api.call('POST', '/domains:check', { domain, application_id: this.cfg.applicationId })
      if (this.closed) return
      if (check.is_apex && this.cfg.defaultSubdomain) return void this.analyse(`${this.cfg.defaultSubdomain}.${domain}`)
      if (check.is_apex && this.cfg.hostRequired) return this.enterDomain(this.t('subdomainRequired', { domain }), domain)
      if (!check.is_apex && this.cfg.supportForSubdomains === false) return this.enterDomain(this.t('subdomainRefused'), domain)
      if (check.blocked_reason) throw new ApiFailure('GenericError', { code: check.blocked_reason, title: check.blocked_reason.replace(/_/g, ' '), details: { domain } }, 422)
      this.check = check
      this.provider = check.provider_name
      this.providerId = check.provider ?? null
      this.knownProvider = !!check.provider
      // The resolver failed: nothing automatic can be trusted, the records can still be added by hand.
      if (check.detection_error === 'resolver') {
        this.reason = this.t('reasonDns', { domain })
        emit('fallback', { reason: fallbackReason(check, false), screen: 'MANUAL_CONFIGURATION', message: 'detection_error' })
        return void this.showManual()
      }
      this.route(check)
    } catch (err) {
      this.fail(err)
    }
  }

  /** The records the connection will carry: the integrator's, else the analysis's plan. */
  private plannedRecords(): DnsRecordIn[] {
    return recordsFor(this.cfg.dnsRecords, this.domain!) ?? this.check?.desired_records ?? []
  }

  /** The end user commits to a rail: the connection is created now (idempotent for an open one). */
  private async commit(): Promise<ConnState> {
    if (this.conn) return this.conn
    const domain = this.domain!
    const created = await this.api.call('POST', '/connections', {
      domain,
      application_id: this.cfg.applicationId,
      ...(this.cfg.userId ? { end_user_ref: this.cfg.userId } : {}),
      ...(recordsFor(this.cfg.dnsRecords, domain) ? { records: recordsFor(this.cfg.dnsRecords, domain) } : {}),
    })
    this.conn = state(created)
    this.source = connectionSource(this.api, this.conn.id, this.knownProvider)
    return this.conn
  }

  /** Manual data before any connection exists: the planned records and the catalog's steps. */
  private async preview(): Promise<Manual> {
    if (this.providerId && this.catalogSteps === null) {
      try {
        const p = (await this.api.call('GET', '/providers')).providers.find((x: any) => x.id === this.providerId)
        this.catalogSteps = p?.manual_steps ?? []
        this.catalogDashboard = p?.dashboard_url ?? null
      } catch {
        this.catalogSteps = []
      }
    }
    return { records: this.plannedRecords(), steps: this.catalogSteps?.length ? this.catalogSteps : null, dashboardUrl: this.catalogDashboard }
  }

  /** The heading strip naming the detected provider, with its logo. */
  private detected(): HTMLElement | null {
    if (!this.provider) return null
    return h('p', { class: 'je-detected' }, logoSvg(this.providerId), this.t('detected', { provider: this.provider }))
  }

  /** Leaves an automatic rail for the manual records, saying why. */
  private toManual(reason: string, fallback: FallbackReason, message?: string): void {
    this.reason = reason
    emit('fallback', { reason: fallback, ...(this.providerId ? { provider: this.providerId } : {}), screen: 'MANUAL_CONFIGURATION', ...(message ? { message } : {}) })
    void this.showManual()
  }

  /** The end user's words for an API failure after analysis. */
  private reasonFor(f: ApiFailure): string {
    const provider = this.provider ?? ''
    const d = (f.envelope.details ?? {}) as Record<string, unknown>
    if (f.envelope.code === 'forbidden') return this.t('reasonForbidden', { app: this.app || '', domain: this.domain ?? '' })
    if (f.envelope.code === 'ProviderAuthenticationError') return this.t('reasonKey', { provider, scopes: (TOKEN_HELP[this.providerId ?? '']?.scopes ?? []).join(', ') || '—' })
    if (d.reason === 'provider_unreachable' || f.status === 502 || f.status === 504 || f.sdkCode === 'NetworkError') return this.t('reasonUnreachable', { provider })
    if (f.envelope.code === 'service_unavailable' || f.status === 503) return this.t('reasonDns', { domain: this.domain ?? '' })
    if (f.sdkCode === 'TimeoutError') return this.t('reasonTimeout')
    return this.t('reasonGeneric')
  }

  private route(check: any): void {
    const forced = this.cfg.forceManualSetup === true
    const rail = forced ? 'manual' : check.recommended_rail
    const clean = !check.conflicts?.length
    if (rail && rail !== 'manual' && check.rails[rail]?.available && clean) return this.automatic(rail, check.rails[rail]?.caveat === 'managed_only')
    const reason = fallbackReason(check, forced)
    const screen: Step = check.conflicts?.length && !this.disabled('EXISTING_RECORDS') ? 'EXISTING_RECORDS' : !check.provider && !this.disabled('PROVIDER_MANUAL_SELECTION') ? 'PROVIDER_MANUAL_SELECTION' : 'MANUAL_CONFIGURATION'
    emit('fallback', { reason, ...(check.provider ? { provider: check.provider } : {}), screen, ...(forced ? { message: 'forceManualSetup' } : {}) })
    if (screen === 'EXISTING_RECORDS') return this.existing(check)
    if (screen === 'PROVIDER_MANUAL_SELECTION') return void this.pickProvider()
    if (check.conflicts?.length) this.reason = this.t('reasonConflict', { domain: check.domain })
    void this.showManual()
  }

  private existing(check: any): void {
    this.go('EXISTING_RECORDS')
    this.dialog.show(
      this.t('existingTitle'),
      h('p', {}, this.t('existingIntro', { domain: check.domain })),
      this.table(check.conflicts, false, undefined, false),
      h(
        'div',
        { class: 'je-row' },
        h(
          'button',
          {
            type: 'button',
            class: 'je-btn',
            autofocus: true,
            onclick: () => {
              this.reason = this.t('reasonConflict', { domain: check.domain })
              void (check.provider ? this.showManual() : this.pickProvider())
            },
          },
          this.t('continue'),
        ),
      ),
    )
  }

  private async pickProvider(): Promise<void> {
    this.go('PROVIDER_MANUAL_SELECTION')
    let providers: { id: string; name: string; manual_steps: string[]; dashboard_url: string }[] = []
    try {
      providers = (await this.api.call('GET', '/providers')).providers
    } catch {
      // Without the catalog the person still gets the generic steps.
    }
    const select = h('select', { id: 'je-provider', autofocus: true }, h('option', { value: '' }, this.t('providerOther')), ...providers.map((p) => h('option', { value: p.id }, p.name))) as HTMLSelectElement
    this.dialog.show(
      this.t('providerTitle'),
      h('label', { for: 'je-provider' }, this.t('providerLabel')),
      select,
      h('div', { class: 'je-row' }, h('button', { type: 'button', class: 'je-btn', onclick: () => void this.showManual(providers.find((p) => p.id === select.value)) }, this.t('continue'))),
    )
  }

  private automatic(rail: 'oauth' | 'domainConnect' | 'apiKey', managedOnly = false): void {
    const provider = this.provider ?? ''
    if (rail === 'apiKey') return this.login(provider)
    this.go('DOMAIN_SETUP')
    const path = rail === 'oauth' ? 'oauth:start' : 'domainconnect:start'
    const onGo = async () => {
      // The window opens inside the click so pop-up blockers allow it; it is pointed once the URL is known.
      const popup = window.open('', '_blank')
      if (!popup) {
        this.reportOnly({ code: 'PopupBlockedError', message: 'The browser blocked the provider window' })
        return this.toManual(this.t('reasonPopup', { provider }), 'provider_unsupported', 'popup_blocked')
      }
      try {
        const c = await this.commit()
        this.setupType = 'automatic'
        // A provider offering only the managed Domain Connect rail is asked for it; its consent page opens.
        const r = await this.api.call('POST', `/connections/${c.id}/${path}`, managedOnly ? { rail: 'async' } : {})
        popup.location.href = r.apply_url ?? r.consent_url ?? r.authorize_url
        void this.progress(true)
      } catch (err) {
        popup.close()
        this.setupType = null
        const e = err instanceof ApiFailure ? err : null
        this.reportOnly({ code: rail === 'oauth' ? 'ProviderError' : 'DomainConnectError', message: e?.message ?? String(err), details: e?.envelope })
        const unreachable = e && this.reasonFor(e) === this.t('reasonUnreachable', { provider })
        this.toManual(unreachable ? this.reasonFor(e) : this.t('reasonOneClick', { provider }), 'provider_unsupported', e?.envelope.code)
      }
    }
    this.dialog.show(
      this.t('setupTitle', { provider }),
      this.detected(),
      h('p', {}, this.t('setupWhat', { provider })),
      this.table(this.plannedRecords(), false),
      h(
        'div',
        { class: 'je-row' },
        h('button', { type: 'button', class: 'je-btn', id: 'je-setup-go', autofocus: true, onclick: () => void onGo() }, this.t('setupGo', { provider })),
        this.manualInstead(),
      ),
    )
  }

  private manualInstead(): HTMLElement {
    return h('button', { type: 'button', class: 'je-btn je-alt', id: 'je-manual-instead', onclick: () => this.toManual('', 'no_end_user_rail', 'chosen_by_user') }, this.t('manualInstead'))
  }

  private login(provider: string): void {
    this.go('LOGIN')
    const help = TOKEN_HELP[this.providerId ?? '']
    const input = h('input', { id: 'je-credential', type: 'password', autocomplete: 'off', required: true, autofocus: true, 'aria-describedby': 'je-login-intro' }) as HTMLInputElement
    const form = h(
      'form',
      {
        onsubmit: async (e) => {
          e.preventDefault()
          try {
            const c = await this.commit()
            this.setupType = 'automatic'
            await this.api.call('POST', `/connections/${c.id}/apply`, { credential: input.value })
            void this.progress(true)
          } catch (err) {
            this.setupType = null
            if (!(err instanceof ApiFailure) || err.status === 401) return this.fail(err)
            this.reportOnly({ code: 'ProviderError', message: err.message, details: err.envelope })
            this.toManual(this.reasonFor(err), 'provider_unsupported', err.envelope.code)
          }
        },
      },
      this.detected(),
      h('p', { id: 'je-login-intro' }, this.t('loginIntro', { provider, kind: help?.kind ?? this.t('loginLabel') })),
      help ? h('ul', { class: 'je-scopes' }, ...help.scopes.map((s) => h('li', {}, s))) : null,
      help ? h('p', {}, h('a', { href: help.url, target: '_blank', rel: 'noopener', id: 'je-token-link' }, this.t('loginCreate', { provider: help.at ?? provider }))) : null,
      help?.also ? h('p', {}, h('a', { href: help.also.url, target: '_blank', rel: 'noopener', id: 'je-token-link-also' }, this.t('loginCreate', { provider: help.also.at }))) : null,
      h('label', { for: 'je-credential' }, this.t('loginLabel')),
      input,
      h('div', { class: 'je-row' }, h('button', { type: 'submit', class: 'je-btn' }, this.t('loginGo')), this.manualInstead()),
    )
    this.dialog.show(this.t('loginTitle', { provider }), form)
  }

  /** The records as a table: type, host, value (with copy buttons when `copy`), TTL, and each record's status when given. */
  private table(records: DnsRecordIn[], copy = true, status?: (r: DnsRecordIn) => 'found' | 'waiting' | 'conflict', ttl = true): HTMLElement {
    return recordsTable(records, this.t, { copy, status, ttl, announce: (s) => this.dialog.announce(s) })
  }

  /** Steps in the person's language: the catalog's (English) words in English, else translated ones naming the provider. */
  private steps(catalog: string[] | null, domain: string): string[] {
    if (catalog && localeOf(this.cfg.locale) === 'en') return catalog
    if (this.provider) return this.t('stepsProvider', { provider: this.provider, domain }).split('|')
    return this.t('stepsGeneric', { domain }).split('|')
  }

  async showManual(chosen?: { manual_steps: string[]; dashboard_url: string }): Promise<void> {
    try {
      // Values only a connection can issue (an ownership token) cannot be shown from the plan.
      if (!this.source && this.plannedRecords().some((r) => r.value.includes('<'))) await this.commit()
      const m = this.source ? await this.source.load() : await this.preview()
      const c = this.source ? (this.conn ?? (await this.source.poll())) : null
      this.conn = c
      if (this.closed) return
      if (c?.status === 'live') return this.success()
      this.go('MANUAL_CONFIGURATION')
      const domain = c?.domain ?? this.domain!
      const steps = chosen?.manual_steps ?? this.steps(m.steps, domain)
      const dashboard = chosen?.dashboard_url ?? m.dashboardUrl
      const docs = this.cfg.manualSetupDocumentation
      const reason = this.reason || (c?.status === 'failed' ? this.t('manualFailed', { reason: c.errorMessage ?? c.errorCode ?? '' }) : null)
      const conflicts = this.check?.conflicts?.length ? this.check.conflicts : null
      const app = this.source?.applicationName?.() ?? null
      // The share page is the whole browser tab: its title names who asks.
      if (app && this.shared) document.title = `${app}: ${this.t('manualTitle')}`
      this.dialog.show(
        this.t('manualTitle'),
        app ? h('p', { id: 'je-asker' }, this.t('shareBy', { app, domain })) : null,
        this.detected(),
        reason ? h('p', { class: 'je-err', role: 'alert', id: 'je-reason' }, reason) : null,
        conflicts ? this.table(conflicts, false, undefined, false) : null,
        h('p', {}, this.t('manualIntro', { domain })),
        h('ol', { class: 'je-steps' }, ...steps.map((s) => h('li', {}, s))),
        this.table(m.records),
        h(
          'div',
          { class: 'je-row' },
          h('button', { type: 'button', class: 'je-btn', id: 'je-added', autofocus: true, onclick: () => void this.added() }, this.t('added')),
          !this.shared ? h('button', { type: 'button', class: 'je-btn je-alt', id: 'je-share', onclick: () => void this.share() }, this.t('share')) : null,
        ),
        h(
          'p',
          { class: 'je-small' },
          dashboard ? h('a', { href: dashboard, target: '_blank', rel: 'noopener' }, this.t('dashboard')) : null,
          dashboard && docs ? ' · ' : null,
          docs ? h('a', { href: docs, target: '_blank', rel: 'noopener', id: 'je-docs', onclick: () => emit('doc-click', { url: docs, step: this.step }) }, this.t('docs')) : null,
        ),
      )
    } catch (err) {
      this.fail(err)
    }
  }

  /** "I have added them": re-check first (this revives a failed connection), then poll. */
  private async added(): Promise<void> {
    this.go('IN_PROGRESS')
    this.spinner(this.t('progressTitle'), this.t('progressIntro'))
    try {
      await this.commit()
      this.setupType ??= 'manual'
      this.reason = null
      this.fellBack = false
      this.conn = await this.source!.recheck()
      await this.progress(false)
    } catch (err) {
      this.fail(err)
    }
  }

  private async progress(automatic: boolean, polls = 0): Promise<void> {
    if (this.closed) return
    const c = polls === 0 && this.conn && !automatic ? this.conn : await this.source!.poll()
    this.conn = c
    if (this.closed) return
    if (c.status === 'live') return this.success()
    if (c.status === 'failed') return void this.showManual()
    if (this.step !== 'IN_PROGRESS' || !this.waitingScreen) this.showWaiting(automatic)
    else this.updateWaiting()
    if (polls >= POLL_LIMIT) {
      if (automatic) return this.fail(new ApiFailure('TimeoutError', { code: 'timeout', title: 'The records did not appear in time', details: { connection_id: c.id } }, 0))
      return this.finishedManual()
    }
    this.timer = setTimeout(() => void this.progress(automatic, polls + 1).catch((e) => this.fail(e)), POLL_MS)
  }

  private waitingScreen: { table: HTMLElement; ago: HTMLElement; count: HTMLElement } | null = null
  private records: DnsRecordIn[] = []

  /** The waiting screen: each record with its status from the last verification, "check now", "back to the steps". */
  private showWaiting(automatic: boolean): void {
    if (this.step !== 'IN_PROGRESS') this.go('IN_PROGRESS')
    const count = h('p', { class: 'je-small', id: 'je-waiting' })
    const ago = h('p', { class: 'je-small', id: 'je-checked' })
    const table = h('div', {})
    this.waitingScreen = { table, ago, count }
    this.dialog.show(
      this.t('progressTitle'),
      h('p', {}, this.t('progressIntro')),
      count,
      table,
      ago,
      h(
        'div',
        { class: 'je-row' },
        h('button', { type: 'button', class: 'je-btn', id: 'je-check-now', autofocus: true, onclick: () => void this.checkNow(automatic) }, this.t('checkNow')),
        h('button', { type: 'button', class: 'je-btn je-alt', id: 'je-back-steps', onclick: () => this.backToSteps() }, this.t('backToSteps')),
      ),
    )
    void this.source!.load().then((m) => {
      this.records = m.records
      this.updateWaiting()
    })
    this.updateWaiting()
  }

  private updateWaiting(): void {
    const w = this.waitingScreen
    const c = this.conn
    if (!w || !c) return
    w.count.textContent = c.waiting ? this.t('waitingFor', { count: c.waiting }) : ''
    w.table.replaceChildren(this.statusTable(c))
    w.ago.textContent = c.lastCheckedAt ? this.t('checkedAgo', { ago: this.ago(c.lastCheckedAt) }) : this.t('notChecked')
  }

  /** The records with their status as of the connection's last verification. */
  private statusTable(c: ConnState): HTMLElement {
    const conflicts = new Set<string>((this.check?.conflicts ?? []).map((x: any) => keyOf(x.desired)))
    return this.table(this.records, false, (r) => (c.found.has(keyOf(r)) ? 'found' : conflicts.has(keyOf(r)) ? 'conflict' : 'waiting'))
  }

  private ago(at: string): string {
    const s = Math.max(0, Math.round((Date.now() - Date.parse(at)) / 1000))
    return s < 120 ? this.t('agoSeconds', { n: s }) : this.t('agoMinutes', { n: Math.round(s / 60) })
  }

  private async checkNow(automatic: boolean): Promise<void> {
    try {
      this.conn = await this.source!.recheck()
      clearTimeout(this.timer)
      await this.progress(automatic, 0)
    } catch (err) {
      this.fail(err)
    }
  }

  private backToSteps(): void {
    clearTimeout(this.timer)
    this.waitingScreen = null
    void this.showManual()
  }

  private finishedManual(): void {
    this.go('FINISHED_SUCCESSFULLY_MANUAL')
    this.waitingScreen = null
    this.dialog.show(this.t('successManualTitle'), h('p', {}, this.t('successManualIntro', { domain: this.conn!.domain })), this.statusTable(this.conn!), this.closeRow())
  }

  private async share(): Promise<void> {
    try {
      await this.commit()
      const link = await this.source!.share!()
      const detail = { url: link.url, expiresAt: link.expiresAt, domain: this.conn!.domain, connectionId: this.conn!.id }
      emit('shared', detail)
      this.go('FINISHED_SUCCESSFULLY_LINK_SHARED')
      const input = h('input', { id: 'je-link', readonly: true, value: link.url }) as HTMLInputElement
      this.dialog.show(
        this.t('sharedTitle'),
        h('p', {}, this.t('sharedIntro', { domain: this.conn!.domain })),
        h('label', { for: 'je-link' }, this.t('linkLabel')),
        input,
        h(
          'div',
          { class: 'je-row' },
          copyButton(link.url, '', this.t('copy'), this.t('copied'), (s) => this.dialog.announce(s)),
          h('button', { type: 'button', class: 'je-btn je-alt', autofocus: true, onclick: () => void this.showManual() }, this.t('back')),
        ),
      )
    } catch (err) {
      this.fail(err)
    }
  }

  private success(): void {
    if (this.succeeded) return
    this.succeeded = true
    clearTimeout(this.timer)
    const c = this.conn!
    this.go('FINISHED_SUCCESSFULLY')
    const result = { jobId: c.id, domain: c.domain, setupType: this.setupType ?? 'manual' }
    emit('success', result)
    this.cfg.onSuccess?.(result)
    if (this.disabled('FINISHED_SUCCESSFULLY')) return this.close()
    const wl = this.cfg.whiteLabel ?? {}
    const confetti = wl.hideConfetti
      ? null
      : h('div', { class: 'je-confetti', 'aria-hidden': 'true' }, ...Array.from({ length: 24 }, (_, i) => h('i', { style: `left:${(i * 37) % 100}%;background:hsl(${i * 47},80%,55%);animation-delay:${(i % 6) * 0.08}s` })))
    this.dialog.show(this.t('successTitle'), h('p', { class: 'je-ok', id: 'je-success' }, this.t('successIntro', { domain: c.domain, app: this.app || c.domain })), this.closeRow(), confetti)
  }

  private closeRow(): HTMLElement {
    return h('div', { class: 'je-row' }, h('button', { type: 'button', class: 'je-btn', autofocus: true, onclick: () => this.dismiss() }, this.t('close')))
  }

  /** Reports an error to the host without leaving the current screen. */
  private reportOnly(e: WidgetErrorInfo): void {
    this.cfg.onError?.(e)
  }

  fail(err: unknown): void {
    if (this.closed) return
    clearTimeout(this.timer)
    const f = err instanceof ApiFailure ? err : new ApiFailure('GenericError', { code: 'internal_error', title: String((err as Error)?.message ?? err), details: null }, 0)
    // After an analysis the records are known: the person gets them, with the reason, not a dead end.
    // Once only, so a manual screen that itself fails to load cannot loop.
    if (this.check && !this.fellBack && f.status !== 401 && f.envelope.code !== 'forbidden') {
      this.fellBack = true
      this.cfg.onError?.({ code: f.sdkCode, message: f.envelope.title, details: f.envelope })
      return this.toManual(this.reasonFor(f), 'provider_unsupported', f.envelope.code)
    }
    this.go('EXIT_WITH_ERROR', f.envelope)
    this.cfg.onError?.({ code: f.sdkCode, message: f.envelope.title, details: f.envelope })
    const words = f.envelope.code === 'forbidden' || f.status === 503 || f.sdkCode === 'NetworkError' ? this.reasonFor(f) : f.envelope.title
    this.dialog.show(
      this.t('errorTitle'),
      h('p', { class: 'je-err', role: 'alert', id: 'je-error' }, words),
      h('div', { class: 'je-row' }, this.conn ? h('button', { type: 'button', class: 'je-btn', autofocus: true, onclick: () => void this.showManual() }, this.t('back')) : this.shared ? null : h('button', { type: 'button', class: 'je-btn', autofocus: true, onclick: () => this.enterDomain() }, this.t('retry'))),
    )
  }

  /** Escape, the × button or a close button: the host decides when it delegates dismissal. */
  dismiss(): void {
    if (this.cfg.whiteLabel?.delegateClose) emit('request-close', { lastStatus: this.step })
    else this.close()
  }

  close(): void {
    if (this.closed) return
    this.closed = true
    clearTimeout(this.timer)
    this.dialog.destroy()
    const detail: CloseDetail = {
      lastStatus: this.step,
      ...(this.error ? { error: this.error } : {}),
      domain: this.conn?.domain ?? this.domain,
      success: this.succeeded,
      setupType: this.succeeded ? (this.setupType ?? 'manual') : null,
      provider: this.providerId,
    }
    emit('close', detail)
    this.cfg.onClose?.(detail)
  }
}

