// The provider logos the widget shows (simple-icons, CC0, npm `simple-icons`), as a bundle-time macro:
// the bundle carries each icon's path and colour only, not simple-icons' whole object (its title,
// slug, source and guidelines, and an svg getter repeating the path).
import { siCloudflare, siDigitalocean, siGandi, siGodaddy, siGooglecloud, siHetzner, siIonos, siNamecheap, siNetlify, siOvh, siPorkbun, siSquarespace, siVercel, siWix } from 'simple-icons'

/** Catalog provider id → the icon's SVG path (24x24) and brand colour (hex, no #). */
export function logos(): Record<string, { path: string; hex: string }> {
  const icons = {
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
  return Object.fromEntries(Object.entries(icons).map(([id, icon]) => [id, { path: icon.path, hex: icon.hex }]))
}
