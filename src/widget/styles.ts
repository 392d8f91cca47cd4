// The widget's look: one stylesheet whose every colour, size and font reads a `--je-<token>` CSS custom
// property (the API contract, section 6: design tokens are emitted as `--je-<token>`). White-label settings
// become declarations on the widget's host element (`:host`, in its shadow root), so they override the
// defaults without touching the host page, and the page cannot override them.
import { css, mix, over, ratio, readable, readColour, type Rgba } from './colour.ts'
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

const AA = 4.5

/**
 * White-label colours are the integrator's; legibility is the end user's. Every themed colour that is
 * read as text is checked against what it is read on (WCAG AA, 4.5:1; the focus ring 3:1 as a
 * non-text part), in any CSS colour syntax (colour.ts): body text on the background, the chips and copy
 * buttons (text on the surface colour, which is derived from the background when the text does not read
 * on it), muted text (hints, the ×, the footer, labels), the error and success words, text on the
 * primary colour (buttons: black or white, whichever reads), primary-coloured text (links and secondary
 * buttons: the body text colour when the primary does not read). A colour that fails is moved towards
 * black or white just enough, so its hue stays; one warning says what was changed.
 */
function guardContrast(t: Record<string, string>): void {
  const read = (k: string) => readColour(t[k]!)
  const changed: string[] = []
  const set = (k: string, c: Rgba | string, on = 'color-background') => {
    const v = typeof c === 'string' ? c : css(c)
    if (v === t[k]) return
    changed.push(`${k} ${t[k]} -> ${v} (on ${on} ${t[on]})`)
    t[k] = v
  }
  const white: Rgba = [255, 255, 255, 1]
  let bg = read('color-background')
  if (!bg) {
    console.warn(`Portico: cannot read color-background ${t['color-background']}; contrast not checked`)
    return
  }
  // A see-through background shows the page behind the dialog: the default one instead.
  if (bg[3] < 1) {
    set('color-background', DEFAULT_TOKENS['color-background']!)
    bg = read('color-background')!
  }
  // Text with alpha is judged (and painted) as it shows on the background.
  const fix = (k: string, bgs: Rgba[], min = AA): Rgba | null => {
    const c = read(k)
    if (!c) return null
    const flat = over(c, bg!)
    const ok = readable(flat, bgs, min)
    if (ok !== flat || c[3] < 1) set(k, ok)
    return ok
  }
  const text = fix('color-text', [bg]) ?? [0, 0, 0, 1]
  let surface = read('color-surface')
  if (surface && ratio(text, over(surface, bg)) < AA) {
    surface = mix(bg, text, 0.08)
    set('color-surface', surface)
  }
  const surfaces = surface ? [bg, over(surface, bg)] : [bg]
  // Text read on the surface too (record values, copy buttons), which may have just been made from it.
  fix('color-text', surfaces)
  fix('color-muted', surfaces)
  fix('color-error', [bg])
  fix('color-success', [bg])
  fix('color-focus', [bg], 3)
  const primaryRaw = read('color-primary')
  const onPrimary = read('color-primary-text')
  if (!primaryRaw || !onPrimary) {
    console.warn(`Portico: cannot read color-primary ${t['color-primary']}; contrast not checked`)
    t['color-link'] = t['color-primary']!
  } else {
    const primary = over(primaryRaw, bg)
    if (ratio(over(onPrimary, primary), primary) < AA) set('color-primary-text', ratio(primary, [0, 0, 0, 1]) >= ratio(primary, white) ? '#000000' : '#ffffff', 'color-primary')
    t['color-link'] = ratio(primary, bg) < AA ? t['color-text']! : t['color-primary']!
  }
  if (changed.length) console.warn(`Portico: colours changed to be readable (WCAG AA): ${changed.join('; ')}`)
}

const v = (name: string) => `var(--je-${name})`

/**
 * The widget's stylesheet, applied inside its shadow root (ui.ts), so the host page's rules never reach
 * it. The host element and the screen's words slotted into it (heading, paragraphs, list items: kept
 * in the page so the dialog is named and described by id and read by the page's scripts) are the
 * boxes the page's rules could touch: their declarations here are `!important`, which in a shadow tree
 * wins over the page's own, `!important` or not (CSS Cascade 5, "Context"). `all: initial` on the host
 * stops the page's inherited properties (font, colour, letter spacing, …) at the door; `all: unset` on
 * each slotted word undoes whatever the page set on it, so it inherits the widget's look through its
 * slot (`direction`, `unicode-bidi` and the `--je-*` tokens the words read, which `all` leaves
 * alone, are reset by name; the page's generated content is removed). The words are text only (ui.ts
 * lifts no element with children), so nothing below them is left for the page to reach; the page's
 * `::first-letter` and `::first-line` rules are the one thing not undone (`::slotted` cannot be
 * followed by them). Directions are logical (inline-start/end), so
 * right-to-left locales mirror as they should.
 */
export const STYLESHEET = `
:host{all:initial!important;display:block!important;direction:ltr!important;font-size:${v('font-size')}!important}
:host([dir=rtl]){direction:rtl!important}
:host([aria-modal]){position:fixed!important;inset:0!important;background:${v('color-overlay')}!important;display:flex!important;align-items:center!important;justify-content:center!important;z-index:${v('z-index')}!important}
:host([hidden]){display:none!important}
::slotted(*){all:unset!important;display:block!important;direction:inherit!important;unicode-bidi:normal!important;${['color-error', 'color-focus', 'color-muted', 'color-success', 'font-size-small', 'font-size-title', 'font-weight-title', 'space-3', 'space-6'].map((t) => `--je-${t}:inherit!important`).join(';')}}
::slotted(*)::before,::slotted(*)::after{content:none!important}
::slotted([hidden]){display:none!important}
::slotted(h2){font-size:${v('font-size-title')}!important;font-weight:${v('font-weight-title')}!important;line-height:1.3!important;margin:0 0 ${v('space-3')}!important;margin-inline-end:${v('space-6')}!important;overflow-wrap:break-word!important}
::slotted(h2:lang(ja)),::slotted(h2:lang(ko)){word-break:keep-all!important;overflow-wrap:anywhere!important}
::slotted(h2:focus){outline:none!important}
::slotted(h2:focus-visible){outline:2px solid ${v('color-focus')}!important;outline-offset:2px!important}
::slotted(p){margin:0 0 ${v('space-3')}!important;overflow-wrap:break-word!important}
::slotted(li){display:list-item!important;overflow-wrap:break-word!important}
::slotted(.je-plain){margin:0!important}
::slotted(.je-warn){font-weight:600!important}
::slotted(.je-err){color:${v('color-error')}!important}
::slotted(.je-ok){color:${v('color-success')}!important}
::slotted(.je-hint),::slotted(.je-small){font-size:${v('font-size-small')}!important;color:${v('color-muted')}!important}
.je-root{box-sizing:border-box;font-family:${v('font-family')};font-size:${v('font-size')};line-height:${v('line-height')};color:${v('color-text')};background:${v('color-background')};border-radius:${v('radius')};padding:${v('space-6')};width:min(${v('dialog-width')},calc(100vw - 32px));max-height:calc(100vh - 32px);max-height:calc(100dvh - 32px);overflow:auto;position:relative;text-align:start}
:host([aria-modal]) .je-root{box-shadow:${v('dialog-shadow')}}
.je-root *{box-sizing:border-box}
.je-root p{margin:0 0 ${v('space-3')}}
.je-head{display:flex;align-items:center;gap:${v('space-2')};margin:0 0 ${v('space-3')};margin-inline-end:${v('space-6')}}
.je-logo{max-height:28px}
.je-x{position:absolute;top:${v('space-2')};inset-inline-end:${v('space-2')};border:0;background:none;font-size:22px;cursor:pointer;color:${v('color-muted')};line-height:1;min-width:44px;min-height:44px}
.je-btn{font:inherit;border:1px solid ${v('color-primary')};background:${v('color-primary')};color:${v('color-primary-text')};border-radius:${v('radius-button')};padding:${v('space-2')} ${v('space-4')};cursor:pointer;min-height:44px}
.je-btn.je-alt{background:none;color:${v('color-link')}}
.je-root a{color:${v('color-link')}}
.je-link{font:inherit;background:none;border:0;padding:0;color:${v('color-link')};text-decoration:underline;cursor:pointer;min-height:44px}
.je-btn:disabled,.je-btn[aria-disabled="true"]{opacity:.6;cursor:not-allowed}
.je-root :focus-visible{outline:2px solid ${v('color-focus')};outline-offset:2px}
.je-row{display:flex;gap:${v('space-2')};flex-wrap:wrap;margin-top:${v('space-4')}}
.je-root label{display:block;font-weight:600;margin-bottom:${v('space-1')}}
.je-root input,.je-root select{font:inherit;width:100%;padding:${v('space-2')};border:1px solid ${v('color-border')};border-radius:${v('radius-button')};background:${v('color-background')};color:inherit}
.je-small{font-size:${v('font-size-small')};color:${v('color-muted')}}
.je-err{color:${v('color-error')}}
.je-table{width:100%;border-collapse:collapse;font-size:${v('font-size-small')};margin:${v('space-3')} 0}
.je-table th,.je-table td{text-align:start;padding:${v('space-2')};border-bottom:1px solid ${v('color-border')};vertical-align:top;overflow-wrap:anywhere}
.je-table th,.je-table .je-type,.je-table .je-st,.je-copy{white-space:nowrap;overflow-wrap:normal}
.je-st-ok{color:${v('color-success')}}
.je-st-bad{color:${v('color-error')}}
.je-root code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.95em;background:${v('color-surface')};color:${v('color-text')};padding:1px 4px;border-radius:4px}
.je-copy{font:inherit;font-size:${v('font-size-small')};border:1px solid ${v('color-border')};background:${v('color-surface')};border-radius:6px;cursor:pointer;margin:${v('space-1')} 0 0;min-height:44px;min-width:44px;padding:0 ${v('space-2')};color:${v('color-text')};display:block}
.je-sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.je-detected{display:flex;align-items:center;gap:${v('space-2')};font-weight:600;margin-bottom:${v('space-3')}}
.je-plogo{width:24px;height:24px;flex:none}
.je-scopes,.je-steps{margin:0 0 ${v('space-3')};padding-inline-start:20px}
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
.je-note{border-inline-start:3px solid ${v('color-error')};padding-inline-start:${v('space-2')}}
.je-root p,.je-root label{overflow-wrap:break-word}
.je-root:lang(ja),.je-root:lang(zh){line-break:strict}
.je-root:lang(ja) .je-btn{word-break:keep-all;overflow-wrap:anywhere}
@supports (word-break:auto-phrase){.je-root:lang(ja),.je-root:lang(ja) .je-btn{word-break:auto-phrase}}
.je-root:lang(ko){word-break:keep-all;overflow-wrap:anywhere}
.je-foot{margin-top:${v('space-4')};font-size:${v('font-size-small')};color:${v('color-muted')}}
`
