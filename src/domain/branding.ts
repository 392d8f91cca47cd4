// Application branding: the name, logo and accent colour an application shows to the people it sends
// to Portico's pages (the share page, the consent header) and to the widget. Invariants:
// - `logo_url` is an https URL whose host is a public name or address (Portico never fetches it, but
//   every visitor's browser will, so it must not point into anyone's private network), or a data: URL
//   of a PNG, JPEG, GIF, WebP or SVG image of at most LOGO_MAX_BYTES whose bytes are that format;
// - `accent_color` is `#rrggbb`; what is drawn on it uses `accent_foreground`, black or white,
//   whichever contrasts more (never below 4.58:1, WCAG 2.2 SC 1.4.3), and `accent_text` is the accent
//   darkened until it reads as text on white at 4.5:1, for links and outlines on the page;
// - a stored branding went through `validateBranding`; what leaves Portico goes through `brandingOut`.
import { hiddenProblem } from './outside-text.ts'
import { classifyAddress, isUrlSyntacticallyAllowed, parseHostLiteral } from '../adapters/ssrf.ts'

export const LOGO_MAX_BYTES = 32 * 1024
export const LOGO_URL_MAX = 2048
export const DISPLAY_NAME_MAX = 80

export interface Branding {
  display_name: string | null
  logo_url: string | null
  accent_color: string | null
}

export interface BrandingView extends Branding {
  /** `#000000` or `#ffffff`: text and icons drawn on the accent. */
  accent_foreground: string | null
  /** The accent, darkened where needed to read as text on a white page (4.5:1). */
  accent_text: string | null
}

export interface Problem {
  in: 'body'
  field: string
  message: string
}

// ---------------------------------------------------------------- colour

const HEX = /^#[0-9a-f]{6}$/

function channel(v: number): number {
  const s = v / 255
  return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4
}

/** WCAG 2.2 relative luminance of `#rrggbb`. */
export function luminance(hex: string): number {
  const n = Number.parseInt(hex.slice(1), 16)
  return 0.2126 * channel((n >> 16) & 255) + 0.7152 * channel((n >> 8) & 255) + 0.0722 * channel(n & 255)
}

/** WCAG contrast ratio of two `#rrggbb` colours, 1 to 21. */
export function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number]
  return (hi + 0.05) / (lo + 0.05)
}

/** Black or white, whichever reads better on `accent`. */
export function foregroundOn(accent: string): '#000000' | '#ffffff' {
  return contrast(accent, '#ffffff') >= contrast(accent, '#000000') ? '#ffffff' : '#000000'
}

/** `accent` darkened step by step (same hue) until it reaches 4.5:1 on white. */
export function textOnWhite(accent: string): string {
  let [r, g, b] = [1, 3, 5].map((i) => Number.parseInt(accent.slice(i, i + 2), 16)) as [number, number, number]
  const hex = () => `#${[r, g, b].map((v) => Math.round(v).toString(16).padStart(2, '0')).join('')}`
  for (let i = 0; i < 100 && contrast(hex(), '#ffffff') < 4.5; i++) [r, g, b] = [r * 0.95, g * 0.95, b * 0.95]
  return hex()
}

// ---------------------------------------------------------------- logo

const DATA_URL = /^data:(image\/(?:png|jpeg|gif|webp|svg\+xml));base64,([A-Za-z0-9+/]+={0,2})$/

/** Whether `bytes` start the way a file of `type` does. */
function looksLike(type: string, bytes: Buffer): boolean {
  const starts = (...sig: number[]) => sig.every((v, i) => bytes[i] === v)
  switch (type) {
    case 'image/png':
      return starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)
    case 'image/jpeg':
      return starts(0xff, 0xd8, 0xff)
    case 'image/gif':
      return bytes.subarray(0, 6).toString('latin1') === 'GIF87a' || bytes.subarray(0, 6).toString('latin1') === 'GIF89a'
    case 'image/webp':
      return bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP'
    default: {
      const text = bytes.toString('utf8').replace(/^\uFEFF/, '').trimStart()
      return /^(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*(<!DOCTYPE svg[^>]*>\s*)?<svg[\s>]/i.test(text)
    }
  }
}

/** Why `raw` cannot be a logo, or null when it can. Names are resolved by `resolve` (A and AAAA). */
export async function logoProblem(raw: string, opts: { allowLoopback: boolean; resolve: (host: string) => Promise<string[]> }): Promise<string | null> {
  if (raw.startsWith('data:')) {
    const m = DATA_URL.exec(raw)
    if (!m) return 'must be data:image/(png|jpeg|gif|webp|svg+xml);base64,…'
    const bytes = Buffer.from(m[2]!, 'base64')
    if (bytes.length > LOGO_MAX_BYTES) return `is ${bytes.length} bytes; at most ${LOGO_MAX_BYTES} bytes are allowed in a data: logo`
    if (!looksLike(m[1]!, bytes)) return `is not a ${m[1]} image`
    return null
  }
  if (raw.length > LOGO_URL_MAX) return `must be at most ${LOGO_URL_MAX} characters`
  // https only: the share and consent pages are served over https and would block mixed content.
  const syntax = isUrlSyntacticallyAllowed(raw, { allowLoopback: false, requireHttps: true })
  if (!syntax.ok) return syntax.reason === 'https is required' ? 'must be an https URL or a data: image' : syntax.reason
  if (syntax.url.protocol !== 'https:') return 'must be an https URL or a data: image'
  const host = syntax.url.hostname.replace(/^\[(.*)\]$/, '$1')
  if (parseHostLiteral(host) !== null) return null
  if (!host.includes('.')) return `${host} is not a public hostname`
  let addresses: string[]
  try {
    addresses = await opts.resolve(host)
  } catch (err) {
    return `${host} could not be resolved (${err instanceof Error ? err.message : String(err)})`
  }
  if (addresses.length === 0) return `${host} has no address`
  for (const a of addresses) {
    const cls = classifyAddress(a)
    if (cls !== 'public' && !(opts.allowLoopback && cls === 'loopback')) return `${host} resolves to a ${cls.replace('_', '-')} address (${a})`
  }
  return null
}

// ---------------------------------------------------------------- the whole

/** The stored branding, normalised (trimmed name, lowercase colour), or the problems with it. */
export async function validateBranding(
  input: { display_name?: string | null; logo_url?: string | null; accent_color?: string | null },
  opts: { allowLoopback: boolean; resolve: (host: string) => Promise<string[]> },
): Promise<{ branding: Branding; problems: Problem[] }> {
  const problems: Problem[] = []
  const name = input.display_name?.trim().replace(/\s+/g, ' ') || null
  if (name !== null && [...name].length > DISPLAY_NAME_MAX) problems.push({ in: 'body', field: 'display_name', message: `must be at most ${DISPLAY_NAME_MAX} characters` })
  // Shown to people and agents as the application's name: nothing in it may draw nothing or reorder the
  // text around it. Judged as sent: the spaces made of runs of white space include BOM and the line and
  // paragraph separators, which would otherwise pass as spaces.
  const hidden = name === null ? null : hiddenProblem(input.display_name!)
  if (hidden) problems.push({ in: 'body', field: 'display_name', message: hidden })
  const color = input.accent_color?.trim().toLowerCase() || null
  if (color !== null && !HEX.test(color)) problems.push({ in: 'body', field: 'accent_color', message: 'must be a colour written #rrggbb' })
  const logo = input.logo_url?.trim() || null
  if (logo !== null) {
    const why = await logoProblem(logo, opts)
    if (why) problems.push({ in: 'body', field: 'logo_url', message: why })
  }
  return { branding: { display_name: name, logo_url: logo, accent_color: color }, problems }
}

/** What every face shows of a stored branding; null when the application has none. */
export function brandingOut(stored: unknown): BrandingView | null {
  if (!stored || typeof stored !== 'object') return null
  const b = stored as Partial<Branding>
  const accent = typeof b.accent_color === 'string' && HEX.test(b.accent_color) ? b.accent_color : null
  const view: BrandingView = {
    display_name: b.display_name ?? null,
    logo_url: b.logo_url ?? null,
    accent_color: accent,
    accent_foreground: accent ? foregroundOn(accent) : null,
    accent_text: accent ? textOnWhite(accent) : null,
  }
  return view.display_name || view.logo_url || view.accent_color ? view : null
}
