// The page of the React package's browser test (test/e2e/react-browser.test.ts): real React 19 under
// StrictMode, `<PorticoConnect>` embedded and `usePorticoWidget` behind buttons. Everything the
// package calls back is logged in `window.log`; `getToken` asks the page's own server for a token.
import { StrictMode, createElement, useState } from 'react'
import { createRoot } from 'react-dom/client'
import { PorticoConnect, usePorticoWidget, type PorticoWidgetOptions } from '../src/index.ts'

declare global {
  interface Window {
    log: unknown[][]
    closeWidget: () => void
    cfg: { scriptUrl: string; applicationId: string; mode: 'component' | 'hook' }
  }
}

window.log = []
const { scriptUrl, applicationId, mode } = window.cfg

const options: PorticoWidgetOptions = {
  scriptUrl,
  applicationId,
  getToken: async () => {
    window.log.push(['getToken'])
    const r = await fetch('/token', { method: 'POST' })
    return ((await r.json()) as { token: string }).token
  },
  onStepChange: (s) => window.log.push(['onStepChange', s.step]),
  onSuccess: (r) => window.log.push(['onSuccess', r.domain]),
  onClose: (d) => window.log.push(['onClose', d.lastStatus]),
  onError: (e) => window.log.push(['onError', e.code]),
}

function ComponentPage() {
  const [shown, setShown] = useState(true)
  return createElement(
    'div',
    null,
    createElement('button', { id: 'toggle', onClick: () => setShown((s) => !s) }, shown ? 'Hide' : 'Show'),
    shown ? createElement(PorticoConnect, { ...options, embedded: true, className: 'slot' }) : null,
  )
}

function HookPage() {
  const widget = usePorticoWidget(options)
  window.closeWidget = widget.close
  return createElement(
    'div',
    null,
    createElement('button', { id: 'open', disabled: !widget.ready, onClick: () => widget.open({ domain: `r${Date.now().toString(36)}.live.sandbox.example` }) }, 'Connect a domain'),
    createElement('button', { id: 'close', onClick: () => widget.close() }, 'Close it'),
    createElement('output', { id: 'state' }, `ready=${widget.ready} open=${widget.isOpen}`),
  )
}

createRoot(document.getElementById('root')!).render(createElement(StrictMode, null, createElement(mode === 'component' ? ComponentPage : HookPage)))
