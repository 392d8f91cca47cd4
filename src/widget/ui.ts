// The widget's dialog: one accessible container the flow renders screens into. Invariants: the
// container has role="dialog" and is labelled by the current screen's heading; a modal dialog traps
// Tab focus inside itself and Escape asks to dismiss it (WAI-ARIA Authoring Practices, "Dialog (Modal)
// Pattern"); focus returns to where it was when the dialog goes away; screen changes are announced
// through a polite live region; the host page behind a modal dialog is `inert` until it closes.
// Embedded mode renders inline in the host's container, without overlay. `hideLogo` hides only the
// integrator's logo; `hideFooter` the "Secured by" line; `hideClose` the × (a page with nowhere to go).
import { STYLESHEET } from './styles.ts'
import type { Translate } from './i18n.ts'
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

export function injectStyles(): void {
  if (document.getElementById('je-style')) return
  document.head.append(h('style', { id: 'je-style' }, STYLESHEET))
}

let seq = 0

export interface DialogOptions {
  container: Element | null
  declarations: string
  lang: string
  closeLabel: string
  logo?: string
  hideLogo?: boolean
  hideFooter?: boolean
  hideClose?: boolean
  footer: string
  onDismiss: () => void
}

export class Dialog {
  readonly root: HTMLElement
  private readonly body: HTMLElement
  private readonly outer: HTMLElement
  private readonly returnFocus: Element | null
  private readonly titleId = `je-title-${++seq}`
  /** Announces transient confirmations ("Copied") to assistive technology. */
  private readonly status = h('div', { class: 'je-sr', role: 'status' })
  /** Host elements this dialog made inert, to restore exactly those. */
  private readonly inerted: Element[] = []

  constructor(private readonly o: DialogOptions) {
    injectStyles()
    this.returnFocus = document.activeElement
    const modal = o.container === null
    this.body = h('div', { 'aria-live': 'polite' })
    this.root = h(
      'div',
      { class: 'je-root', role: 'dialog', 'aria-labelledby': this.titleId, 'aria-modal': modal ? 'true' : undefined, lang: o.lang, style: o.declarations, onkeydown: (e) => this.key(e as KeyboardEvent) },
      o.hideClose ? null : h('button', { type: 'button', class: 'je-x', 'aria-label': o.closeLabel, onclick: () => o.onDismiss() }, '×'),
      o.logo && !o.hideLogo ? h('div', { class: 'je-head' }, h('img', { class: 'je-logo', src: o.logo, alt: '' })) : null,
      this.body,
      this.status,
      o.hideFooter ? null : h('div', { class: 'je-foot' }, o.footer),
    )
    this.outer = modal ? h('div', { class: 'je-overlay', style: o.declarations }, this.root) : this.root
    if (modal) {
      for (const el of document.body.children) {
        if (el.tagName !== 'SCRIPT' && el.tagName !== 'STYLE' && !el.hasAttribute('inert')) {
          el.setAttribute('inert', '')
          this.inerted.push(el)
        }
      }
    }
    ;(o.container ?? document.body).append(this.outer)
  }

  /** Says `text` through the status region; cleared shortly after so the same words can be said again. */
  announce(text: string): void {
    this.status.textContent = text
    setTimeout(() => {
      if (this.status.textContent === text) this.status.textContent = ''
    }, 3000)
  }

  /** Replaces the screen: a heading that labels the dialog, then the content; focus moves into it. */
  show(title: string, ...content: (Child | Child[])[]): void {
    this.body.replaceChildren(h('h2', { id: this.titleId, tabindex: '-1' }, title), ...content.flat().filter((c): c is Node | string => !!c))
    const target = this.body.querySelector<HTMLElement>('[autofocus]') ?? this.body.querySelector<HTMLElement>('h2')
    target?.focus()
  }

  destroy(): void {
    this.outer.remove()
    for (const el of this.inerted) el.removeAttribute('inert')
    if (this.returnFocus instanceof HTMLElement) this.returnFocus.focus()
  }

  private key(e: KeyboardEvent): void {
    if (this.o.container !== null) return
    if (e.key === 'Escape') {
      e.preventDefault()
      this.o.onDismiss()
      return
    }
    if (e.key !== 'Tab') return
    const items = [...this.root.querySelectorAll<HTMLElement>(FOCUSABLE)]
    if (items.length === 0) return
    const first = items[0]!
    const last = items[items.length - 1]!
    const active = document.activeElement
    if (e.shiftKey && (active === first || !this.root.contains(active))) {
      e.preventDefault()
      last.focus()
    } else if (!e.shiftKey && (active === last || !this.root.contains(active))) {
      e.preventDefault()
      first.focus()
    }
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

/** The records to add, one row each, every host and value with its copy button. */
/** What a records table shows beyond type, host and value. */
export interface TableOptions {
  /** Copy buttons beside host and value (default on). */
  copy?: boolean
  /** Each record's status from the last verification, in its own column. */
  status?: (r: DnsRecordIn) => 'found' | 'waiting' | 'conflict'
  /** The TTL column (default on). */
  ttl?: boolean
  /** Says "Copied" to screen readers (the dialog's live region). */
  announce?: (s: string) => void
}

/** The records as a table: type, host, value (with copy buttons), TTL, and each record's status when given. */
export function recordsTable(records: readonly DnsRecordIn[], t: Translate, opts: TableOptions = {}): HTMLElement {
  const { copy = true, status, ttl = true, announce = () => {} } = opts
  const cell = (text: string, field: string, type: string) => h('td', { 'data-label': field }, h('code', {}, text), copy ? copyButton(text, t('copyWhat', { field, type }), t('copy'), t('copied'), announce) : null)
  const label = { found: t('statusFound'), waiting: t('statusWaiting'), conflict: t('statusConflict') }
  return h(
    'table',
    { class: 'je-table' },
    h(
      'thead',
      {},
      h('tr', {}, h('th', { scope: 'col' }, t('type')), h('th', { scope: 'col' }, t('host')), h('th', { scope: 'col' }, t('value')), ttl ? h('th', { scope: 'col' }, t('ttl')) : null, status ? h('th', { scope: 'col' }, t('status')) : null),
    ),
    h(
      'tbody',
      {},
      ...records.map((r) => {
        const st = status?.(r)
        return h(
          'tr',
          { 'data-status': st },
          h('td', { class: 'je-type', 'data-label': t('type') }, r.type),
          cell(r.host, t('host'), r.type),
          cell(r.value, t('value'), r.type),
          ttl ? h('td', { class: 'je-type', 'data-label': t('ttl') }, r.ttl ? String(r.ttl) : t('ttlAuto')) : null,
          st ? h('td', { class: `je-st ${st === 'found' ? 'je-st-ok' : st === 'conflict' ? 'je-st-bad' : ''}`, 'data-label': t('status') }, label[st]) : null,
        )
      }),
    ),
  )
}
