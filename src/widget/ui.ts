// The widget's dialog: one accessible container the flow renders screens into. Invariants: the
// dialog element (role="dialog") is in the page with the screen's words: its heading and its prose
// (every paragraph and list item that holds only text, warnings and errors among them) are slotted
// light-DOM children, so the dialog is named and described by id (`aria-labelledby`, `aria-describedby`:
// id references do not cross a shadow boundary), a field inside is described by its hint through
// element references, and the page's own scripts read what the person reads (`innerText`). Everything
// else (controls, tables, layout) is in the dialog's open shadow root, styled by constructable
// stylesheets (no `style` attribute, no inline <style>: a host CSP without 'unsafe-inline' changes
// nothing; where a browser lacks them, a <style> carrying the host's `nonce`). The page's CSS neither
// hides nor restyles anything: the shadow tree is out of its reach, and the slotted words are sealed
// from inside (styles.ts). A modal dialog traps Tab focus inside itself and Escape asks to dismiss it
// (WAI-ARIA Authoring Practices, "Dialog (Modal) Pattern"); focus returns to where it was when the
// dialog goes away; a new screen opens at its top (focus moves without scrolling, the dialog scrolls to
// its start), an update of the same screen keeps focus and scroll where the person left them; only
// status changes are announced, through one polite status region (the screens themselves are not live
// regions); the host page behind a modal dialog is `inert` until it closes, and the modal dialog is in
// the top layer (a manual popover: no page transform or z-index reaches it). The direction (`dir`)
// follows the locale shown, whatever the host page's. Embedded mode renders inline in the host's
// container, without overlay. `hideLogo` hides only the integrator's logo (and a logo that does not
// load is hidden); `hideFooter` the "Powered by" line; `hideClose` the ×.
import { directionOf } from './locale.ts'
import { STYLESHEET } from './styles.ts'
import type { Translator } from './i18n.ts'
import type { DnsRecordIn } from './types.ts'

export type Child = Node | string | null | undefined | false
type Attrs = Record<string, string | boolean | ((e: Event) => void) | undefined>

export function h(tag: string, attrs: Attrs = {}, ...children: (Child | Child[])[]): HTMLElement {
  const el = document.createElement(tag)
  for (const [k, v] of Object.entries(attrs)) {
    if (typeof v === 'function') el.addEventListener(k.slice(2).toLowerCase(), v)
    else if (v === true) el.setAttribute(k, '')
    else if (typeof v === 'string') el.setAttribute(k, v)
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) el.append(c)
  return el
}

const FOCUSABLE = 'a[href],button:not([disabled]),input:not([disabled]),select:not([disabled]),textarea,[tabindex]:not([tabindex="-1"])'

/** Element references (`ariaDescribedByElements`) reach from the shadow tree to the page; ids do not. */
const reflects = typeof Element !== 'undefined' && 'ariaDescribedByElements' in Element.prototype

const constructable = typeof CSSStyleSheet !== 'undefined' && 'replaceSync' in CSSStyleSheet.prototype && typeof ShadowRoot !== 'undefined' && 'adoptedStyleSheets' in ShadowRoot.prototype
let base: CSSStyleSheet | null = null

/**
 * The stylesheet shared by every widget shown (built once; `load()` builds it ahead). Given a document,
 * it styles that document's own `.je-root` too (the MCP App's page, which renders the widget's pieces
 * without a dialog).
 */
export function injectStyles(doc?: Document): void {
  if (constructable && !base) {
    base = new CSSStyleSheet()
    base.replaceSync(STYLESHEET)
  }
  if (doc && base) doc.adoptedStyleSheets = [...doc.adoptedStyleSheets, base]
  else if (doc) doc.head.append(h('style', {}, STYLESHEET))
}

/** The element focused, looking into shadow roots. */
export function activeElement(): Element | null {
  let a = document.activeElement
  while (a?.shadowRoot?.activeElement) a = a.shadowRoot.activeElement
  return a
}

let seq = 0
/** The modal dialog on the page, if any. */
let shown: Dialog | null = null

export interface DialogOptions {
  container: Element | null
  declarations: string
  lang: string
  closeLabel: string
  logo?: string
  logoAlt?: string
  hideLogo?: boolean
  hideFooter?: boolean
  hideClose?: boolean
  footer: string
  /** For browsers without constructable stylesheets: the nonce of the host's `style-src`. */
  nonce?: string
  onDismiss: () => void
}

export class Dialog {
  /** The dialog element, in the page. */
  readonly host: HTMLElement
  /** The dialog's box, in its shadow root. */
  readonly root: HTMLElement
  private readonly shadow: ShadowRoot
  private readonly title: HTMLElement
  private readonly body: HTMLElement
  private readonly head: HTMLElement
  private readonly foot: HTMLElement | null
  private readonly close: HTMLElement | null
  private returnFocus: Element | null
  private readonly setTheme: (css: string) => void
  /** Announces status changes and transient confirmations ("Copied") to assistive technology. */
  private readonly status = h('div', { class: 'je-sr', role: 'status' })
  /** Host elements this dialog made inert, to restore exactly those. */
  private readonly inerted: Element[] = []
  /** The screen's words, slotted into the page (see the header). */
  private words: HTMLElement[] = []

  constructor(private readonly o: DialogOptions) {
    injectStyles()
    const modal = o.container === null
    // Opened over another modal one (which closes next): its page state is taken over, the page stays
    // inert and focus goes back where it was before the first.
    const prev = modal ? shown : null
    this.returnFocus = prev ? prev.returnFocus : activeElement()
    const titleId = `portico-title-${++seq}`
    this.title = h('h2', { id: titleId, tabindex: '-1', slot: 'title' })
    this.host = h('div', { role: 'dialog', 'aria-labelledby': titleId, 'aria-modal': modal ? 'true' : undefined, popover: modal ? 'manual' : undefined, lang: o.lang, dir: directionOf(o.lang), 'data-portico': '' }, this.title)
    this.shadow = this.host.attachShadow({ mode: 'open' })
    this.body = h('div', { class: 'je-body' })
    this.head = h('div', { class: 'je-head' })
    this.close = o.hideClose ? null : h('button', { type: 'button', class: 'je-x', 'aria-label': o.closeLabel, onclick: () => o.onDismiss() }, '×')
    this.foot = o.hideFooter ? null : h('div', { class: 'je-foot' }, o.footer)
    this.root = h('div', { class: 'je-root' }, this.close, this.head, h('slot', { name: 'title' }), this.body, this.status, this.foot)
    this.host.addEventListener('keydown', (e) => this.key(e))
    if (constructable && base) {
      const theme = new CSSStyleSheet()
      this.shadow.adoptedStyleSheets = [base, theme]
      this.setTheme = (css) => theme.replaceSync(css)
    } else {
      const style = (text: string) => h('style', { nonce: o.nonce }, text)
      const theme = style('')
      this.shadow.append(style(STYLESHEET), theme)
      this.setTheme = (css) => (theme.textContent = css)
    }
    this.shadow.append(this.root)
    this.setLook(o.declarations, o.logo, o.logoAlt ?? '')
    if (modal) {
      if (prev) {
        this.inerted.push(...prev.inerted.splice(0))
        prev.returnFocus = null
      }
      shown = this
      for (const el of document.body.children) {
        if (el.tagName !== 'SCRIPT' && el.tagName !== 'STYLE' && !el.hasAttribute('inert')) {
          el.setAttribute('inert', '')
          this.inerted.push(el)
        }
      }
    }
    ;(o.container ?? document.body).append(this.host)
    // The browser's top layer: above any z-index, and fixed to the viewport whatever transform the page's body has.
    if (modal) this.host.showPopover?.()
  }

  /** The locale shown: the dialog's `lang` and direction, and the words of its own controls. */
  setLocale(lang: string, closeLabel: string, footer: string): void {
    this.host.setAttribute('lang', lang)
    this.host.setAttribute('dir', directionOf(lang))
    this.close?.setAttribute('aria-label', closeLabel)
    if (this.foot) this.foot.textContent = footer
  }

  /** The look: custom-property declarations on the host (`!important`: the page cannot set them) and the logo. */
  setLook(declarations: string, logo: string | undefined, logoAlt: string): void {
    this.setTheme(`:host{${declarations.split(';').map((d) => `${d}!important`).join(';')}}`)
    this.setLogo(logo, logoAlt)
  }

  private setLogo(logo: string | undefined, alt: string): void {
    const show = logo && !this.o.hideLogo
    // A logo that does not load is hidden, never a broken image.
    const img = show ? h('img', { class: 'je-logo', src: logo, alt, onerror: () => (this.head.hidden = true) }) : null
    this.head.replaceChildren(...(img ? [img] : []))
    this.head.hidden = !show
  }

  /** Says `text` through the status region; cleared shortly after so the same words can be said again. */
  announce(text: string): void {
    this.status.textContent = text
    setTimeout(() => {
      if (this.status.textContent === text) this.status.textContent = ''
    }, 3000)
  }

  private byId(id: string): HTMLElement | null {
    return this.shadow.getElementById(id) ?? [this.title, ...this.words].find((w) => w.id === id) ?? null
  }

  /**
   * Moves the screen's words into the page: each paragraph or list item holding only text leaves a
   * named slot where it stood and becomes a child of the dialog element. A field's `aria-describedby`
   * that now points into the page becomes an element reference; the dialog is described by the
   * screen's warnings and errors and its first plain paragraph. Without element references, a field's
   * hint stays beside its field (described by id, unread by text probes).
   */
  private lift(): void {
    // Content shown again (a form kept across renders) gets its words back before they are lifted anew.
    for (const w of this.words) this.body.querySelector(`slot[name="${w.slot}"]`)?.replaceWith(w) ?? w.remove()
    this.words = []
    const hints = reflects ? '' : ` ${[...this.body.querySelectorAll('[aria-describedby]')].map((e) => e.getAttribute('aria-describedby')).join(' ')} `
    for (const el of this.body.querySelectorAll<HTMLElement>('p,li')) {
      if ([...el.childNodes].some((c) => c.nodeType !== Node.TEXT_NODE) || (el.id && hints.includes(` ${el.id} `))) continue
      el.slot = `w${this.words.length}`
      el.replaceWith(h('slot', { name: el.slot }))
      this.words.push(el)
    }
    this.host.append(...this.words)
    if (reflects) {
      for (const el of this.body.querySelectorAll<HTMLElement>('[aria-describedby]')) {
        el.ariaDescribedByElements = el.getAttribute('aria-describedby')!.split(/\s+/).map((id) => this.byId(id)).filter((x): x is HTMLElement => !!x)
      }
    }
    const warnings = this.words.filter((w) => /\bje-(warn|err)\b/.test(w.className))
    const first = this.words.find((w) => w.tagName === 'P' && !w.className)
    const described = [...warnings, ...(first ? [first] : [])].map((w, i) => (w.id ||= `${this.title.id}-d${i}`))
    if (described.length) this.host.setAttribute('aria-describedby', described.join(' '))
    else this.host.removeAttribute('aria-describedby')
  }

  private inside(el: Element | null): boolean {
    return !!el && (this.host.contains(el) || this.shadow.contains(el))
  }

  /**
   * Shows a screen: a heading that labels the dialog, then the content. A new screen (`fresh`) opens at
   * its top with focus on `focus` (an element id) or the heading, moved without scrolling; the same
   * screen updated keeps the focused element (by id), its selection and the scroll position.
   */
  show(title: string, content: (Child | Child[])[], opts: { fresh: boolean; focus?: string }): void {
    const active = activeElement() as HTMLElement | null
    const keep = !opts.fresh && active && this.inside(active) && active.id ? { id: active.id, sel: selectionOf(active) } : null
    const scroller = this.scroller()
    const top = scroller.scrollTop
    this.title.textContent = title
    this.body.replaceChildren(...content.flat().filter((c): c is Node | string => !!c))
    this.lift()
    if (!opts.fresh) {
      scroller.scrollTop = top
      if (keep) {
        const again = this.byId(keep.id)
        again?.focus({ preventScroll: true })
        if (again && keep.sel) (again as HTMLInputElement).setSelectionRange?.(keep.sel[0], keep.sel[1])
      }
      return
    }
    const target = (opts.focus && this.byId(opts.focus)) || this.title
    target.focus({ preventScroll: true })
    scroller.scrollTop = 0
    // Embedded: the dialog's top is brought into view only when it is above the viewport.
    if (this.o.container && this.host.getBoundingClientRect().top < 0) this.host.scrollIntoView({ block: 'start' })
  }

  /** What scrolls: the dialog itself when modal (it has a max height), else the page. */
  private scroller(): HTMLElement {
    return this.o.container === null ? this.root : (document.scrollingElement as HTMLElement) ?? document.documentElement
  }

  destroy(): void {
    if (shown === this) shown = null
    this.host.remove()
    for (const el of this.inerted) el.removeAttribute('inert')
    if (this.returnFocus instanceof HTMLElement) this.returnFocus.focus({ preventScroll: true })
  }

  private key(e: KeyboardEvent): void {
    if (this.o.container !== null) return
    if (e.key === 'Escape') {
      e.preventDefault()
      this.o.onDismiss()
      return
    }
    if (e.key !== 'Tab') return
    const items = [...this.shadow.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => !el.closest('[hidden]'))
    if (items.length === 0) return
    const first = items[0]!
    const last = items[items.length - 1]!
    const active = activeElement()
    // From the heading (a new screen's focus, not in the tab order), on to the screen's first control,
    // or back to ×: the browser's own next stop may be outside the dialog (a screen with no controls).
    if (active === this.title) {
      e.preventDefault()
      const controls = items.filter((el) => el !== this.close)
      return (e.shiftKey ? (this.close ?? last) : (controls[0] ?? first)).focus()
    }
    if (e.shiftKey && (active === first || !this.inside(active))) {
      e.preventDefault()
      last.focus()
    } else if (!e.shiftKey && (active === last || !this.inside(active))) {
      e.preventDefault()
      first.focus()
    }
  }
}

function selectionOf(el: HTMLElement): [number, number] | null {
  if (!(el instanceof HTMLInputElement) || el.selectionStart === null || el.selectionEnd === null) return null
  try {
    return [el.selectionStart, el.selectionEnd]
  } catch {
    return null
  }
}

export const RESET_MS = 2000

/**
 * A button that copies `text` and says so: its visible word ("Copy") starts its accessible name, the
 * rest (`what`) is visually hidden, so the name contains what is seen (WCAG 2.5.3). After a copy it
 * reads "Copied", the dialog announces it, and after RESET_MS it reads "Copy" again; when the clipboard
 * refuses, it says nothing of the kind and selects the value instead.
 */
export function copyButton(text: string, what: string, idle: string, done: string, announce: (s: string) => void): HTMLElement {
  const word = h('span', {}, idle)
  const b = h('button', { type: 'button', class: 'je-copy' }, word, what ? h('span', { class: 'je-sr' }, ` ${what}`) : null)
  let timer: ReturnType<typeof setTimeout> | undefined
  b.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(text)
    } catch {
      // Clipboard refused (insecure context, a sandboxed frame, or permission): nothing was copied, so
      // the button does not say it was; the value is selected for the person to copy by hand.
      const code = b.previousElementSibling
      const selection = window.getSelection()
      if (code && selection) {
        const range = document.createRange()
        range.selectNodeContents(code)
        selection.removeAllRanges()
        selection.addRange(range)
      }
      return
    }
    word.textContent = done
    announce(done)
    clearTimeout(timer)
    timer = setTimeout(() => (word.textContent = idle), RESET_MS)
  })
  return b
}

/** What a records table shows beyond type, host and value. */
export interface TableOptions {
  /** Copy buttons beside host and value (default on). */
  copy?: boolean
  /** Each record's status from the last verification, in its own column. */
  status?: (r: DnsRecordIn) => 'found' | 'waiting' | 'conflict'
  /** What to do with each record (the records in the way), in its own column. */
  action?: (r: DnsRecordIn) => 'remove' | 'replace' | 'add'
  /** Marks each row for tests and styles (`data-record`). */
  id?: string
  /** The TTL column (default on). */
  ttl?: boolean
  /** Says "Copied" to screen readers (the dialog's live region). */
  announce?: (s: string) => void
}

/**
 * The records as a table: type, host, value, the priority where a record has one (MX), each of these
 * typed at the DNS host with its own copy button; TTL; and each record's status when given.
 */
export function recordsTable(records: readonly DnsRecordIn[], tr: Translator, opts: TableOptions = {}): HTMLElement {
  const t = tr.t
  const { copy = true, status, action, ttl = true, announce = () => {} } = opts
  const priority = records.some((r) => r.priority !== undefined)
  const cell = (text: string, field: string, type: string) => h('td', { 'data-label': field }, h('code', { dir: 'ltr' }, text), copy ? copyButton(text, t('copyWhat', { field, type }), t('copy'), t('copied'), announce) : null)
  const label = { found: t('statusFound'), waiting: t('statusWaiting'), conflict: t('statusConflict') }
  const todo = { remove: t('actionRemove'), replace: t('actionReplace'), add: t('actionAdd') }
  return h(
    'table',
    { class: 'je-table', id: opts.id },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', { scope: 'col' }, t('type')),
        h('th', { scope: 'col' }, t('host')),
        h('th', { scope: 'col' }, t('value')),
        priority ? h('th', { scope: 'col' }, t('priority')) : null,
        ttl ? h('th', { scope: 'col' }, t('ttl')) : null,
        status ? h('th', { scope: 'col' }, t('status')) : null,
        action ? h('th', { scope: 'col' }, t('whatToDo')) : null,
      ),
    ),
    h(
      'tbody',
      {},
      ...records.map((r) => {
        const st = status?.(r)
        const act = action?.(r)
        return h(
          'tr',
          { 'data-status': st },
          h('td', { class: 'je-type', 'data-label': t('type') }, r.type),
          cell(r.host, t('host'), r.type),
          cell(r.value, t('value'), r.type),
          priority ? (r.priority === undefined ? h('td', { 'data-label': t('priority') }) : cell(String(r.priority), t('priority'), r.type)) : null,
          ttl ? h('td', { class: 'je-type', 'data-label': t('ttl') }, r.ttl ? String(r.ttl) : t('ttlAuto')) : null,
          st ? h('td', { class: `je-st ${st === 'found' ? 'je-st-ok' : st === 'conflict' ? 'je-st-bad' : ''}`, 'data-label': t('status') }, label[st]) : null,
          act ? h('td', { class: 'je-st je-st-bad', 'data-label': t('whatToDo') }, todo[act]) : null,
        )
      }),
    ),
  )
}
