// The widget's look: one stylesheet whose every colour, size and font reads a `--je-<token>` CSS custom
// property (CONTRACT.md section 6: design tokens are emitted as `--je-<token>`). White-label settings
// become declarations on the widget root, so they override the defaults without touching the host page.
import type { WhiteLabel } from './types.ts'

/** Default design tokens; `whiteLabel.tokens` may set these and any other. */
export const DEFAULT_TOKENS: Record<string, string> = {
  'color-primary': '#2f54eb',
  'color-primary-text': '#ffffff',
  'color-background': '#ffffff',
  'color-surface': '#f5f6f8',
  'color-text': '#1b1f29',
  'color-muted': '#5b6272',
  'color-border': '#d9dce3',
  'color-error': '#b42318',
  'color-success': '#067647',
  'color-overlay': 'rgba(15,18,25,.55)',
  'color-focus': '#1d4ed8',
  'font-family': 'system-ui,-apple-system,"Segoe UI",Roboto,sans-serif',
  'font-size': '15px',
  'font-size-small': '13px',
  'font-size-title': '20px',
  'font-weight-title': '600',
  'line-height': '1.5',
  radius: '10px',
  'radius-button': '8px',
  'space-1': '4px',
  'space-2': '8px',
  'space-3': '12px',
  'space-4': '16px',
  'space-6': '24px',
  'dialog-width': '520px',
  'dialog-shadow': '0 20px 50px rgba(0,0,0,.25)',
  'z-index': '2147483000',
}

const safe = (s: string) => s.replace(/[^a-zA-Z0-9-]/g, '-').toLowerCase()
const cssValue = (v: string | number) => String(v).replace(/[;{}<>]/g, '')

/** The custom-property declarations for a white-label configuration (defaults first, then overrides). */
export function tokenDeclarations(wl: WhiteLabel = {}): string {
  const t: Record<string, string> = { ...DEFAULT_TOKENS }
  for (const [k, v] of Object.entries(wl.colors ?? {})) t[`color-${safe(k)}`] = cssValue(v)
  if (wl.font) t['font-family'] = cssValue(wl.font)
  if (wl.borderRadius !== undefined) t.radius = typeof wl.borderRadius === 'number' ? `${wl.borderRadius}px` : cssValue(wl.borderRadius)
  for (const [k, v] of Object.entries(wl.tokens ?? {})) t[safe(k)] = cssValue(v)
  return Object.entries(t)
    .map(([k, v]) => `--je-${k}:${v}`)
    .join(';')
}

const v = (name: string) => `var(--je-${name})`

export const STYLESHEET = `
.je-overlay{position:fixed;inset:0;background:${v('color-overlay')};display:flex;align-items:center;justify-content:center;z-index:${v('z-index')}}
.je-root{box-sizing:border-box;font-family:${v('font-family')};font-size:${v('font-size')};line-height:${v('line-height')};color:${v('color-text')};background:${v('color-background')};border-radius:${v('radius')};padding:${v('space-6')};width:min(${v('dialog-width')},calc(100vw - 32px));max-height:calc(100vh - 32px);overflow:auto;position:relative}
.je-overlay .je-root{box-shadow:${v('dialog-shadow')}}
.je-root *{box-sizing:border-box}
.je-root h2{font-size:${v('font-size-title')};font-weight:${v('font-weight-title')};margin:0 ${v('space-6')} ${v('space-3')} 0}
.je-root p{margin:0 0 ${v('space-3')}}
.je-head{display:flex;align-items:center;gap:${v('space-2')};margin-bottom:${v('space-3')}}
.je-logo{max-height:28px}
.je-x{position:absolute;top:${v('space-3')};right:${v('space-3')};border:0;background:none;font-size:22px;cursor:pointer;color:${v('color-muted')};line-height:1}
.je-btn{font:inherit;border:1px solid ${v('color-primary')};background:${v('color-primary')};color:${v('color-primary-text')};border-radius:${v('radius-button')};padding:${v('space-2')} ${v('space-4')};cursor:pointer}
.je-btn.je-alt{background:none;color:${v('color-primary')}}
.je-btn:disabled{opacity:.6;cursor:wait}
.je-root :focus-visible{outline:2px solid ${v('color-focus')};outline-offset:2px}
.je-row{display:flex;gap:${v('space-2')};flex-wrap:wrap;margin-top:${v('space-4')}}
.je-root label{display:block;font-weight:600;margin-bottom:${v('space-1')}}
.je-root input,.je-root select{font:inherit;width:100%;padding:${v('space-2')};border:1px solid ${v('color-border')};border-radius:${v('radius-button')};background:${v('color-background')};color:inherit}
.je-hint,.je-small{font-size:${v('font-size-small')};color:${v('color-muted')}}
.je-err{color:${v('color-error')}}
.je-ok{color:${v('color-success')}}
.je-table{width:100%;border-collapse:collapse;font-size:${v('font-size-small')};margin:${v('space-3')} 0}
.je-table th,.je-table td{text-align:left;padding:${v('space-2')};border-bottom:1px solid ${v('color-border')};vertical-align:top;word-break:break-all}
.je-table code{background:${v('color-surface')};padding:1px 4px;border-radius:4px}
.je-copy{font:inherit;font-size:${v('font-size-small')};border:1px solid ${v('color-border')};background:${v('color-surface')};border-radius:6px;cursor:pointer;margin-left:${v('space-1')}}
.je-steps{padding-left:20px;margin:0 0 ${v('space-3')}}
.je-spin{width:28px;height:28px;border:3px solid ${v('color-border')};border-top-color:${v('color-primary')};border-radius:50%;animation:je-r 1s linear infinite;margin:${v('space-4')} auto}
@keyframes je-r{to{transform:rotate(360deg)}}
.je-confetti{position:absolute;inset:0;pointer-events:none;overflow:hidden}
.je-confetti i{position:absolute;top:-10px;width:8px;height:12px;animation:je-f 1.6s ease-in forwards}
@keyframes je-f{to{transform:translateY(420px) rotate(540deg);opacity:0}}
@media (prefers-reduced-motion:reduce){.je-spin,.je-confetti i{animation:none}}
.je-foot{margin-top:${v('space-4')};font-size:${v('font-size-small')};color:${v('color-muted')}}
`
