// What the widget shows about a DNS provider beyond the server's catalog: its logo, keyed by the
// catalog's provider id. Logos are simple-icons (CC0, npm `simple-icons`); only the icons imported here
// end up in the bundle. Which credential to create, with which permissions and where, is the domain
// check's (`provider_candidates`: each provider folder's `token_url` and `token_scopes`), read by
// screens/view.ts `tokenHelp`.
import { siCloudflare, siDigitalocean, siGandi, siGodaddy, siGooglecloud, siHetzner, siIonos, siNamecheap, siNetlify, siOvh, siPorkbun, siSquarespace, siVercel, siWix } from 'simple-icons'

interface Icon {
  path: string
  hex: string
}

const LOGOS: Record<string, Icon> = {
  cloudflare: siCloudflare,
  godaddy: siGodaddy,
  namecheap: siNamecheap,
  'google-cloud-dns': siGooglecloud,
  squarespace: siSquarespace,
  ionos: siIonos,
  ovh: siOvh,
  digitalocean: siDigitalocean,
  hetzner: siHetzner,
  porkbun: siPorkbun,
  gandi: siGandi,
  vercel: siVercel,
  netlify: siNetlify,
  wix: siWix,
}

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
