// The DNS-provider catalog behind GET /providers: who hosts a zone (told by its nameservers) and what
// each provider can do per rail. Providers are ranked by the share of registered domains whose DNS
// they host (public DNS-hosting surveys; an estimate, highest first). Capabilities follow the
// providers' public documentation; `apex` names an ALIAS-style record that can point the apex at any
// hostname (Route 53 and Azure aliases reach only their own cloud's resources, so they count as none).
// `api_apply` says the provider has a public DNS API; `built` says whether Portico has a working
// adapter for it, per rail (an API credential the person pastes, or an OAuth sign-in, offered only on
// deployments that configure the provider's OAuth client). `oauth` is what is built
// (src/domain/provider-oauth-endpoints.ts), never more: test/unit/providers.test.ts walks every provider. `spf_override` says an existing SPF TXT
// record can be edited in place through an automated rail. `caa`, `mx` and `subdomain_delegation` say the
// provider's zone editor accepts CAA records, MX records and NS records below the apex (an adapter's
// shared contract and do-no-harm tests write CAA and MX only where these say the host holds them). `logo` is a Simple Icons
// slug (https://simpleicons.org) where one exists; `token_url` is the page where a person creates the
// API credential the widget asks for, with the `token_scopes` it needs: for a provider with an adapter
// both come from its folder (src/adapters/dns-providers/<id>/adapter.ts, `provider`), and `api_apply`
// is then true; the rows below hold them only for providers without one.
//
// Nameserver patterns never overlap (test/unit/providers.test.ts checks every pair). Two providers
// cannot be told by nameservers at all, and say so with `shares_nameservers_with` and no patterns of
// their own: Netlify DNS is served from NS1's fleet, on any `dnsN.pNN.nsone.net` shard, so a domain on
// that fleet is detected as NS1 and its API rail (src/adapters/dns-providers/ns1/adapter.ts) takes either
// an NS1 API key or a Netlify token, telling them apart by the credential; Amazon Lightsail DNS zones
// use Route 53's `awsdns` nameservers but another API (Lightsail's), so a Route 53 key does not reach
// them. `audience: integrator` marks a provider only a Portico operator can use (PowerDNS, which needs
// the integrator's API URL): it stays in the catalogue but out of the end-user census.
import { HOSTED } from '../adapters/dns-providers/index.ts'
import { OAUTH_ENDPOINTS } from './provider-oauth-endpoints.ts'

export interface Capabilities {
  api_apply: boolean
  oauth: boolean
  domain_connect: { sync: boolean; async: boolean }
  apex: 'alias' | 'aname' | 'flattening' | null
  wildcard: boolean
  caa: boolean
  /** The host holds MX records (a web-only or forwarding host may not). */
  mx: boolean
  spf_override: boolean
  subdomain_delegation: boolean
}

export interface Provider {
  id: string
  name: string
  /** 1 = hosts the most domains. */
  rank: number
  /** Nameserver hostnames, `*` matching one or more characters within one label. */
  nameserver_patterns: string[]
  dashboard_url: string
  /** Simple Icons slug, or null where the provider has none. */
  logo: string | null
  /** Where a person creates the API credential, and what it must be allowed to do. */
  token_url: string | null
  token_scopes: string[]
  /** That credential as the person knows it, with the form to paste where it has parts. */
  credential: string | null
  capabilities: Capabilities
  /** Which automatic rails Portico has a working adapter for. */
  built: { api_credential: boolean; oauth: boolean }
  manual_steps: string[]
  /** `integrator`: usable only by a Portico operator (PowerDNS); not counted in the end-user census. */
  audience: 'end_user' | 'integrator'
  /** The provider whose nameservers this one's zones are served from (then it has no patterns of its own). */
  shares_nameservers_with: string | null
}

const caps = (c: Partial<Capabilities>): Capabilities => ({
  api_apply: false,
  oauth: false,
  domain_connect: { sync: false, async: false },
  apex: null,
  wildcard: true,
  caa: true,
  mx: true,
  spf_override: false,
  subdomain_delegation: true,
  ...c,
})

const steps = (where: string) => [`Sign in to ${where}`, 'Open the DNS settings of your domain', 'Add each record below exactly as shown (host, type, value)', 'Save, then come back and choose "I have added them"']

/** Which automatic rails Portico has built for a provider id. */
export function builtRails(id: string): { api: boolean; oauth: boolean } {
  return { api: id in HOSTED, oauth: id in OAUTH_ENDPOINTS }
}

/** A catalogue row as written below (PROVIDERS completes it). */
export type Row = Omit<Provider, 'rank' | 'built' | 'logo' | 'token_url' | 'token_scopes' | 'credential' | 'manual_steps' | 'audience' | 'shares_nameservers_with'> & {
  audience?: Provider['audience']
  shares_nameservers_with?: string
  logo?: string | null
  token_url?: string
  token_scopes?: string[]
  credential?: string
  manual_steps?: string[]
  /** Where the manual steps start, when they are the generic ones. */
  where?: string
}

const DC_SYNC = { sync: true, async: false }
const DC_BOTH = { sync: true, async: true }

export const ROWS: Row[] = [
  { id: 'cloudflare', name: 'Cloudflare', logo: 'cloudflare', nameserver_patterns: ['*.ns.cloudflare.com'], dashboard_url: 'https://dash.cloudflare.com/', capabilities: caps({ api_apply: true, domain_connect: DC_SYNC, apex: 'flattening', spf_override: true }), manual_steps: ['Sign in to the Cloudflare dashboard and pick your domain', 'Go to DNS → Records and choose "Add record"', 'Add each record below; set Proxy status to "DNS only" (grey cloud)', 'Save, then come back and choose "I have added them"'] },
  { id: 'godaddy', name: 'GoDaddy', logo: 'godaddy', nameserver_patterns: ['*.domaincontrol.com'], dashboard_url: 'https://dcc.godaddy.com/control/portfolio', capabilities: caps({ api_apply: true, domain_connect: DC_BOTH }), manual_steps: ['Sign in to GoDaddy and open My Products → Domains', 'Choose your domain, then DNS → Manage DNS', 'Add each record below ("@" means the domain itself)', 'Save, then come back and choose "I have added them"'] },
  { id: 'namecheap', name: 'Namecheap', logo: 'namecheap', nameserver_patterns: ['*.registrar-servers.com'], dashboard_url: 'https://ap.www.namecheap.com/domains/list/', capabilities: caps({ api_apply: true, apex: 'alias' }), manual_steps: ['Sign in to Namecheap and open Domain List', 'Choose Manage next to your domain, then Advanced DNS', 'Under Host Records add each record below', 'Save all changes, then come back and choose "I have added them"'] },
  { id: 'route53', name: 'Amazon Route 53', logo: 'amazonroute53', nameserver_patterns: ['ns-*.awsdns-*.com', 'ns-*.awsdns-*.net', 'ns-*.awsdns-*.org', 'ns-*.awsdns-*.co.uk'], dashboard_url: 'https://console.aws.amazon.com/route53/v2/hostedzones', capabilities: caps({ api_apply: true, spf_override: true }), where: 'the AWS console → Route 53 → Hosted zones' },
  { id: 'google-cloud-dns', name: 'Google Cloud DNS', logo: 'googlecloud', nameserver_patterns: ['ns-cloud-*.googledomains.com'], dashboard_url: 'https://console.cloud.google.com/net-services/dns/zones', capabilities: caps({ api_apply: true, spf_override: true }), where: 'the Google Cloud console → Network services → Cloud DNS' },
  { id: 'squarespace', name: 'Squarespace Domains', logo: 'squarespace', nameserver_patterns: ['*.squarespacedns.com'], dashboard_url: 'https://account.squarespace.com/domains', capabilities: caps({ domain_connect: DC_SYNC, subdomain_delegation: false }), where: 'Squarespace → Domains → DNS settings' },
  { id: 'ionos', name: 'IONOS', logo: 'ionos', nameserver_patterns: ['ns*.ui-dns.com', 'ns*.ui-dns.de', 'ns*.ui-dns.org', 'ns*.ui-dns.biz'], dashboard_url: 'https://my.ionos.com/domains', capabilities: caps({ api_apply: true, domain_connect: DC_BOTH }), where: 'IONOS → Domains & SSL → DNS' },
  { id: 'ovh', name: 'OVHcloud', logo: 'ovh', nameserver_patterns: ['*.ovh.net', '*.ovh.ca'], dashboard_url: 'https://www.ovh.com/manager/', capabilities: caps({ api_apply: true }), where: 'the OVHcloud Control Panel → Web Cloud → Domain names → DNS zone' },
  { id: 'hostinger', name: 'Hostinger', logo: 'hostinger', nameserver_patterns: ['ns*.dns-parking.com'], dashboard_url: 'https://hpanel.hostinger.com/domains', capabilities: caps({ api_apply: true }), where: 'Hostinger hPanel → Domains → DNS / Nameservers' },
  { id: 'wix', name: 'Wix', logo: 'wix', nameserver_patterns: ['ns*.wixdns.net'], dashboard_url: 'https://manage.wix.com/account/domains', capabilities: caps({ api_apply: true, caa: false, subdomain_delegation: false }), where: 'Wix → Domains → Manage DNS Records' },
  { id: 'bluehost', name: 'Bluehost', logo: null, nameserver_patterns: ['ns*.bluehost.com'], dashboard_url: 'https://my.bluehost.com/hosting/app#/domains', capabilities: caps({ domain_connect: DC_SYNC }), where: 'Bluehost → Domains → DNS' },
  { id: 'network-solutions', name: 'Network Solutions', logo: null, nameserver_patterns: ['ns*.worldnic.com'], dashboard_url: 'https://www.networksolutions.com/my-account/domain-center', capabilities: caps({ caa: false }), where: 'Network Solutions → Domain Center → Advanced DNS' },
  { id: 'digitalocean', name: 'DigitalOcean', logo: 'digitalocean', nameserver_patterns: ['ns*.digitalocean.com'], dashboard_url: 'https://cloud.digitalocean.com/networking/domains', capabilities: caps({ api_apply: true }), where: 'the DigitalOcean control panel → Networking → Domains' },
  { id: 'hetzner', name: 'Hetzner DNS', logo: 'hetzner', nameserver_patterns: ['*.ns.hetzner.com', '*.ns.hetzner.de'], dashboard_url: 'https://console.hetzner.cloud/', capabilities: caps({ api_apply: true }), where: 'the Hetzner Console → your project → DNS' },
  { id: 'gandi', name: 'Gandi', logo: 'gandi', nameserver_patterns: ['*.gandi.net'], dashboard_url: 'https://admin.gandi.net/domain/', capabilities: caps({ api_apply: true, apex: 'alias' }), where: 'Gandi → Domain → DNS Records' },
  { id: 'porkbun', name: 'Porkbun', logo: 'porkbun', nameserver_patterns: ['*.ns.porkbun.com'], dashboard_url: 'https://porkbun.com/account/domainsSpeedy', capabilities: caps({ api_apply: true, apex: 'alias' }), where: 'Porkbun → Domain Management → DNS' },
  { id: 'namecom', name: 'Name.com', logo: null, nameserver_patterns: ['ns*.name.com'], dashboard_url: 'https://www.name.com/account/domain', capabilities: caps({ api_apply: true, apex: 'aname' }), where: 'Name.com → My Domains → Manage DNS Records' },
  { id: 'azure', name: 'Azure DNS', logo: 'microsoftazure', nameserver_patterns: ['ns*-*.azure-dns.com', 'ns*-*.azure-dns.net', 'ns*-*.azure-dns.org', 'ns*-*.azure-dns.info'], dashboard_url: 'https://portal.azure.com/#browse/Microsoft.Network%2FdnsZones', capabilities: caps({ api_apply: true, spf_override: true }), where: 'the Azure portal → DNS zones' },
  { id: 'dynadot', name: 'Dynadot', logo: null, nameserver_patterns: ['ns*.dyna-ns.net'], dashboard_url: 'https://www.dynadot.com/account/domain/name/list.html', capabilities: caps({ api_apply: true }), where: 'Dynadot → My Domains → DNS Settings' },
  { id: 'namesilo', name: 'NameSilo', logo: null, nameserver_patterns: ['ns*.dnsowl.com'], dashboard_url: 'https://www.namesilo.com/account_domains.php', capabilities: caps({ api_apply: true }), where: 'NameSilo → Domain Manager → DNS Records' },
  { id: 'alibaba-cloud-dns', name: 'Alibaba Cloud DNS', logo: 'alibabacloud', nameserver_patterns: ['*.hichina.com', '*.alidns.com'], dashboard_url: 'https://dns.console.aliyun.com/', capabilities: caps({ api_apply: true }), where: 'the Alibaba Cloud DNS console' },
  { id: 'dnspod', name: 'Tencent Cloud DNSPod', logo: 'tencentqq', nameserver_patterns: ['*.dnspod.net', '*.dnspod.com'], dashboard_url: 'https://console.dnspod.cn/', capabilities: caps({ api_apply: true }), where: 'the DNSPod console' },
  { id: 'akamai', name: 'Akamai Edge DNS', logo: 'akamai', nameserver_patterns: ['a*-*.akam.net'], dashboard_url: 'https://control.akamai.com/', token_url: 'https://control.akamai.com/apps/identity-management/#/tabs/users/list', token_scopes: ['DNS—Zone Record Management READ-WRITE'], capabilities: caps({ api_apply: true, apex: 'alias' }), where: 'Akamai Control Center → Edge DNS' },
  { id: 'linode', name: 'Akamai Cloud (Linode) DNS', logo: 'linode', nameserver_patterns: ['ns*.linode.com'], dashboard_url: 'https://cloud.linode.com/domains', capabilities: caps({ api_apply: true }), where: 'Akamai Cloud Manager → Domains' },
  { id: 'vultr', name: 'Vultr DNS', logo: 'vultr', nameserver_patterns: ['ns*.vultr.com'], dashboard_url: 'https://my.vultr.com/dns/', capabilities: caps({ api_apply: true }), where: 'Vultr → Products → Network → DNS' },
  { id: 'vercel', name: 'Vercel DNS', logo: 'vercel', nameserver_patterns: ['ns*.vercel-dns.com'], dashboard_url: 'https://vercel.com/dashboard/domains', capabilities: caps({ api_apply: true, apex: 'alias' }), where: 'Vercel → Domains → DNS Records' },
  { id: 'netlify', name: 'Netlify DNS', logo: 'netlify', nameserver_patterns: [], shares_nameservers_with: 'ns1', dashboard_url: 'https://app.netlify.com/teams/domains', capabilities: caps({ api_apply: true, apex: 'alias' }), where: 'Netlify → Domains → DNS records' },
  { id: 'ns1', name: 'IBM NS1 Connect', logo: null, nameserver_patterns: ['dns*.p*.nsone.net'], dashboard_url: 'https://my.nsone.net/', capabilities: caps({ api_apply: true, apex: 'alias', spf_override: true }), where: 'the NS1 Connect portal (or, for Netlify DNS, Netlify → Domains) → Zones' },
  { id: 'dnsimple', name: 'DNSimple', logo: 'dnsimple', nameserver_patterns: ['ns*.dnsimple.com', 'ns*.dnsimple-edge.net', 'ns*.dnsimple-edge.org', 'ns*.dnsimple-edge.com'], dashboard_url: 'https://dnsimple.com/dashboard', capabilities: caps({ api_apply: true, apex: 'alias', spf_override: true }), where: 'DNSimple → Domains → DNS' },
  { id: 'strato', name: 'STRATO', logo: null, nameserver_patterns: ['*.rzone.de'], dashboard_url: 'https://www.strato.de/apps/CustomerService', capabilities: caps({ caa: false }), where: 'STRATO → Domains → Manage domain → DNS' },
  { id: 'infomaniak', name: 'Infomaniak', logo: 'infomaniak', nameserver_patterns: ['ns*.infomaniak.ch', 'ns*.infomaniak.com'], dashboard_url: 'https://manager.infomaniak.com/v3/domains', capabilities: caps({ api_apply: true }), where: 'Infomaniak Manager → Domains → DNS zone' },
  { id: 'scaleway', name: 'Scaleway Domains and DNS', logo: 'scaleway', nameserver_patterns: ['*.dom.scw.cloud'], dashboard_url: 'https://console.scaleway.com/domains/', capabilities: caps({ api_apply: true }), where: 'the Scaleway console → Domains and DNS' },
  { id: 'exoscale', name: 'Exoscale DNS', logo: null, nameserver_patterns: ['ns*.exoscale.ch', 'ns*.exoscale.com', 'ns*.exoscale.io', 'ns*.exoscale.net'], dashboard_url: 'https://portal.exoscale.com/dns', capabilities: caps({ api_apply: true }), where: 'the Exoscale portal → DNS' },
  { id: 'constellix', name: 'Constellix', logo: null, nameserver_patterns: ['ns*.constellix.com', 'ns*.constellix.net', 'ns*.constellix.org', 'ns*.constellix.info', 'ns*.constellix.biz', 'ns*.constellix.co.uk'], dashboard_url: 'https://dns.constellix.com/', capabilities: caps({ api_apply: true, apex: 'aname' }), where: 'Constellix DNS → Domains' },
  { id: 'dnsmadeeasy', name: 'DNS Made Easy', logo: null, nameserver_patterns: ['ns*.dnsmadeeasy.com'], dashboard_url: 'https://cp.dnsmadeeasy.com/', capabilities: caps({ api_apply: true, apex: 'aname' }), where: 'DNS Made Easy → Managed DNS' },
  { id: 'ultradns', name: 'Vercara UltraDNS', logo: null, nameserver_patterns: ['*.ultradns.net', '*.ultradns.com', '*.ultradns.org', '*.ultradns.biz', '*.ultradns.info', '*.ultradns.co.uk'], dashboard_url: 'https://portal.ultradns.com/', capabilities: caps({ api_apply: true, apex: 'alias' }), where: 'the UltraDNS portal → Zones' },
  { id: 'bunny', name: 'Bunny DNS', logo: 'bunnydotnet', nameserver_patterns: ['*.bunny.net'], dashboard_url: 'https://dash.bunny.net/dns', capabilities: caps({ api_apply: true, apex: 'flattening' }), where: 'the bunny.net dashboard → DNS' },
  { id: 'desec', name: 'deSEC', logo: null, nameserver_patterns: ['ns*.desec.io', 'ns*.desec.org'], dashboard_url: 'https://desec.io/domains', capabilities: caps({ api_apply: true, spf_override: true }), where: 'deSEC → Domains' },
  { id: 'hurricane-electric', name: 'Hurricane Electric Free DNS', logo: null, nameserver_patterns: ['ns*.he.net'], dashboard_url: 'https://dns.he.net/', capabilities: caps({}), where: 'dns.he.net → your zone' },
  { id: 'cloudns', name: 'ClouDNS', logo: null, nameserver_patterns: ['*.cloudns.net'], dashboard_url: 'https://www.cloudns.net/main/', capabilities: caps({ api_apply: true, apex: 'alias' }), where: 'ClouDNS → DNS hosting → your zone' },
  { id: 'oracle-cloud-dns', name: 'Oracle Cloud DNS', logo: 'oracle', nameserver_patterns: ['ns*.p*.dns.oraclecloud.net'], dashboard_url: 'https://cloud.oracle.com/dns/zones', capabilities: caps({ api_apply: true }), where: 'the Oracle Cloud console → Networking → DNS' },
  { id: 'dyn', name: 'Oracle Dyn Managed DNS (retired)', logo: null, nameserver_patterns: ['ns*.p*.dynect.net'], dashboard_url: 'https://manage.dynect.net/', capabilities: caps({}), where: 'Dyn Managed DNS → Manage' },
  { id: 'hostgator', name: 'HostGator', logo: null, nameserver_patterns: ['ns*.hostgator.com', 'ns*.websitewelcome.com'], dashboard_url: 'https://portal.hostgator.com/domains', capabilities: caps({}), where: 'HostGator → Domains → DNS' },
  { id: 'siteground', name: 'SiteGround', logo: null, nameserver_patterns: ['ns*.siteground.net'], dashboard_url: 'https://my.siteground.com/', capabilities: caps({}), where: 'SiteGround Site Tools → Domain → DNS Zone Editor' },
  { id: 'dreamhost', name: 'DreamHost', logo: null, nameserver_patterns: ['ns*.dreamhost.com'], dashboard_url: 'https://panel.dreamhost.com/', capabilities: caps({ api_apply: true }), where: 'DreamHost panel → Websites → DNS' },
  { id: 'wordpress-com', name: 'WordPress.com', logo: 'wordpress', nameserver_patterns: ['ns*.wordpress.com'], dashboard_url: 'https://wordpress.com/domains/manage', capabilities: caps({ caa: true, subdomain_delegation: true }), where: 'WordPress.com → Upgrades → Domains → DNS records' },
  { id: 'microsoft-365', name: 'Microsoft 365 domains', logo: 'microsoft', nameserver_patterns: ['ns*.bdm.microsoftonline.com'], dashboard_url: 'https://admin.microsoft.com/#/Domains', capabilities: caps({ caa: false, subdomain_delegation: false }), where: 'the Microsoft 365 admin center → Settings → Domains' },
  { id: 'register-com', name: 'Register.com', logo: null, nameserver_patterns: ['dns*.register.com'], dashboard_url: 'https://www.register.com/myaccount/', capabilities: caps({ caa: false }), where: 'Register.com → Domains → Advanced technical settings' },
  { id: 'enom', name: 'eNom', logo: null, nameserver_patterns: ['dns*.name-services.com'], dashboard_url: 'https://www.enom.com/myaccount/', capabilities: caps({ api_apply: true }), where: 'eNom → Domains → Host Records' },
  { id: 'hover', name: 'Hover', logo: null, nameserver_patterns: ['ns*.hover.com'], dashboard_url: 'https://www.hover.com/control_panel', capabilities: caps({ caa: false }), where: 'Hover → your domain → DNS' },
  { id: 'spaceship', name: 'Spaceship', logo: null, nameserver_patterns: ['*.spaceship.net'], dashboard_url: 'https://www.spaceship.com/application/domain-list-application/', capabilities: caps({ api_apply: true }), where: 'Spaceship → Domain list → Advanced DNS' },
  { id: 'epik', name: 'Epik', logo: null, nameserver_patterns: ['ns*.epik.com'], dashboard_url: 'https://registrar.epik.com/', capabilities: caps({ api_apply: true }), where: 'Epik → Domains → DNS / Host Records' },
  { id: 'one-com', name: 'one.com', logo: null, nameserver_patterns: ['ns*.one.com'], dashboard_url: 'https://www.one.com/admin/', capabilities: caps({}), where: 'one.com control panel → DNS settings' },
  { id: 'transip', name: 'TransIP', logo: null, nameserver_patterns: ['ns*.transip.net', 'ns*.transip.nl', 'ns*.transip.eu'], dashboard_url: 'https://www.transip.nl/cp/', capabilities: caps({ api_apply: true }), where: 'the TransIP control panel → Domains → DNS' },
  { id: 'loopia', name: 'Loopia', logo: null, nameserver_patterns: ['ns*.loopia.se'], dashboard_url: 'https://customerzone.loopia.com/', capabilities: caps({ api_apply: true }), where: 'Loopia Customer zone → DNS editor' },
  { id: 'aruba', name: 'Aruba.it', logo: null, nameserver_patterns: ['dns*.technorail.com', 'dns*.arubadns.net'], dashboard_url: 'https://admin.aruba.it/', capabilities: caps({}), where: 'Aruba.it → Domain → DNS management' },
  { id: 'register-it', name: 'Register.it', logo: null, nameserver_patterns: ['ns*.register.it'], dashboard_url: 'https://controlpanel.register.it/', capabilities: caps({}), where: 'Register.it → Domain → DNS and nameservers' },
  { id: 'hostpoint', name: 'Hostpoint', logo: null, nameserver_patterns: ['ns*.hostpoint.ch'], dashboard_url: 'https://admin.hostpoint.ch/', capabilities: caps({}), where: 'Hostpoint Control Panel → Domains → DNS' },
  { id: 'domeneshop', name: 'Domeneshop', logo: null, nameserver_patterns: ['ns*.hyp.net'], dashboard_url: 'https://domene.shop/admin', capabilities: caps({ api_apply: true }), where: 'Domeneshop → Domains → DNS' },
  { id: 'simply-com', name: 'Simply.com', logo: null, nameserver_patterns: ['ns*.simply.com'], dashboard_url: 'https://www.simply.com/controlpanel/', capabilities: caps({ api_apply: true }), where: 'Simply.com control panel → DNS' },
  { id: 'inwx', name: 'INWX', logo: null, nameserver_patterns: ['ns*.inwx.de', 'ns*.inwx.eu', 'ns*.inwx.net'], dashboard_url: 'https://www.inwx.de/en/nameserver2', capabilities: caps({ api_apply: true }), where: 'INWX → Nameserver → your domain' },
  { id: 'all-inkl', name: 'ALL-INKL.COM', logo: null, nameserver_patterns: ['ns*.kasserver.com'], dashboard_url: 'https://kas.all-inkl.com/', capabilities: caps({ api_apply: true }), where: 'ALL-INKL KAS → Tools → DNS settings' },
  { id: 'netcup', name: 'netcup', logo: null, nameserver_patterns: ['*-dns.netcup.net'], dashboard_url: 'https://www.customercontrolpanel.de/', capabilities: caps({ api_apply: true }), where: 'the netcup CCP → Domains → DNS' },
  { id: 'joker', name: 'Joker.com', logo: null, nameserver_patterns: ['*.ns.joker.com'], dashboard_url: 'https://joker.com/', capabilities: caps({}), where: 'Joker.com → My Domains → DNS' },
  { id: 'mythic-beasts', name: 'Mythic Beasts', logo: null, nameserver_patterns: ['ns*.mythic-beasts.com'], dashboard_url: 'https://www.mythic-beasts.com/customer', capabilities: caps({ api_apply: true }), where: 'Mythic Beasts control panel → Domains → DNS' },
  { id: 'gcore', name: 'Gcore DNS', logo: null, nameserver_patterns: ['ns*.gcorelabs.net', 'ns*.gcdn.services'], dashboard_url: 'https://dns.gcore.com/', capabilities: caps({ api_apply: true, apex: 'flattening' }), where: 'the Gcore portal → DNS' },
  { id: 'easydns', name: 'easyDNS', logo: null, nameserver_patterns: ['dns*.easydns.com', 'dns*.easydns.net', 'dns*.easydns.org', 'dns*.easydns.info'], dashboard_url: 'https://cp.easydns.com/', capabilities: caps({ api_apply: true, apex: 'aname' }), where: 'easyDNS → DNS settings' },
  { id: 'rackspace', name: 'Rackspace Cloud DNS', logo: null, nameserver_patterns: ['dns*.stabletransit.com'], dashboard_url: 'https://mycloud.rackspace.com/', capabilities: caps({ api_apply: true }), where: 'the Rackspace Cloud Control Panel → Networking → Cloud DNS' },
  { id: 'liquidweb', name: 'Liquid Web', logo: null, nameserver_patterns: ['ns*.liquidweb.com'], dashboard_url: 'https://my.liquidweb.com/', capabilities: caps({ api_apply: true }), where: 'Liquid Web → Domains → DNS' },
  { id: 'fasthosts', name: 'Fasthosts', logo: null, nameserver_patterns: ['ns*.livedns.co.uk'], dashboard_url: 'https://admin.fasthosts.co.uk/', capabilities: caps({}), where: 'Fasthosts control panel → Domain names → DNS' },
  { id: '123-reg', name: '123 Reg', logo: null, nameserver_patterns: ['ns*.123-reg.co.uk'], dashboard_url: 'https://www.123-reg.co.uk/secure/cpanel/manage-domain', capabilities: caps({ domain_connect: DC_SYNC }), where: '123 Reg → Manage domain → DNS' },
  { id: 'crazy-domains', name: 'Crazy Domains', logo: null, nameserver_patterns: ['ns*.crazydomains.com'], dashboard_url: 'https://www.crazydomains.com/my-account/', capabilities: caps({}), where: 'Crazy Domains → Domains → DNS' },
  { id: 'yandex', name: 'Yandex 360 DNS', logo: null, nameserver_patterns: ['dns*.yandex.net'], dashboard_url: 'https://admin.yandex.ru/domains', capabilities: caps({ api_apply: true }), where: 'Yandex 360 admin → Domains → DNS' },
  { id: 'selectel', name: 'Selectel DNS', logo: null, nameserver_patterns: ['ns*.selectel.org'], dashboard_url: 'https://my.selectel.ru/dns', capabilities: caps({ api_apply: true }), where: 'the Selectel panel → DNS hosting' },
  { id: 'reg-ru', name: 'REG.RU', logo: null, nameserver_patterns: ['ns*.reg.ru'], dashboard_url: 'https://www.reg.ru/user/account/', capabilities: caps({ api_apply: true }), where: 'REG.RU → Domains → DNS servers and zone management' },
  { id: 'nic-ru', name: 'RU-CENTER', logo: null, nameserver_patterns: ['ns*.nic.ru'], dashboard_url: 'https://www.nic.ru/manager/', capabilities: caps({ api_apply: true }), where: 'RU-CENTER → DNS hosting → Zone management' },
  { id: 'sakura', name: 'Sakura Internet', logo: null, nameserver_patterns: ['ns*.dns.ne.jp'], dashboard_url: 'https://secure.sakura.ad.jp/menu/domain/', capabilities: caps({ api_apply: true }), where: 'Sakura Internet → Domains → Zone edit' },
  { id: 'onamae', name: 'Onamae.com (GMO)', logo: null, nameserver_patterns: ['dns*.onamae.com'], dashboard_url: 'https://navi.onamae.com/', capabilities: caps({}), where: 'Onamae.com Navi → DNS settings' },
  { id: 'xserver', name: 'Xserver', logo: null, nameserver_patterns: ['ns*.xserver.jp'], dashboard_url: 'https://secure.xserver.ne.jp/xapanel/', capabilities: caps({}), where: 'the Xserver panel → DNS record settings' },
  { id: 'gabia', name: 'Gabia', logo: null, nameserver_patterns: ['*.gabia.co.kr'], dashboard_url: 'https://dns.gabia.com/', capabilities: caps({}), where: 'Gabia → My Gabia → DNS management' },
  { id: 'cafe24', name: 'Cafe24', logo: null, nameserver_patterns: ['ns*.cafe24.com'], dashboard_url: 'https://hosting.cafe24.com/', capabilities: caps({}), where: 'Cafe24 → Domain → DNS management' },
  { id: 'dynu', name: 'Dynu', logo: null, nameserver_patterns: ['ns*.dynu.com'], dashboard_url: 'https://www.dynu.com/ControlPanel', capabilities: caps({ api_apply: true }), where: 'Dynu control panel → DDNS services → DNS records' },
  { id: 'afraid', name: 'FreeDNS (afraid.org)', logo: null, nameserver_patterns: ['ns*.afraid.org'], dashboard_url: 'https://freedns.afraid.org/subdomain/', capabilities: caps({ caa: false }), where: 'FreeDNS → Subdomains' },
  { id: 'noip', name: 'No-IP', logo: null, nameserver_patterns: ['ns*.no-ip.com'], dashboard_url: 'https://my.noip.com/dns/records', capabilities: caps({}), where: 'No-IP → Dynamic DNS → Records' },
  { id: 'lightsail', name: 'Amazon Lightsail DNS', logo: 'amazonaws', nameserver_patterns: [], shares_nameservers_with: 'route53', dashboard_url: 'https://lightsail.aws.amazon.com/ls/webapp/home/domains', capabilities: caps({ api_apply: true, apex: 'alias' }), where: 'the Lightsail console → Domains & DNS' },
  { id: 'hetzner-robot', name: 'Hetzner Robot / konsoleH DNS', logo: 'hetzner', nameserver_patterns: ['ns1.your-server.de', '*.second-ns.com', '*.second-ns.de'], dashboard_url: 'https://robot.hetzner.com/dns/index', capabilities: caps({}), where: 'Hetzner Robot → DNS (or konsoleH → DNS)' },
  { id: 'powerdns', audience: 'integrator', name: 'PowerDNS (self-hosted, HTTP API)', logo: 'powerdns', nameserver_patterns: ['*.portico-test.test'], dashboard_url: 'https://doc.powerdns.com/authoritative/http-api/', token_url: 'https://doc.powerdns.com/authoritative/settings.html#api-key', token_scopes: ['api-key of the server', 'the API URL'], credential: 'API key (X-API-Key)', capabilities: caps({ api_apply: true, spf_override: true }), where: 'your PowerDNS zone editor' },
]

export const PROVIDERS: Provider[] = ROWS.map(({ where, logo, token_url, token_scopes, credential, manual_steps, audience, shares_nameservers_with, ...p }, i) => {
  const b = builtRails(p.id)
  // A provider with an adapter takes the rail's facts from its folder (src/adapters/dns-providers/<id>/adapter.ts).
  const hosted = HOSTED[p.id]
  return {
    ...p,
    // Signing in at a provider is advertised exactly where Portico has built it (issue 46: Gandi and OVH
    // said `oauth: true` with no sign-in built, so the domain check offered a rail that never comes).
    capabilities: { ...p.capabilities, ...(hosted ? { api_apply: true } : {}), oauth: b.oauth },
    rank: i + 1,
    logo: logo ?? null,
    token_url: hosted?.token_url ?? token_url ?? null,
    token_scopes: hosted?.token_scopes ?? token_scopes ?? [],
    credential: hosted?.credential ?? credential ?? null,
    // PowerDNS is written through the API with the integrator's own URL (provider accounts).
    built: { api_credential: b.api || p.id === 'powerdns', oauth: b.oauth },
    manual_steps: manual_steps ?? steps(where ?? p.name),
    audience: audience ?? 'end_user',
    shares_nameservers_with: shares_nameservers_with ?? null,
  }
})

function patternRegex(p: string): RegExp {
  const body = p.toLowerCase().split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[a-z0-9-]+')
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

/**
 * How many catalogued providers support each rail and capability; every provider has the manual rail.
 * `rails` counts what providers offer (a public API, an OAuth app); `built` counts what Portico has a
 * working adapter for, per rail, and `automatic` the providers with at least one of them.
 */
export function parityCensus() {
  // End users' providers only: an integrator-only adapter (PowerDNS) is no rail a domain owner has.
  const census = PROVIDERS.filter((p) => p.audience === 'end_user')
  const count = (f: (c: Capabilities) => boolean) => census.filter((p) => f(p.capabilities)).length
  const built = (f: (p: Provider) => boolean) => census.filter(f).map((p) => p.id)
  const automatic = built((p) => p.built.api_credential || p.built.oauth)
  return {
    providers: census.length,
    built: {
      api_credential: built((p) => p.built.api_credential).length,
      oauth: built((p) => p.built.oauth).length,
      automatic: automatic.length,
      automatic_providers: automatic,
    },
    rails: {
      oauth: count((c) => c.oauth),
      domain_connect: count((c) => c.domain_connect.sync || c.domain_connect.async),
      api_apply: count((c) => c.api_apply),
      manual: census.length,
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
      mx: count((c) => c.mx),
      spf_override: count((c) => c.spf_override),
      subdomain_delegation: count((c) => c.subdomain_delegation),
    },
  }
}
