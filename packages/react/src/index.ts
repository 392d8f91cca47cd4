// Portico's widget for React: `usePorticoWidget` (load widget.js once, open and close it, typed
// callbacks) and `<PorticoConnect>` (the widget shown while it is mounted and `open`). Invariants:
// - widget.js is loaded once per page, however many components ask for it;
// - the callbacks are the latest ones rendered (no reopening when a parent re-renders new closures);
// - `getToken` is handed to the widget, which calls it before its token expires (or on a refusal);
// - under StrictMode's mount, unmount, mount the widget ends up open once, and a close the component
//   itself makes (on unmount, or `open` turning false) calls no `onClose`.
import { createElement, useCallback, useEffect, useId, useRef, useState, type ReactElement } from 'react'
import type { CloseDetail, FallbackDetail, GetToken, OpenConfig, PorticoApi, SharedDetail, StepDetail, SuccessResult, WidgetErrorInfo, WidgetHandle } from './widget-types.js'

export type * from './widget-types.js'

const loading = new Map<string, Promise<PorticoApi>>()

/** Loads widget.js from `scriptUrl` (once per page) and answers `window.Portico`. */
export function loadPortico(scriptUrl: string): Promise<PorticoApi> {
  if (window.Portico) return Promise.resolve(window.Portico)
  let p = loading.get(scriptUrl)
  if (!p) {
    p = new Promise<PorticoApi>((resolve, reject) => {
      const s = document.createElement('script')
      s.src = scriptUrl
      s.async = true
      s.onload = () => (window.Portico ? resolve(window.Portico) : reject(new Error(`${scriptUrl} did not define window.Portico`)))
      s.onerror = () => {
        loading.delete(scriptUrl)
        s.remove()
        reject(new Error(`Could not load ${scriptUrl}`))
      }
      document.head.appendChild(s)
    })
    loading.set(scriptUrl, p)
  }
  return p
}

type Callbacks = 'onStepChange' | 'onSuccess' | 'onClose' | 'onError'

export interface PorticoWidgetOptions extends Omit<OpenConfig, Callbacks | 'getToken'> {
  /** Portico's widget.js, e.g. `https://portico.example/widget.js`. */
  scriptUrl: string
  /** A fresh widget token from your server (`POST /v1/tokens`), called by the widget before its token expires. */
  getToken?: GetToken
  onStepChange?: (detail: StepDetail) => void
  onSuccess?: (result: SuccessResult) => void
  onClose?: (detail: CloseDetail) => void
  onError?: (error: WidgetErrorInfo) => void
  /** The person was routed to a non-automatic screen (window event `Portico:fallback`). */
  onFallback?: (detail: FallbackDetail) => void
  /** The person shared the manual setup (window event `Portico:shared`). */
  onShared?: (detail: SharedDetail) => void
}

export interface PorticoWidget {
  /** widget.js is loaded. */
  ready: boolean
  /** The widget is shown. */
  isOpen: boolean
  /** widget.js could not be loaded. */
  error: Error | null
  /** Shows the widget (closing one already shown); `overrides` for this opening only, e.g. `{ domain }`. */
  open(overrides?: Partial<Omit<PorticoWidgetOptions, 'scriptUrl'>>): void
  /** Closes the widget; `onClose` is called as for a person's close. */
  close(): void
}

export function usePorticoWidget(options: PorticoWidgetOptions): PorticoWidget & { closeQuietly(): void } {
  const latest = useRef(options)
  latest.current = options
  const handle = useRef<WidgetHandle | null>(null)
  const quiet = useRef(false)
  const [ready, setReady] = useState(() => typeof window !== 'undefined' && !!window.Portico)
  const [isOpen, setOpen] = useState(false)
  const [error, setError] = useState<Error | null>(null)

  useEffect(() => {
    let live = true
    loadPortico(options.scriptUrl).then(
      () => live && setReady(true),
      (err: Error) => live && setError(err),
    )
    return () => {
      live = false
    }
  }, [options.scriptUrl])

  useEffect(() => {
    const fallback = (e: WindowEventMap['Portico:fallback']) => latest.current.onFallback?.(e.detail)
    const shared = (e: WindowEventMap['Portico:shared']) => latest.current.onShared?.(e.detail)
    window.addEventListener('Portico:fallback', fallback)
    window.addEventListener('Portico:shared', shared)
    return () => {
      window.removeEventListener('Portico:fallback', fallback)
      window.removeEventListener('Portico:shared', shared)
    }
  }, [])

  const closeWith = useCallback((silently: boolean) => {
    const h = handle.current
    if (!h) return
    quiet.current = silently
    try {
      h.close()
    } finally {
      quiet.current = false
      handle.current = null
      setOpen(false)
    }
  }, [])

  const open = useCallback((overrides: Partial<Omit<PorticoWidgetOptions, 'scriptUrl'>> = {}) => {
    const api = window.Portico
    if (!api) throw new Error('Portico\'s widget.js is not loaded yet (wait for `ready`)')
    const { scriptUrl: _src, onFallback: _f, onShared: _s, getToken, onStepChange: _a, onSuccess: _b, onClose: _c, onError: _d, ...config } = { ...latest.current, ...overrides }
    let mine: WidgetHandle | null = null
    mine = api.open({
      ...config,
      ...(getToken ? { getToken: () => (overrides.getToken ?? latest.current.getToken ?? getToken)() } : {}),
      onStepChange: (d) => latest.current.onStepChange?.(d),
      onSuccess: (r) => latest.current.onSuccess?.(r),
      onError: (e) => latest.current.onError?.(e),
      onClose: (d) => {
        if (handle.current === mine || handle.current === null) {
          handle.current = null
          setOpen(false)
        }
        if (!quiet.current) latest.current.onClose?.(d)
      },
    })
    handle.current = mine
    setOpen(true)
  }, [])

  // Unmounted: the widget goes with the component, without a callback into it.
  useEffect(() => () => closeWith(true), [closeWith])

  return { ready, isOpen, error, open, close: useCallback(() => closeWith(false), [closeWith]), closeQuietly: useCallback(() => closeWith(true), [closeWith]) }
}

export interface PorticoConnectProps extends PorticoWidgetOptions {
  /** Shown while true (default true); turning false closes it without `onClose`. */
  open?: boolean
  /** Shown inside this component's own element instead of as a dialog. */
  embedded?: boolean
  className?: string
}

/** The widget, shown while mounted and `open`: as a dialog, or `embedded` in its own element. */
export function PorticoConnect(props: PorticoConnectProps): ReactElement | null {
  const { open = true, embedded = false, className, ...options } = props
  const id = `portico-${useId().replace(/[^a-zA-Z0-9_-]/g, '')}`
  const widget = usePorticoWidget(embedded ? { ...options, container: `#${id}` } : options)
  const { ready, open: show, closeQuietly } = widget
  useEffect(() => {
    if (!ready || !open) return
    show()
    return () => closeQuietly()
  }, [ready, open, show, closeQuietly])
  return embedded ? createElement('div', { id, className }) : null
}
