// The DNS-provider adapters Portico has, by catalog id (src/domain/providers.ts). A hosted provider's
// API base is its public one unless DNS_PROVIDER_API_BASES points it elsewhere (the test harness's
// local fakes, or an egress proxy); PowerDNS is self-hosted, so its URL comes with the credential.
import { PowerDnsProvider } from './powerdns.ts'
import type { ProviderHttp } from './http.ts'
import type { DnsProvider } from './types.ts'

export interface HostedFactoryOptions {
  /** API base URL without a trailing slash. */
  base: string
  http?: ProviderHttp
}

type HostedFactory = { defaultBase: string; make: (secret: string, opts: HostedFactoryOptions) => DnsProvider }

/** Hosted providers: filled by each adapter module below. */
export const HOSTED: Record<string, HostedFactory> = {}

export function registerHosted(id: string, f: HostedFactory): void {
  HOSTED[id] = f
}

/** Provider ids an API credential can be applied with on this build. */
export function apiKeyProviders(): Set<string> {
  return new Set(['powerdns', ...Object.keys(HOSTED)])
}

export function makeHosted(id: string, secret: string, bases: Record<string, string>): DnsProvider | null {
  const f = HOSTED[id]
  if (!f) return null
  return f.make(secret, { base: (bases[id] ?? f.defaultBase).replace(/\/+$/, '') })
}

export function makePowerDns(apiUrl: string, apiKey: string, pin: string): DnsProvider {
  return new PowerDnsProvider(apiUrl, apiKey, { pin })
}

export { ProviderError, zoneFor, type DnsProvider, type RRset, type RRsetChange, type Zone } from './types.ts'
