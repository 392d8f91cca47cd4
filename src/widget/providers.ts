// What the widget shows about a DNS provider beyond the server's catalog: its logo, keyed by the
// catalog's provider id. Logos are simple-icons (CC0, npm `simple-icons`), their paths and colours
// inlined at bundle time (logos.ts, a macro). Which credential to create, with which permissions and
// where, is the domain check's (`provider_candidates`: each provider folder's `token_url` and
// `token_scopes`), read by screens/view.ts `tokenHelp`.
import { logos } from './logos.ts' with { type: 'macro' }

interface Icon {
  path: string
  hex: string
}

const LOGOS: Record<string, Icon> = logos()

/** An inline SVG logo for a provider (decorative: the provider's name is always written next to it). */
export function logoSvg(providerId: string | null): SVGElement | null {
  const icon = providerId ? LOGOS[providerId] : undefined
  if (!icon) return null
  const ns = 'http://www.w3.org/2000/svg'
  const svg = document.createElementNS(ns, 'svg')
  svg.setAttribute('viewBox', '0 0 24 24')
  svg.setAttribute('class', 'je-plogo')
  svg.setAttribute('aria-hidden', 'true')
  svg.setAttribute('focusable', 'false')
  const path = document.createElementNS(ns, 'path')
  path.setAttribute('d', icon.path)
  path.setAttribute('fill', `#${icon.hex}`)
  svg.append(path)
  return svg
}
