// What the widget shows about a DNS provider beyond the server's catalog: its logo and, for the
// providers whose credential screen the widget offers, which token to create, with which permissions,
// and where. Keyed by the catalog's provider id. Logos are simple-icons (CC0, npm `simple-icons`);
// only the icons imported here end up in the bundle.
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

/** The credential a provider's API takes: its name there, the permissions it needs, where to create it. */
export interface TokenHelp {
  kind: string
  scopes: string[]
  url: string
  /** The name the link says (`Create it at …`), when it is not the detected provider's. */
  at?: string
  /** A second provider whose credential the same rail takes (NS1's fleet also serves Netlify DNS). */
  also?: { at: string; url: string }
}

export const TOKEN_HELP: Record<string, TokenHelp> = {
  cloudflare: { kind: 'API token', scopes: ['Zone → DNS → Edit', 'Zone → Zone → Read'], url: 'https://dash.cloudflare.com/profile/api-tokens' },
  godaddy: { kind: 'API key and secret (key:secret)', scopes: ['Production key'], url: 'https://developer.godaddy.com/keys' },
  namecheap: { kind: 'API key (user:key)', scopes: ['API access enabled, this address whitelisted'], url: 'https://ap.www.namecheap.com/settings/tools/apiaccess/' },
  digitalocean: { kind: 'Personal access token', scopes: ['domain:read', 'domain:create', 'domain:update'], url: 'https://cloud.digitalocean.com/account/api/tokens' },
  hetzner: { kind: 'Project API token', scopes: ['Read & Write (Security → API tokens)'], url: 'https://console.hetzner.cloud/projects' },
  porkbun: { kind: 'API key and secret (key:secret)', scopes: ['API access turned on for this domain'], url: 'https://porkbun.com/account/api' },
  dynadot: { kind: 'API key', scopes: ['Advanced Domain API key; allow Portico\'s address if the key has an IP list'], url: 'https://www.dynadot.com/account/domain/setting/api.html' },
  namesilo: { kind: 'API key', scopes: ['No IP restriction, or Portico\'s address allowed'], url: 'https://www.namesilo.com/account/api-manager' },
  vercel: { kind: 'Access token', scopes: ['Full account or the team that owns the domain'], url: 'https://vercel.com/account/tokens' },
  netlify: { kind: 'Personal access token', scopes: ['Full access'], url: 'https://app.netlify.com/user/applications#personal-access-tokens' },
  gandi: { kind: 'Personal access token', scopes: ['Manage domain name technical configurations'], url: 'https://admin.gandi.net/organizations/account/pat' },
  wix: { kind: 'Account ID and API key (account_id:api_key)', scopes: ['All account permissions → Manage Domains', 'The account ID shown beside your API keys'], url: 'https://manage.wix.com/account/api-keys' },
  // NS1's nameservers serve Netlify DNS too: the rail takes either provider's credential.
  ns1: {
    kind: 'NS1 API key, or a Netlify personal access token if your DNS is at Netlify',
    scopes: ['NS1: an API key allowed to view and manage zones', 'Netlify: a personal access token (User settings → Applications)'],
    url: 'https://my.nsone.net/#/account/settings',
    at: 'NS1',
    also: { at: 'Netlify', url: 'https://app.netlify.com/user/applications#personal-access-tokens' },
  },
  powerdns: { kind: 'API key (X-API-Key)', scopes: ['Zone write access'], url: 'https://doc.powerdns.com/authoritative/http-api/' },
}
