// What a hosted provider's folder declares beside its adapter. Each src/adapters/dns-providers/<id>/
// holds adapter.ts (the adapter, its host's conventions and, exported as `provider`, this
// descriptor), card.ts (the provider's reference card) and stand-in.ts (the test harness's stand-in
// and its contract case). The registry (registry.generated.ts) is written from the folders by
// `npm run generate` (scripts/provider-registry.ts); the catalogue (src/domain/providers.ts) takes the
// rail's facts below from it.
import type { ProviderHttp } from './http.ts'
import type { DnsProvider } from './types.ts'

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

/** A hosted provider: its adapter's factory and what the API-credential rail tells the person. */
export interface HostedProvider {
  /** Catalog id (src/domain/providers.ts), and the folder's name. */
  id: string
  /** The provider's public API base (DNS_PROVIDER_API_BASES may point it elsewhere). */
  defaultBase: string
  make: (secret: string, opts: HostedFactoryOptions) => DnsProvider
  /** The page where a person creates the API credential the widget asks for (the catalogue's `token_url`). */
  token_url: string
  /** What that credential must be allowed to do (the catalogue's `token_scopes`). */
  token_scopes: string[]
  /** The credential as the person knows it, with the form to paste where it has parts ("API key and secret (key:secret)"). */
  credential: string
}
