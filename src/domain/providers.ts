// The DNS-provider catalog behind GET /providers: who hosts a zone (told by its nameservers) and what
// each provider can do per rail. Capabilities follow the providers' public documentation; `apex` names
// an ALIAS-style record that can point the apex at any hostname (Route 53 and Azure aliases reach only
// their own cloud's resources, so they count as none). `api_apply` says the provider has a public DNS
// API; whether Portico has an adapter for it is a separate, per-deployment fact. `spf_override` says
// an existing SPF TXT record can be edited in place through an automated rail (so Portico can merge
// its include instead of asking the person to). `caa` and `subdomain_delegation` say the provider's
// zone editor accepts CAA records and NS records below the apex.

export interface Capabilities {
  api_apply: boolean
  oauth: boolean
  domain_connect: { sync: boolean; async: boolean }
  apex: 'alias' | 'aname' | 'flattening' | null
  wildcard: boolean
  caa: boolean
  spf_override: boolean
  subdomain_delegation: boolean
}

export interface Provider {
  id: string
  name: string
  /** Nameserver hostnames, `*` matching one or more labels or characters. */
  nameserver_patterns: string[]
  dashboard_url: string
  capabilities: Capabilities
  manual_steps: string[]
}

const caps = (c: Partial<Capabilities>): Capabilities => ({
  api_apply: false,
  oauth: false,
  domain_connect: { sync: false, async: false },
  apex: null,
  wildcard: true,
  caa: true,
  spf_override: false,
  subdomain_delegation: true,
  ...c,
})

const steps = (where: string) => [`Sign in to ${where}`, 'Open the DNS settings of your domain', 'Add each record below exactly as shown (host, type, value)', 'Save, then come back and choose "I have added them"']

export const PROVIDERS: Provider[] = [
  { id: 'cloudflare', name: 'Cloudflare', nameserver_patterns: ['*.ns.cloudflare.com'], dashboard_url: 'https://dash.cloudflare.com/', capabilities: caps({ api_apply: true, domain_connect: { sync: true, async: false }, apex: 'flattening', spf_override: true }), manual_steps: ['Sign in to the Cloudflare dashboard and pick your domain', 'Go to DNS → Records and choose "Add record"', 'Add each record below; set Proxy status to "DNS only" (grey cloud)', 'Save, then come back and choose "I have added them"'] },
  { id: 'godaddy', name: 'GoDaddy', nameserver_patterns: ['*.domaincontrol.com'], dashboard_url: 'https://dcc.godaddy.com/control/portfolio', capabilities: caps({ api_apply: true, domain_connect: { sync: true, async: true } }), manual_steps: ['Sign in to GoDaddy and open My Products → Domains', 'Choose your domain, then DNS → Manage DNS', 'Add each record below ("@" means the domain itself)', 'Save, then come back and choose "I have added them"'] },
  { id: 'namecheap', name: 'Namecheap', nameserver_patterns: ['*.registrar-servers.com'], dashboard_url: 'https://ap.www.namecheap.com/domains/list/', capabilities: caps({ api_apply: true, apex: 'alias' }), manual_steps: ['Sign in to Namecheap and open Domain List', 'Choose Manage next to your domain, then Advanced DNS', 'Under Host Records add each record below', 'Save all changes, then come back and choose "I have added them"'] },
  { id: 'route53', name: 'Amazon Route 53', nameserver_patterns: ['ns-*.awsdns-*.com', 'ns-*.awsdns-*.net', 'ns-*.awsdns-*.org', 'ns-*.awsdns-*.co.uk'], dashboard_url: 'https://console.aws.amazon.com/route53/v2/hostedzones', capabilities: caps({ api_apply: true, spf_override: true }), manual_steps: steps('the AWS console → Route 53 → Hosted zones') },
  { id: 'google-cloud-dns', name: 'Google Cloud DNS', nameserver_patterns: ['ns-cloud-*.googledomains.com'], dashboard_url: 'https://console.cloud.google.com/net-services/dns/zones', capabilities: caps({ api_apply: true, oauth: true, spf_override: true }), manual_steps: steps('the Google Cloud console → Network services → Cloud DNS') },
  { id: 'squarespace', name: 'Squarespace Domains', nameserver_patterns: ['*.squarespacedns.com'], dashboard_url: 'https://account.squarespace.com/domains', capabilities: caps({ domain_connect: { sync: true, async: false }, subdomain_delegation: false }), manual_steps: steps('Squarespace → Domains → DNS settings') },
  { id: 'ionos', name: 'IONOS', nameserver_patterns: ['ns*.ui-dns.com', 'ns*.ui-dns.de', 'ns*.ui-dns.org', 'ns*.ui-dns.biz'], dashboard_url: 'https://my.ionos.com/domains', capabilities: caps({ api_apply: true, domain_connect: { sync: true, async: true } }), manual_steps: steps('IONOS → Domains & SSL → DNS') },
  { id: 'ovh', name: 'OVHcloud', nameserver_patterns: ['*.ovh.net', '*.ovh.ca'], dashboard_url: 'https://www.ovh.com/manager/', capabilities: caps({ api_apply: true, oauth: true }), manual_steps: steps('the OVHcloud Control Panel → Web Cloud → Domain names → DNS zone') },
  { id: 'digitalocean', name: 'DigitalOcean', nameserver_patterns: ['ns*.digitalocean.com'], dashboard_url: 'https://cloud.digitalocean.com/networking/domains', capabilities: caps({ api_apply: true, oauth: true }), manual_steps: steps('the DigitalOcean control panel → Networking → Domains') },
  { id: 'hetzner', name: 'Hetzner DNS', nameserver_patterns: ['*.ns.hetzner.com', '*.ns.hetzner.de', '*.your-server.de'], dashboard_url: 'https://dns.hetzner.com/', capabilities: caps({ api_apply: true }), manual_steps: steps('the Hetzner DNS Console') },
  { id: 'porkbun', name: 'Porkbun', nameserver_patterns: ['*.ns.porkbun.com'], dashboard_url: 'https://porkbun.com/account/domainsSpeedy', capabilities: caps({ api_apply: true, apex: 'alias' }), manual_steps: steps('Porkbun → Domain Management → DNS') },
  { id: 'gandi', name: 'Gandi', nameserver_patterns: ['*.gandi.net'], dashboard_url: 'https://admin.gandi.net/domain/', capabilities: caps({ api_apply: true, oauth: true, apex: 'alias' }), manual_steps: steps('Gandi → Domain → DNS Records') },
  { id: 'namecom', name: 'Name.com', nameserver_patterns: ['ns*.name.com'], dashboard_url: 'https://www.name.com/account/domain', capabilities: caps({ api_apply: true, apex: 'aname' }), manual_steps: steps('Name.com → My Domains → Manage DNS Records') },
  { id: 'dnsimple', name: 'DNSimple', nameserver_patterns: ['ns*.dnsimple.com', 'ns*.dnsimple-edge.net', 'ns*.dnsimple-edge.org', 'ns*.dnsimple-edge.com'], dashboard_url: 'https://dnsimple.com/dashboard', capabilities: caps({ api_apply: true, oauth: true, apex: 'alias', spf_override: true }), manual_steps: steps('DNSimple → Domains → DNS') },
  { id: 'vercel', name: 'Vercel DNS', nameserver_patterns: ['ns*.vercel-dns.com'], dashboard_url: 'https://vercel.com/dashboard/domains', capabilities: caps({ api_apply: true, apex: 'alias' }), manual_steps: steps('Vercel → Domains → DNS Records') },
  { id: 'netlify', name: 'Netlify DNS', nameserver_patterns: ['dns*.p*.nsone.net'], dashboard_url: 'https://app.netlify.com/teams/domains', capabilities: caps({ api_apply: true, oauth: true, apex: 'flattening' }), manual_steps: steps('Netlify → Domains → DNS records') },
  { id: 'azure', name: 'Azure DNS', nameserver_patterns: ['ns*-*.azure-dns.com', 'ns*-*.azure-dns.net', 'ns*-*.azure-dns.org', 'ns*-*.azure-dns.info'], dashboard_url: 'https://portal.azure.com/#browse/Microsoft.Network%2FdnsZones', capabilities: caps({ api_apply: true, oauth: true, spf_override: true }), manual_steps: steps('the Azure portal → DNS zones') },
  { id: 'hover', name: 'Hover', nameserver_patterns: ['ns*.hover.com'], dashboard_url: 'https://www.hover.com/control_panel', capabilities: caps({ caa: false }), manual_steps: steps('Hover → your domain → DNS') },
  { id: 'wix', name: 'Wix', nameserver_patterns: ['ns*.wixdns.net'], dashboard_url: 'https://manage.wix.com/account/domains', capabilities: caps({ caa: false, subdomain_delegation: false }), manual_steps: steps('Wix → Domains → Manage DNS Records') },
  { id: 'powerdns', name: 'PowerDNS (self-hosted, HTTP API)', nameserver_patterns: ['*.portico-test.test'], dashboard_url: 'https://doc.powerdns.com/authoritative/http-api/', capabilities: caps({ api_apply: true, spf_override: true }), manual_steps: steps('your PowerDNS zone editor') },
]

function patternRegex(p: string): RegExp {
  const body = p.toLowerCase().split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[a-z0-9.-]+')
  return new RegExp(`^${body}$`)
}

const compiled = PROVIDERS.map((p) => ({ p, res: p.nameserver_patterns.map(patternRegex) }))

/** The provider whose patterns match most of the nameservers (case and trailing dot ignored). */
export function detectProvider(nameservers: string[]): Provider | null {
  const ns = nameservers.map((n) => n.toLowerCase().replace(/\.$/, ''))
  let best: Provider | null = null
  let bestHits = 0
  for (const { p, res } of compiled) {
    const hits = ns.filter((n) => res.some((r) => r.test(n))).length
    if (hits > bestHits) {
      best = p
      bestHits = hits
    }
  }
  return best
}

export function providerById(id: string | null | undefined): Provider | undefined {
  return id ? PROVIDERS.find((p) => p.id === id) : undefined
}

/** How many catalogued providers support each rail and capability; every provider has the manual rail. */
export function parityCensus() {
  const count = (f: (c: Capabilities) => boolean) => PROVIDERS.filter((p) => f(p.capabilities)).length
  return {
    providers: PROVIDERS.length,
    rails: {
      oauth: count((c) => c.oauth),
      domain_connect: count((c) => c.domain_connect.sync || c.domain_connect.async),
      api_apply: count((c) => c.api_apply),
      manual: PROVIDERS.length,
    },
    capabilities: {
      domain_connect_sync: count((c) => c.domain_connect.sync),
      domain_connect_async: count((c) => c.domain_connect.async),
      apex_any: count((c) => c.apex !== null),
      apex_alias: count((c) => c.apex === 'alias'),
      apex_aname: count((c) => c.apex === 'aname'),
      apex_flattening: count((c) => c.apex === 'flattening'),
      wildcard: count((c) => c.wildcard),
      caa: count((c) => c.caa),
      spf_override: count((c) => c.spf_override),
      subdomain_delegation: count((c) => c.subdomain_delegation),
    },
  }
}
