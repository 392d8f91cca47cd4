// The DNS-provider adapters Portico has, by catalog id (src/domain/providers.ts). Each hosted provider
// is a folder, src/adapters/dns-providers/<id>/ (adapter.ts, card.ts, stand-in.ts); the registry is
// written from the folders by `npm run generate` (registry.generated.ts). A hosted provider's API base
// is its public one unless DNS_PROVIDER_API_BASES points it elsewhere (the test harness's local
// stand-ins, or an egress proxy); PowerDNS is self-hosted, so its URL comes with the credential.
import { metered } from './metered.ts'
import { PowerDnsProvider } from './powerdns.ts'
import type { HostedProvider, HostedSettings } from './hosted.ts'
import { HOSTED_PROVIDERS } from './registry.generated.ts'
import type { DnsProvider } from './types.ts'

export type { HostedFactoryOptions, HostedProvider, HostedSettings } from './hosted.ts'

/** Hosted providers, by catalog id. */
export const HOSTED: Record<string, HostedProvider> = Object.fromEntries(HOSTED_PROVIDERS.map((p) => [p.id, p]))

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

export { chooseZone, ProviderError, ZoneChoiceError, zoneFor, type DnsProvider, type RRset, type RRsetChange, type Zone } from './types.ts'
