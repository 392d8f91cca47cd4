// Colours for the contrast guard (styles.ts): any CSS colour the integrator writes, read as sRGB.
// `parseColour` reads the syntaxes that need no browser (#rgb, #rgba, #rrggbb, #rrggbbaa, rgb()/rgba(),
// hsl()/hsla() in comma and space forms, `transparent`); in a browser anything else CSS accepts (named
// colours, hwb(), lab(), oklch(), color()) is painted on a 1x1 canvas and read back, which is how the
// browser itself would show it. Contrast is WCAG 2.2's ("contrast ratio", "relative luminance").

/** sRGB channels 0–255 and alpha 0–1. */
export type Rgba = [number, number, number, number]

const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x))

function channel(s: string, max: number): number {
  const v = parseFloat(s)
  return s.endsWith('%') ? (v / 100) * max : v
}

function hsl(h: number, s: number, l: number): [number, number, number] {
  const k = (n: number) => (n + h / 30) % 12
  const a = s * Math.min(l, 1 - l)
  const f = (n: number) => l - a * Math.max(-1, Math.min(k(n) - 3, 9 - k(n), 1))
  return [f(0) * 255, f(8) * 255, f(4) * 255]
}

/** The colour without a browser, or null when its syntax needs one. */
export function parseColour(input: string): Rgba | null {
  const s = input.trim().toLowerCase()
  if (s === 'transparent') return [0, 0, 0, 0]
  const hex = /^#([0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/.exec(s)
  if (hex) {
    let x = hex[1]!
    if (x.length <= 4) x = [...x].map((c) => c + c).join('')
    const n = [0, 2, 4, 6].map((i) => parseInt(x.slice(i, i + 2) || 'ff', 16))
    return [n[0]!, n[1]!, n[2]!, n[3]! / 255]
  }
  const fn = /^(rgba?|hsla?)\(([^)]*)\)$/.exec(s)
  if (!fn) return null
  const parts = fn[2]!.trim().split(/\s*[,/]\s*|\s+/).filter(Boolean)
  if (parts.length < 3 || parts.length > 4) return null
  if (parts.some((p) => !/^[+-]?(\d+\.?\d*|\.\d+)(%|deg)?$/.test(p))) return null
  const alpha = parts[3] === undefined ? 1 : clamp(channel(parts[3], 1), 0, 1)
  if (fn[1]!.startsWith('rgb')) {
    const [r, g, b] = parts.slice(0, 3).map((p) => clamp(channel(p, 255), 0, 255))
    return [r!, g!, b!, alpha]
  }
  const h = ((parseFloat(parts[0]!) % 360) + 360) % 360
  const [r, g, b] = hsl(h, clamp(parseFloat(parts[1]!) / 100, 0, 1), clamp(parseFloat(parts[2]!) / 100, 0, 1))
  return [r, g, b, alpha]
}

let ctx: CanvasRenderingContext2D | null | undefined

/** Any colour the browser understands, as it paints it (null outside a browser or for what is not a colour). */
function paintedColour(s: string): Rgba | null {
  if (typeof document === 'undefined') return null
  ctx ??= document.createElement('canvas').getContext('2d', { willReadFrequently: true })
  if (!ctx) return null
  // An invalid colour leaves fillStyle unchanged: try it over two different starting colours.
  ctx.fillStyle = '#000'
  ctx.fillStyle = s
  const a = ctx.fillStyle
  ctx.fillStyle = '#fff'
  ctx.fillStyle = s
  if (a !== ctx.fillStyle) return null
  ctx.clearRect(0, 0, 1, 1)
  ctx.fillRect(0, 0, 1, 1)
  const [r, g, b, al] = ctx.getImageData(0, 0, 1, 1).data
  return [r!, g!, b!, al! / 255]
}

export const readColour = (s: string): Rgba | null => parseColour(s) ?? paintedColour(s)

/** `fg` painted over `bg` (an opaque result). */
export function over(fg: Rgba, bg: Rgba): Rgba {
  const a = fg[3]
  return [fg[0] * a + bg[0] * (1 - a), fg[1] * a + bg[1] * (1 - a), fg[2] * a + bg[2] * (1 - a), 1]
}

function luminance(c: Rgba): number {
  const [r, g, b] = c.slice(0, 3).map((v) => {
    const x = v / 255
    return x <= 0.04045 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4
  })
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!
}

/** WCAG contrast of two opaque colours. */
export function ratio(a: Rgba, b: Rgba): number {
  const la = luminance(a)
  const lb = luminance(b)
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05)
}

export const css = (c: Rgba) => `rgb(${c.slice(0, 3).map((v) => Math.round(v)).join(',')})`

/** `c` mixed with `to` by `t` (0–1). */
export const mix = (c: Rgba, to: Rgba, t: number): Rgba => [c[0] + (to[0] - c[0]) * t, c[1] + (to[1] - c[1]) * t, c[2] + (to[2] - c[2]) * t, 1]

const BLACK: Rgba = [0, 0, 0, 1]
const WHITE: Rgba = [255, 255, 255, 1]

/**
 * `fg` made to read at `min`:1 on every one of `bgs`: kept when it does; else moved towards black or
 * white (whichever side reads better on the backgrounds), the least that reads at `min` + 0.1, so its hue stays.
 */
export function readable(fg: Rgba, bgs: Rgba[], min: number): Rgba {
  const worst = (c: Rgba) => Math.min(...bgs.map((b) => ratio(c, b)))
  if (worst(fg) >= min) return fg
  const to = worst(BLACK) >= worst(WHITE) ? BLACK : WHITE
  let lo = 0
  let hi = 1
  for (let i = 0; i < 12; i++) {
    const mid = (lo + hi) / 2
    // Aimed above `min`, so the colour rounded to whole channels still reads.
    if (worst(mix(fg, to, mid)) >= min + 0.1) hi = mid
    else lo = mid
  }
  return mix(fg, to, hi)
}
