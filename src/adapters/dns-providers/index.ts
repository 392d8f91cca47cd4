// The DNS-provider adapters Portico has, by catalog id (src/domain/providers.ts). A hosted provider's
// API base is its public one unless DNS_PROVIDER_API_BASES points it elsewhere (the test harness's
// local fakes, or an egress proxy); PowerDNS is self-hosted, so its URL comes with the credential.
import { metered } from './metered.ts'
import { PowerDnsProvider } from './powerdns.ts'
import type { ProviderHttp } from './http.ts'
import type { DnsProvider } from './types.ts'
import { CLOUDFLARE_API, CloudflareProvider } from './cloudflare.ts'
import { DIGITALOCEAN_API, DigitalOceanProvider } from './digitalocean.ts'
import { GODADDY_API, GoDaddyProvider } from './godaddy.ts'
import { ROUTE53_API, Route53Provider } from './route53.ts'
import { HETZNER_API, HetznerProvider } from './hetzner.ts'
import { VULTR_API, VultrProvider } from './vultr.ts'
import { LINODE_API, LinodeProvider } from './linode.ts'
import { DNSIMPLE_API, DnsimpleProvider } from './dnsimple.ts'
import { NETLIFY_API, NetlifyProvider } from './netlify.ts'
import { VERCEL_API, VercelProvider } from './vercel.ts'
import { GANDI_API, GandiProvider } from './gandi.ts'
import { DESEC_API, DesecProvider } from './desec.ts'
import { NS1_API } from './ns1.ts'
import { Ns1FleetProvider } from './ns1-fleet.ts'
import { NAMECOM_API, NamecomProvider } from './namecom.ts'
import { BUNNY_API, BunnyProvider } from './bunny.ts'
import { SCALEWAY_API, ScalewayProvider } from './scaleway.ts'
import { GOOGLE_DNS_API, GoogleCloudDnsProvider } from './google.ts'
import { IONOS_API, IonosProvider } from './ionos.ts'
import { GCORE_API, GcoreProvider } from './gcore.ts'
import { DOMENESHOP_API, DomeneshopProvider } from './domeneshop.ts'
import { HOSTINGER_API, HostingerProvider } from './hostinger.ts'
import { AZURE_API, AzureDnsProvider } from './azure.ts'
import { OVH_API, OvhProvider } from './ovh.ts'
import { MYTHIC_BEASTS_API, MythicBeastsProvider } from './mythic-beasts.ts'
import { SIMPLY_API, SimplyProvider } from './simply.ts'
import { DYNU_API, DynuProvider } from './dynu.ts'
import { EXOSCALE_API, ExoscaleProvider } from './exoscale.ts'
import { SPACESHIP_API, SpaceshipProvider } from './spaceship.ts'
import { NAMECHEAP_API, NamecheapProvider } from './namecheap.ts'
import { DNSMADEEASY_API, DnsMadeEasyProvider } from './dnsmadeeasy.ts'
import { CLOUDNS_API, CloudnsProvider } from './cloudns.ts'
import { INFOMANIAK_API, InfomaniakProvider } from './infomaniak.ts'
import { CONSTELLIX_API, ConstellixProvider } from './constellix.ts'
import { DNSPOD_API, DnspodProvider } from './dnspod.ts'
import { ALIDNS_API, AlidnsProvider } from './alidns.ts'
import { PORKBUN_API, PorkbunProvider } from './porkbun.ts'
import { NAMESILO_API, NamesiloProvider } from './namesilo.ts'
import { DYNADOT_API, DynadotProvider } from './dynadot.ts'
import { WIX_API, WixProvider } from './wix.ts'

export interface HostedFactoryOptions {
  /** API base URL without a trailing slash. */
  base: string
  /** Every configured base, for an adapter that reaches two APIs (the NS1 fleet: NS1 and Netlify). */
  bases?: Record<string, string>
  http?: ProviderHttp
  /** Operator settings an adapter needs beside the credential (src/config.ts). */
  settings?: HostedSettings
}

/** Operator settings some adapters take beside the credential. */
export interface HostedSettings {
  /** NAMECHEAP_CLIENT_IP: the whitelisted address Namecheap's API is called from, when the credential names none. */
  namecheapClientIp?: string | null
}

type HostedFactory = { defaultBase: string; make: (secret: string, opts: HostedFactoryOptions) => DnsProvider }

/** Hosted providers, by catalog id. */
export const HOSTED: Record<string, HostedFactory> = {
  cloudflare: { defaultBase: CLOUDFLARE_API, make: (s, o) => new CloudflareProvider(s, o.base) },
  digitalocean: { defaultBase: DIGITALOCEAN_API, make: (s, o) => new DigitalOceanProvider(s, o.base) },
  godaddy: { defaultBase: GODADDY_API, make: (s, o) => new GoDaddyProvider(s, o.base) },
  route53: { defaultBase: ROUTE53_API, make: (s, o) => new Route53Provider(s, o.base) },
  hetzner: { defaultBase: HETZNER_API, make: (s, o) => new HetznerProvider(s, o.base) },
  vultr: { defaultBase: VULTR_API, make: (s, o) => new VultrProvider(s, o.base) },
  linode: { defaultBase: LINODE_API, make: (s, o) => new LinodeProvider(s, o.base) },
  dnsimple: { defaultBase: DNSIMPLE_API, make: (s, o) => new DnsimpleProvider(s, o.base) },
  netlify: { defaultBase: NETLIFY_API, make: (s, o) => new NetlifyProvider(s, o.base) },
  vercel: { defaultBase: VERCEL_API, make: (s, o) => new VercelProvider(s, o.base) },
  gandi: { defaultBase: GANDI_API, make: (s, o) => new GandiProvider(s, o.base) },
  desec: { defaultBase: DESEC_API, make: (s, o) => new DesecProvider(s, o.base) },
  // NS1's nameserver fleet serves NS1's customers and Netlify DNS's alike: either credential works.
  ns1: { defaultBase: NS1_API, make: (s, o) => new Ns1FleetProvider(s, o.base, (o.bases?.netlify ?? NETLIFY_API).replace(/\/+$/, '')) },
  namecom: { defaultBase: NAMECOM_API, make: (s, o) => new NamecomProvider(s, o.base) },
  bunny: { defaultBase: BUNNY_API, make: (s, o) => new BunnyProvider(s, o.base) },
  scaleway: { defaultBase: SCALEWAY_API, make: (s, o) => new ScalewayProvider(s, o.base) },
  'google-cloud-dns': { defaultBase: GOOGLE_DNS_API, make: (s, o) => new GoogleCloudDnsProvider(s, o.base) },
  ionos: { defaultBase: IONOS_API, make: (s, o) => new IonosProvider(s, o.base) },
  gcore: { defaultBase: GCORE_API, make: (s, o) => new GcoreProvider(s, o.base) },
  domeneshop: { defaultBase: DOMENESHOP_API, make: (s, o) => new DomeneshopProvider(s, o.base) },
  hostinger: { defaultBase: HOSTINGER_API, make: (s, o) => new HostingerProvider(s, o.base) },
  azure: { defaultBase: AZURE_API, make: (s, o) => new AzureDnsProvider(s, o.base) },
  ovh: { defaultBase: OVH_API, make: (s, o) => new OvhProvider(s, o.base) },
  'mythic-beasts': { defaultBase: MYTHIC_BEASTS_API, make: (s, o) => new MythicBeastsProvider(s, o.base) },
  'simply-com': { defaultBase: SIMPLY_API, make: (s, o) => new SimplyProvider(s, o.base) },
  dynu: { defaultBase: DYNU_API, make: (s, o) => new DynuProvider(s, o.base) },
  exoscale: { defaultBase: EXOSCALE_API, make: (s, o) => new ExoscaleProvider(s, o.base) },
  spaceship: { defaultBase: SPACESHIP_API, make: (s, o) => new SpaceshipProvider(s, o.base) },
  namecheap: { defaultBase: NAMECHEAP_API, make: (s, o) => new NamecheapProvider(s, o.base, o.settings?.namecheapClientIp) },
  dnsmadeeasy: { defaultBase: DNSMADEEASY_API, make: (s, o) => new DnsMadeEasyProvider(s, o.base) },
  cloudns: { defaultBase: CLOUDNS_API, make: (s, o) => new CloudnsProvider(s, o.base) },
  infomaniak: { defaultBase: INFOMANIAK_API, make: (s, o) => new InfomaniakProvider(s, o.base) },
  constellix: { defaultBase: CONSTELLIX_API, make: (s, o) => new ConstellixProvider(s, o.base) },
  dnspod: { defaultBase: DNSPOD_API, make: (s, o) => new DnspodProvider(s, o.base) },
  'alibaba-cloud-dns': { defaultBase: ALIDNS_API, make: (s, o) => new AlidnsProvider(s, o.base) },
  porkbun: { defaultBase: PORKBUN_API, make: (s, o) => new PorkbunProvider(s, o.base) },
  namesilo: { defaultBase: NAMESILO_API, make: (s, o) => new NamesiloProvider(s, o.base) },
  dynadot: { defaultBase: DYNADOT_API, make: (s, o) => new DynadotProvider(s, o.base) },
  wix: { defaultBase: WIX_API, make: (s, o) => new WixProvider(s, o.base) },
}

/**
 * Provider ids the domain check advertises the API-credential rail for: those whose credential is one
 * secret an end user can paste into the widget's credential screen. PowerDNS is applied through the
 * API and provider accounts too, but it also needs the integrator's API URL, which the widget does not
 * ask for, so it is not advertised to end users.
 */
export function apiKeyProviders(): Set<string> {
  return new Set(Object.keys(HOSTED))
}

export function makeHosted(id: string, secret: string, bases: Record<string, string>, settings: HostedSettings = {}): DnsProvider | null {
  const f = HOSTED[id]
  if (!f) return null
  return metered(f.make(secret, { base: (bases[id] ?? f.defaultBase).replace(/\/+$/, ''), bases, settings }))
}

export function makePowerDns(apiUrl: string, apiKey: string, pin: string): DnsProvider {
  return metered(new PowerDnsProvider(apiUrl, apiKey, { pin }))
}

export { ProviderError, zoneFor, type DnsProvider, type RRset, type RRsetChange, type Zone } from './types.ts'
