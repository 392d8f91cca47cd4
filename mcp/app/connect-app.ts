// The connect flow as an MCP App (the io.modelcontextprotocol/ui extension), browser side. A host that
// renders UI resources loads this page in a sandboxed frame next to a connection tool's result; the
// page speaks the extension's JSON-RPC over postMessage with its parent (the host):
//   page → host  ui/initialize, then ui/notifications/initialized;
//   host → page  ui/notifications/tool-result with the tool's result (structuredContent);
//   page → host  tools/call connections_get, to keep the status live while it is pending or propagating.
// It renders with the widget's own pieces (element builder, copy buttons, styles, wording): the
// records to add, the provider's steps and the status. It has no credential and calls nothing itself.
import { h, injectStyles, recordsTable } from '../../src/widget/ui.ts'
import { tokenDeclarations } from '../../src/widget/styles.ts'
import { translator } from '../../src/widget/i18n.ts'
import type { ConnectionView } from '../app.ts'


const UI_PROTOCOL = '2026-01-26'
const POLL_MS = 10_000
// English: the page's text is the tool result's, which is English.
const t = translator('en')
const root = document.getElementById('app')!
let nextId = 1
const pending = new Map<number, (result: unknown) => void>()
let shown: ConnectionView = {}
let timer: ReturnType<typeof setTimeout> | undefined

function request(method: string, params: unknown): Promise<any> {
  const id = nextId++
  window.parent.postMessage({ jsonrpc: '2.0', id, method, params }, '*')
  return new Promise((resolve) => pending.set(id, resolve))
}

const notify = (method: string, params: unknown = {}) => window.parent.postMessage({ jsonrpc: '2.0', method, params }, '*')

/** The status in words; the page checks by itself, so it names no button to press. */
function statusLine(status: string): string {
  switch (status) {
    case 'pending':
      return 'Status: waiting for the records. This page checks again by itself every few seconds.'
    case 'propagating':
      return 'Status: records written, waiting for DNS to show them. This page checks again by itself.'
    case 'live':
      return 'Status: live'
    case 'failed':
      return 'Status: failed'
    default:
      return `Status: ${status}`
  }
}

/** Says a copy happened, to screen readers (the copy button itself shows it). */
function announce(text: string): void {
  const el = document.getElementById('announce')
  if (el) el.textContent = text
}

function render(view: ConnectionView): void {
  // A status read carries no steps, a records read no status: keep what the other one said.
  shown = { ...shown, ...Object.fromEntries(Object.entries(view).filter(([, v]) => v !== undefined)) }
  const c = shown
  // Done: nothing is left to add, so the page says so instead of showing the records to copy.
  const done = c.status === 'live' || c.status === 'disconnected'
  const live = h('div', { class: 'je-root', style: tokenDeclarations() },
    h('h2', {}, c.domain ?? ''),
    c.status ? h('p', { id: 'status', 'data-status': c.status, role: 'status' }, statusLine(c.status)) : null,
    done
      ? h('p', { id: 'done', class: 'je-done' }, c.status === 'live' ? `Done: ${c.domain ?? 'the domain'} is connected. Nothing more to add.` : `${c.domain ?? 'The domain'} is disconnected.`)
      : null,
    c.status === 'failed' && c.error_message ? h('p', { class: 'je-err', role: 'alert' }, c.error_message) : null,
    !done && c.manual_steps?.length ? h('ol', { class: 'je-steps', id: 'steps' }, ...c.manual_steps.map((s) => h('li', {}, s))) : null,
    !done && c.records?.length ? recordsTable(c.records, t, { announce }) : null,
    !done && c.dashboard_url ? h('p', { class: 'je-small' }, h('a', { href: c.dashboard_url, target: '_blank', rel: 'noopener' }, t.t('dashboard'))) : null,
    h('p', { class: 'je-sr', id: 'announce', 'aria-live': 'polite' }),
  )
  root.replaceChildren(live)
  notify('ui/notifications/size-changed', { height: document.documentElement.scrollHeight })
  schedulePoll()
}

/** While the records are not live yet, reads the connection again through the host (at once when the
 *  result had no status, as a records read has none). */
function schedulePoll(): void {
  clearTimeout(timer)
  const id = shown.id ?? shown.connection_id
  if (!id || shown.status === 'live' || shown.status === 'disconnected') return
  timer = setTimeout(async () => {
    const result = await request('tools/call', { name: 'connections_get', arguments: { id } })
    if (result?.structuredContent) render(result.structuredContent as ConnectionView)
  }, shown.status ? POLL_MS : 0)
}

window.addEventListener('message', (e: MessageEvent) => {
  if (e.source !== window.parent) return
  const msg = e.data as { id?: number; method?: string; params?: any; result?: unknown }
  if (msg.id !== undefined && !msg.method) {
    pending.get(msg.id)?.(msg.result)
    pending.delete(msg.id)
  } else if (msg.method === 'ui/notifications/tool-result' && msg.params?.structuredContent) {
    render(msg.params.structuredContent as ConnectionView)
  }
})

injectStyles(document)
void request('ui/initialize', { appInfo: { name: 'portico-connect', version: '1' }, appCapabilities: {}, protocolVersion: UI_PROTOCOL }).then(() => notify('ui/notifications/initialized'))
