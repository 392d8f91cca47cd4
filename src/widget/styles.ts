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
  /** Primary-coloured text; the contrast guard swaps in color-text when the primary is unreadable on the background. */
  'color-link': '#2f54eb',
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
  guardContrast(t)
  return Object.entries(t)
    .map(([k, v]) => `--je-${k}:${v}`)
    .join(';')
}

/** Relative luminance of a #rgb or #rrggbb colour (WCAG 2.2, "relative luminance"); null for other syntaxes. */
function luminance(colour: string): number | null {
  const m = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(colour.trim())
  if (!m) return null
  const hex = m[1]!.length === 3 ? [...m[1]!].map((c) => c + c).join('') : m[1]!
  const [r, g, b] = [0, 2, 4].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
  })
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!
}

export function contrast(a: string, b: string): number | null {
  const la = luminance(a)
  const lb = luminance(b)
  if (la === null || lb === null) return null
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05)
}

const AA = 4.5

/**
 * White-label colours are the integrator's; legibility is the end user's. Text on the primary colour
 * becomes black or white, whichever reads (WCAG AA, 4.5:1), when the configured text colour does not;
 * primary-coloured text (secondary buttons, links) falls back to the body text colour when the primary
 * colour is unreadable on the background. Colours it cannot parse are left alone, with a warning.
 */
function guardContrast(t: Record<string, string>): void {
  const primary = t['color-primary']!
  const on = contrast(primary, t['color-primary-text']!)
  if (on === null) {
    console.warn(`Portico: cannot check the contrast of color-primary ${primary}; use #rrggbb colours`)
  } else if (on < AA) {
    const best = (contrast(primary, '#000000') ?? 0) >= (contrast(primary, '#ffffff') ?? 0) ? '#000000' : '#ffffff'
    console.warn(`Portico: text on color-primary ${primary} had contrast ${on.toFixed(2)}:1; using ${best}`)
    t['color-primary-text'] = best
  }
  const asText = contrast(primary, t['color-background']!)
  t['color-link'] = asText !== null && asText < AA ? t['color-text']! : primary
}

const v = (name: string) => `var(--je-${name})`

export const STYLESHEET = `
.je-overlay{position:fixed;inset:0;background:${v('color-overlay')};display:flex;align-items:center;justify-content:center;z-index:${v('z-index')}}
.je-root{box-sizing:border-box;font-family:${v('font-family')};font-size:${v('font-size')};line-height:${v('line-height')};color:${v('color-text')};background:${v('color-background')};border-radius:${v('radius')};padding:${v('space-6')};width:min(${v('dialog-width')},calc(100vw - 32px));max-height:calc(100vh - 32px);max-height:calc(100dvh - 32px);overflow:auto;position:relative}
.je-overlay .je-root{box-shadow:${v('dialog-shadow')}}
.je-root *{box-sizing:border-box}
.je-root h2{font-size:${v('font-size-title')};font-weight:${v('font-weight-title')};margin:0 ${v('space-6')} ${v('space-3')} 0}
.je-root p{margin:0 0 ${v('space-3')}}
.je-head{display:flex;align-items:center;gap:${v('space-2')};margin:0 ${v('space-6')} ${v('space-3')} 0}
.je-logo{max-height:28px}
.je-x{position:absolute;top:${v('space-2')};right:${v('space-2')};border:0;background:none;font-size:22px;cursor:pointer;color:${v('color-muted')};line-height:1;min-width:44px;min-height:44px}
.je-btn{font:inherit;border:1px solid ${v('color-primary')};background:${v('color-primary')};color:${v('color-primary-text')};border-radius:${v('radius-button')};padding:${v('space-2')} ${v('space-4')};cursor:pointer;min-height:44px}
.je-btn.je-alt{background:none;color:${v('color-link')}}
.je-root a{color:${v('color-link')}}
.je-link{font:inherit;background:none;border:0;padding:0;color:${v('color-link')};text-decoration:underline;cursor:pointer;min-height:44px}
.je-btn:disabled{opacity:.6;cursor:wait}
.je-root :focus-visible{outline:2px solid ${v('color-focus')};outline-offset:2px}
.je-row{display:flex;gap:${v('space-2')};flex-wrap:wrap;margin-top:${v('space-4')}}
.je-root label{display:block;font-weight:600;margin-bottom:${v('space-1')}}
.je-root input,.je-root select{font:inherit;width:100%;padding:${v('space-2')};border:1px solid ${v('color-border')};border-radius:${v('radius-button')};background:${v('color-background')};color:inherit}
.je-hint,.je-small{font-size:${v('font-size-small')};color:${v('color-muted')}}
.je-err{color:${v('color-error')}}
.je-ok{color:${v('color-success')}}
.je-table{width:100%;border-collapse:collapse;font-size:${v('font-size-small')};margin:${v('space-3')} 0}
.je-table th,.je-table td{text-align:left;padding:${v('space-2')};border-bottom:1px solid ${v('color-border')};vertical-align:top;overflow-wrap:anywhere}
.je-table th,.je-table .je-type,.je-table .je-st,.je-copy{white-space:nowrap;overflow-wrap:normal}
.je-st-ok{color:${v('color-success')}}
.je-st-bad{color:${v('color-error')}}
.je-table code{background:${v('color-surface')};padding:1px 4px;border-radius:4px}
.je-copy{font:inherit;font-size:${v('font-size-small')};border:1px solid ${v('color-border')};background:${v('color-surface')};border-radius:6px;cursor:pointer;margin:${v('space-1')} 0 0;min-height:44px;min-width:44px;padding:0 ${v('space-2')};color:${v('color-text')};display:block}
.je-sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.je-detected{display:flex;align-items:center;gap:${v('space-2')};font-weight:600;margin-bottom:${v('space-3')}}
.je-plogo{width:24px;height:24px;flex:none}
.je-scopes{margin:0 0 ${v('space-3')};padding-left:20px}
.je-steps{padding-left:20px;margin:0 0 ${v('space-3')}}
.je-spin{width:28px;height:28px;border:3px solid ${v('color-border')};border-top-color:${v('color-primary')};border-radius:50%;animation:je-r 1s linear infinite;margin:${v('space-4')} auto}
@keyframes je-r{to{transform:rotate(360deg)}}
.je-confetti{position:absolute;inset:0;pointer-events:none;overflow:hidden}
.je-confetti i{position:absolute;top:-10px;width:8px;height:12px;animation:je-f 1.6s ease-in forwards}
@keyframes je-f{to{transform:translateY(420px) rotate(540deg);opacity:0}}
@media (max-width:520px){
.je-table thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
.je-table tr{display:block;border-bottom:1px solid ${v('color-border')};padding:${v('space-2')} 0}
.je-table td{display:flex;gap:${v('space-2')};align-items:baseline;flex-wrap:wrap;border:0;padding:2px 0}
.je-table td::before{content:attr(data-label);flex:0 0 4.5em;font-weight:600;color:${v('color-muted')}}
.je-table .je-copy{display:inline-block;margin:0}
}
@media (prefers-reduced-motion:reduce){.je-spin,.je-confetti i{animation:none}}
.je-root [hidden]{display:none}
.je-btn:disabled{cursor:not-allowed}
.je-warn{font-weight:600}
.je-root h2,.je-root p,.je-root li,.je-root label{overflow-wrap:break-word}
.je-root:lang(ja),.je-root:lang(zh){line-break:strict}
.je-root:lang(ja) h2,.je-root:lang(ja) .je-btn{word-break:keep-all;overflow-wrap:anywhere}
@supports (word-break:auto-phrase){.je-root:lang(ja),.je-root:lang(ja) h2,.je-root:lang(ja) .je-btn{word-break:auto-phrase}}
.je-root:lang(ko){word-break:keep-all;overflow-wrap:anywhere}
.je-foot{margin-top:${v('space-4')};font-size:${v('font-size-small')};color:${v('color-muted')}}
`
