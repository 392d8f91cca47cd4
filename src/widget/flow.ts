// The widget on a page: the machine's runner (runner.ts), the dialog it renders into (ui.ts), one render
// function per screen (screens/), the locale shown (i18n.ts) and the host events (the API contract, section 6).
// A screen is rendered afresh when it is visited, in place when the state changes under it (and every
// few seconds while waiting, so "last checked" stays true); every change a sighted person sees is
// announced, the connection going live first; the application's branding (from the server's answers)
// sets the logo and the primary colour unless the integrator set its own. The connection the person
// committed to is remembered for the tab (sessionStorage, by application and domain), so a reload
// resumes it where it stands; the browser going offline and online is heard at once.
import type { Client } from './api.ts'
import { loadTranslator, translator, type Translator } from './i18n.ts'
import { browserLanguages } from './locale.ts'
import { browserTimers, type Env } from './effects.ts'
import { certificateConflicts, closeDetail, recordsFor, type Notice, type Settings, type State } from './machine.ts'
import { Runner } from './runner.ts'
import { SCREENS } from './screens/index.ts'
import type { View } from './screens/view.ts'
import { tokenDeclarations } from './styles.ts'
import { Dialog, h } from './ui.ts'
import type { CloseDetail, HostEvents, OpenConfig, Rail } from './types.ts'

export const GLOBAL = 'Portico'

export function emit<K extends keyof HostEvents>(name: K, detail: HostEvents[K]): void {
  window.dispatchEvent(new CustomEvent(`${GLOBAL}:${name}`, { detail }))
}

export interface FlowOptions {
  /** Where the locale tables other than English are served (`<base>/<tag>.json`). */
  localesBase: string | null
  /** Portico's page that closes a provider's window when it comes back. */
  returnUrl: string | null
  /** The share link's token, on a share page. */
  shareToken?: string
}

/** Where a committed connection is remembered for the tab. */
const resumeKey = (cfg: OpenConfig, domain: string) => `portico:resume:${cfg.applicationId}:${domain}`

/** sessionStorage, or nothing where the page may not use it (a sandboxed frame, storage disabled). */
function storage(): Storage | null {
  try {
    return window.sessionStorage
  } catch {
    return null
  }
}

function resumeOf(cfg: OpenConfig, domain: string): { connectionId: string; rail: Rail } | null {
  if (!cfg.applicationId) return null
  try {
    const v = JSON.parse(storage()?.getItem(resumeKey(cfg, domain)) ?? 'null')
    return typeof v?.connectionId === 'string' && typeof v.rail === 'string' ? v : null
  } catch {
    return null
  }
}

/** While waiting, the screen is redrawn this often ("last checked 40 seconds ago" stays true). */
const TICK_MS = 10_000

export function settingsOf(cfg: OpenConfig): Settings {
  const pre = cfg.prefilledDomain
  return {
    domain: cfg.domain ?? null,
    forceManual: cfg.forceManualSetup === true,
    defaultSubdomain: cfg.defaultSubdomain ?? null,
    hostRequired: cfg.hostRequired === true,
    subdomains: cfg.supportForSubdomains !== false,
    disabled: cfg.whiteLabel?.screens?.disable ?? [],
    prefilled: typeof pre === 'string' ? pre : '',
    prefilledList: Array.isArray(pre) ? pre : [],
    hideConfetti: cfg.whiteLabel?.hideConfetti === true,
    records: (domain) => recordsFor(cfg.dnsRecords, domain),
    resume: (domain) => resumeOf(cfg, domain),
  }
}

export class Flow {
  private readonly runner: Runner
  private readonly dialog: Dialog
  private tr: Translator = translator('en')
  private ready = false
  private closed = false
  private shownVisit = -1
  private look = ''
  private readonly popup: Env['popup'] = { current: null }
  private readonly wake = new EventTarget()
  private readonly tick: ReturnType<typeof setInterval>
  private readonly offline = () => this.runner.dispatch({ type: 'reach', ok: false })
  private readonly online = () => this.wake.dispatchEvent(new Event('wake'))

  constructor(
    private readonly cfg: OpenConfig,
    api: Client,
    opts: FlowOptions,
  ) {
    const wl = cfg.whiteLabel ?? {}
    const container = cfg.container ? document.querySelector(cfg.container) : wl.embedded ? document.body : null
    if (cfg.container && !container) throw new TypeError(`${GLOBAL}: no element matches container ${cfg.container}`)
    const env: Env = {
      api,
      timers: browserTimers,
      applicationId: cfg.applicationId,
      userId: cfg.userId,
      dnsRecords: cfg.dnsRecords,
      validation: cfg.validation,
      shareToken: opts.shareToken,
      returnUrl: opts.returnUrl,
      popup: this.popup,
      wake: this.wake,
    }
    this.runner = new Runner(
      settingsOf(cfg),
      env,
      (n) => this.notice(n),
      (state, prev) => this.render(state, prev),
    )
    this.dialog = new Dialog({
      container,
      declarations: tokenDeclarations(wl),
      lang: 'en',
      closeLabel: this.tr.t('close'),
      logo: wl.logo,
      logoAlt: cfg.applicationName ?? '',
      hideLogo: wl.hideLogo,
      hideFooter: wl.hideFooter,
      hideClose: wl.hideClose,
      footer: this.tr.t('poweredBy'),
      nonce: cfg.nonce,
      onDismiss: () => this.dismiss(),
    })
    window.addEventListener('offline', this.offline)
    window.addEventListener('online', this.online)
    this.tick = setInterval(() => {
      const st = this.runner.state
      if (st.step === 'IN_PROGRESS' || st.step === 'FINISHED_SUCCESSFULLY_MANUAL') this.render(st, null)
    }, TICK_MS)
    this.dialog.show('', [h('div', { class: 'je-spin', role: 'progressbar', 'aria-label': '…' })], { fresh: true })
    this.notice({ kind: 'step', detail: { step: 'INITIAL' } })
    void loadTranslator(cfg.locale ?? browserLanguages(), opts.localesBase).then((tr) => {
      this.tr = tr
      this.ready = true
      this.dialog.setLocale(tr.locale, tr.t('close'), tr.t('poweredBy'))
      if (!this.closed) this.render(this.runner.state, null)
    })
  }

  get step() {
    return this.runner.state.step
  }

  start(): void {
    this.runner.dispatch({ type: 'start' })
  }

  startShared(): void {
    this.runner.dispatch({ type: 'startShared' })
  }

  private appName(state: State): string | null {
    const app = state.data.app
    return this.cfg.applicationName ?? app?.branding?.display_name ?? (state.data.shared ? (app?.name ?? null) : null)
  }

  private notice(n: Notice): void {
    switch (n.kind) {
      case 'step':
        emit('step', n.detail)
        this.cfg.onStepChange?.(n.detail)
        return
      case 'fallback':
        return emit('fallback', n.detail)
      case 'success':
        emit('success', n.detail)
        this.cfg.onSuccess?.(n.detail)
        return
      case 'error':
        this.cfg.onError?.(n.detail)
        return
      case 'shared':
        return emit('shared', n.detail)
      case 'close':
        return queueMicrotask(() => this.close())
      case 'forget':
        return this.forget(n.domain)
    }
  }

  private forget(domain: string): void {
    try {
      storage()?.removeItem(resumeKey(this.cfg, domain))
    } catch {
      // nothing was kept
    }
  }

  /** Keeps the connection the person committed to for a reload of this tab (not on a share page). */
  private remember(state: State): void {
    const d = state.data
    const waiting = state.step === 'IN_PROGRESS' || state.step === 'FINISHED_SUCCESSFULLY_MANUAL' || state.step === 'FINISHED_SUCCESSFULLY_LINK_SHARED'
    if (!waiting || !d.conn || !d.rail || d.succeeded || d.shared || !this.cfg.applicationId) return
    try {
      storage()?.setItem(resumeKey(this.cfg, d.conn.domain), JSON.stringify({ connectionId: d.conn.id, rail: d.rail }))
    } catch {
      // storage full or refused: a reload starts over, as before
    }
  }

  /** The branding the server answered with, under whatever the integrator set itself. */
  private brand(state: State): void {
    const wl = this.cfg.whiteLabel ?? {}
    const b = state.data.app?.branding
    const accent = b?.accent_color && /^#[0-9a-f]{6}$/i.test(b.accent_color) && !wl.colors?.primary ? b.accent_color : null
    const logo = wl.logo ?? b?.logo_url ?? undefined
    const key = `${accent}|${logo}|${this.appName(state)}`
    if (key === this.look) return
    this.look = key
    this.dialog.setLook(tokenDeclarations(accent ? { ...wl, colors: { ...wl.colors, primary: accent } } : wl), logo, this.appName(state) ?? '')
  }

  private view(state: State): View {
    return {
      state,
      settings: settingsOf(this.cfg),
      tr: this.tr,
      app: this.appName(state),
      send: (e) => this.runner.dispatch(e),
      announce: (text) => this.dialog.announce(text),
      emit,
      openPopup: () => {
        this.popup.current = window.open('', '_blank')
        return this.popup.current !== null
      },
      dismiss: () => this.dismiss(),
      now: () => Date.now(),
      manualDocs: this.cfg.manualSetupDocumentation ?? null,
    }
  }

  private render(state: State, prev: State | null): void {
    if (this.closed || !this.ready || state.closed) return
    this.brand(state)
    this.remember(state)
    const fresh = state.visit !== this.shownVisit
    const screen = SCREENS[state.step](this.view(state))
    this.dialog.show(screen.title, screen.content, { fresh, focus: screen.focus })
    this.shownVisit = state.visit
    if (state.data.shared && this.appName(state)) document.title = `${this.appName(state)}: ${this.tr.t('manualTitle')}`
    if (prev) {
      const said = this.changes(state, prev, screen.title)
      if (said.length) this.dialog.announce(said.join(' '))
    }
  }

  /**
   * What changed that a sighted person sees, in words, the connection going live first: live (the last
   * screen's title, even though a new screen opens and focus moves), HTTPS settled, records found (by
   * the total: "1 of 2 records found"), Portico out of reach and back, the session ended, a check
   * that failed. A new screen the person opened is not announced: its heading takes focus.
   */
  private changes(state: State, prev: State, title: string): string[] {
    const t = this.tr.t
    const out: string[] = []
    const now = state.data.conn
    const was = prev.data.conn
    const same = !!now && !!was && now.id === was.id
    if (now?.status === 'live' && (!same || was!.status !== 'live') && state.step === 'FINISHED_SUCCESSFULLY') out.push(title)
    else if (same && now!.status === 'live' && now!.secure !== was!.secure && (now!.secure === 'secured' || now!.secure === 'failed')) out.push(title)
    if (same && now!.status !== 'live') {
      const found = now!.records.filter((r) => r.state === 'found').length
      if (found !== was!.records.filter((r) => r.state === 'found').length) out.push(t('found', { count: now!.records.length, found }))
      const blocks = (c: typeof now) => certificateConflicts(c!.conflicts ?? []).some((x) => x.blocks_certificate)
      if (blocks(now) && !blocks(was)) out.push(t('httpsBlockedTitle'))
    }
    const d = state.data
    if (d.unreachable !== prev.data.unreachable) out.push(t(d.unreachable ? 'unreachable' : 'reachable'))
    if (d.sessionEnded && !prev.data.sessionEnded) out.push(t('sessionEnded', { app: this.appName(state) ?? t('someApp') }))
    if (d.reason?.code === 'checkFailed' && prev.data.reason?.code !== 'checkFailed') out.push(t('checkFailed'))
    return out
  }

  /** Escape, the × button or a close button: the host decides when it delegates dismissal. */
  dismiss(): void {
    if (this.cfg.whiteLabel?.delegateClose) emit('request-close', { lastStatus: this.runner.state.step })
    else this.close()
  }

  close(): void {
    if (this.closed) return
    this.closed = true
    const state = this.runner.state
    this.runner.stop()
    // Closed on the last screen: a reload starts over.
    if (state.data.succeeded) this.forget(state.data.conn?.domain ?? '')
    clearInterval(this.tick)
    window.removeEventListener('offline', this.offline)
    window.removeEventListener('online', this.online)
    this.dialog.destroy()
    const detail: CloseDetail = closeDetail(state)
    emit('close', detail)
    this.cfg.onClose?.(detail)
  }
}
