// The domain check (POST /domains:check): everything a client needs to choose how to connect a
// domain, computed from real lookups. `registered` is false only on NXDOMAIN; a resolver failure
// leaves it out and says `detection_error: resolver`. Clients branch on `rails` and
// `recommended_rail`; `supports_automatic` only says an adapter exists for the provider.
import type { Dns, Lookup } from '../adapters/dns.ts'
import { valuesOf } from '../adapters/dns.ts'
import { absoluteHost, type ParsedDomain } from './hostnames.ts'
import { apexStrategy, isApexPointer, planRecords, type ConnectTarget, type DnsRecord } from './records.ts'
import { detectProvider, PROVIDERS, type Provider } from './providers.ts'
import type { Discovery } from './domain-connect/discovery.ts'
import { firstStepRecords } from './prevalidation.ts'
import { certificateConflicts, type CertificateCheckSettings, type CertificateConflict } from './certificate-check.ts'

export type Rail = 'oauth' | 'domainConnect' | 'apiKey' | 'manual'
export const RAIL_ORDER: Rail[] = ['oauth', 'domainConnect', 'apiKey', 'manual']

export interface RailState {
  available: boolean
  reason?: string
  caveat?: string
}

export interface Conflict {
  /** `routing`: a record where a desired one goes; certificate conflicts are CertificateConflict. */
  kind: 'routing'
  type: string
  host: string
  value: string
  /** The desired record it stands in the way of. */
  desired: { type: string; host: string; value: string }
  action: 'replace' | 'remove'
}

export interface CheckAdapters {
  /** Provider ids Portico can write to with an API credential. */
  apiKey: ReadonlySet<string>
  /** Provider ids with a configured OAuth client. */
  oauth: ReadonlySet<string>
  /** Domain Connect: reads the provider settings behind a `_domainconnect` record (absent: the record alone decides). */
  domainConnect?: (apex: string, host: string) => Promise<Discovery | null>
}

/**
 * What already published stands in the way of the desired records: at a CNAME host every other
 * record (a CNAME cannot share its name), at an address host other A values (replaced) and AAAA
 * values (they would send IPv6 clients elsewhere).
 */
export async function conflictsFor(dns: Dns, apex: string, desired: DnsRecord[]): Promise<{ conflicts: Conflict[]; error?: string }> {
  let error: string | undefined
  const look = async (name: string, type: 'A' | 'AAAA' | 'CNAME' | 'MX' | 'TXT'): Promise<string[]> => {
    const l: Lookup = await dns.lookup(name, type)
    if (l.status === 'error') error = l.error
    // An address answer reached through a CNAME belongs to the CNAME's target, not to this name.
    if (l.status === 'ok' && l.cname && type !== 'CNAME') return []
    return valuesOf(l)
  }
  const routing = desired.filter((d) => d.type === 'CNAME' || d.type === 'A' || isApexPointer(d))
  const hosts = [...new Set(routing.map((d) => d.host))]
  const perHost = await Promise.all(
    hosts.map(async (host): Promise<Conflict[]> => {
      const mine = routing.filter((d) => d.host === host)
      const first = mine[0]!
      const want = { type: first.type, host, value: first.value }
      const name = absoluteHost(host, apex)
      const found = (type: string, values: string[], action: Conflict['action'], keep: (v: string) => boolean = () => false) =>
        values.filter((v) => !keep(v)).map((value) => ({ kind: 'routing' as const, type, host, value, desired: want, action }))
      if (first.type === 'CNAME' && host !== '@') {
        const [cname, a, aaaa, mx, txt] = await Promise.all([look(name, 'CNAME'), look(name, 'A'), look(name, 'AAAA'), look(name, 'MX'), look(name, 'TXT')])
        return [
          ...found('CNAME', cname, 'replace', (v) => v === first.value.toLowerCase()),
          ...found('A', a, 'remove'),
          ...found('AAAA', aaaa, 'remove'),
          ...found('MX', mx, 'remove'),
          ...found('TXT', txt, 'remove'),
        ]
      }
      const wanted = new Set(mine.filter((d) => d.type === 'A').map((d) => d.value))
      const [a, aaaa] = await Promise.all([look(name, 'A'), look(name, 'AAAA')])
      return [...found('A', a, 'replace', (v) => wanted.has(v)), ...found('AAAA', aaaa, 'remove')]
    }),
  )
  return { conflicts: perHost.flat(), error }
}

/** What the provider's settings advertise decides the rail: sync needs urlSyncUX, async urlAsyncUX, urlAPI and a client. */
function dcRail(p: Provider | null, dcHost: string | null, dc: Discovery | null | undefined): RailState {
  if (!dcHost) return { available: false, reason: p?.capabilities.domain_connect?.sync ? 'not_discovered' : p ? 'provider_unsupported' : 'unknown_provider' }
  if (dc === undefined) return { available: true, ...(p?.capabilities.domain_connect?.async ? {} : { caveat: 'redirect_only' }) }
  if (!dc || !dc.settings) return { available: false, reason: 'settings_unreachable' }
  if (!dc.sync && !dc.async) return { available: false, reason: 'provider_unsupported' }
  return { available: true, ...(dc.async ? (dc.sync ? {} : { caveat: 'managed_only' }) : { caveat: 'redirect_only' }) }
}

function rails(p: Provider | null, parsed: ParsedDomain, adapters: CheckAdapters, dcHost: string | null, blocked: string | null, dc?: Discovery | null): Record<Rail, RailState> {
  if (blocked) {
    const off = { available: false, reason: blocked }
    return { oauth: off, domainConnect: off, apiKey: off, manual: { ...off } }
  }
  const unknown = { available: false, reason: 'unknown_provider' }
  const oauth: RailState = !p
    ? unknown
    : !p.capabilities.oauth
      ? { available: false, reason: 'provider_unsupported' }
      : adapters.oauth.has(p.id)
        ? { available: true }
        : { available: false, reason: 'not_configured' }
  const domainConnect = dcRail(p, dcHost, dc)
  const apiKey: RailState = !p ? unknown : adapters.apiKey.has(p.id) ? { available: true, caveat: 'needs_provider_api_credential' } : { available: false, reason: 'provider_unsupported' }
  const manual: RailState = { available: true, ...(parsed.isApex && p && !p.capabilities.apex ? { caveat: 'apex_uses_a_records' } : {}) }
  return { oauth, domainConnect, apiKey, manual }
}

export interface CheckOptions {
  wwwRedirect?: boolean
  /** Portico's certificate authority: when set, what stands in the way of HTTPS is reported too. */
  certificates?: CertificateCheckSettings | null
  /** `before_cutover`: the check answers pre-validation's two steps (`dcvZone` null: not offered on this deployment). */
  validation?: { mode: 'before_cutover'; dcvZone: string | null }
}

/**
 * Providers whose zones are served from the detected provider's nameservers too (NS1's fleet serves
 * Netlify DNS on every shard; Route 53's `awsdns` servers serve Amazon Lightsail's zones): nameservers
 * cannot tell them apart, so the check names every one of them rather than claim the fleet's owner.
 */
export function sharingNameservers(p: Provider | null): Provider[] {
  return p ? [p, ...PROVIDERS.filter((x) => x.shares_nameservers_with === p.id)] : []
}

/** Who serves the domain: its nameservers (and so its provider) and its `_domainconnect` record. */
interface Delegation {
  /** Absent when the resolver failed. */
  registered?: boolean
  detectionError?: string
  nameservers: string[]
  blocked: string | null
  provider: Provider | null
  dcHost: string | null
  /** The provider's Domain Connect settings, read while the conflicts are looked up. */
  dcPending?: Promise<Discovery | null>
}

/** A platform's own subdomain is not looked up: it is blocked, and registered by definition. */
async function delegation(dns: Dns, parsed: ParsedDomain, adapters: CheckAdapters): Promise<Delegation> {
  if (parsed.platform) return { registered: true, nameservers: [], blocked: 'platform_subdomain', provider: null, dcHost: null }
  const [ns, dcTxt] = await Promise.all([dns.lookup(parsed.apex, 'NS'), dns.lookup(`_domainconnect.${parsed.apex}`, 'TXT')])
  let registered: boolean | undefined
  let detectionError: string | undefined
  let nameservers: string[] = []
  let blocked: string | null = null
  if (ns.status === 'error') detectionError = 'resolver'
  else if (ns.status === 'nxdomain') {
    registered = false
    blocked = 'not_registered'
  } else {
    registered = true
    nameservers = valuesOf(ns).sort()
    if (nameservers.length === 0) blocked = 'not_delegated'
  }
  const provider = detectProvider(nameservers)
  const dcHost = valuesOf(dcTxt)[0] ?? null
  const dcPending =
    dcHost && !blocked && adapters.domainConnect
      ? adapters.domainConnect(parsed.apex, dcHost).catch((err: unknown) => ({ host: dcHost, settings: null, error: String(err), sync: false, async: false }))
      : undefined
  return { registered, detectionError, nameservers, blocked, provider, dcHost, dcPending }
}

/** What stands in the way of the routing records and, when Portico issues certificates, of HTTPS. */
async function conflictsInTheWay(dns: Dns, parsed: ParsedDomain, desired: DnsRecord[], opts: CheckOptions): Promise<{ conflicts: (Conflict | CertificateConflict)[]; error?: string }> {
  const dcvZone = opts.validation?.dcvZone
  const routing = desired.filter((d) => d.purpose?.startsWith('routing') || d.purpose === 'www_redirect')
  const names = [...new Set(routing.map((d) => absoluteHost(d.host, parsed.apex)))]
  const cnamed = new Set(routing.filter((d) => d.type === 'CNAME').map((d) => absoluteHost(d.host, parsed.apex)))
  const routeOf = (name: string) => {
    const d = routing.find((r) => absoluteHost(r.host, parsed.apex) === name) ?? routing[0]!
    return { type: d.type, host: d.host, value: d.value }
  }
  const [c, cert] = await Promise.all([
    conflictsFor(dns, parsed.apex, desired),
    opts.certificates && names.length
      ? certificateConflicts(dns, parsed.apex, names, cnamed, routeOf, dcvZone ? { ...opts.certificates, challenge: 'dns-01', ownDcvZone: dcvZone } : opts.certificates)
      : { conflicts: [] },
  ])
  return { conflicts: [...c.conflicts, ...cert.conflicts], error: c.error }
}

export async function checkDomain(dns: Dns, parsed: ParsedDomain, target: ConnectTarget, adapters: CheckAdapters, opts: CheckOptions = {}) {
  const base = { domain: parsed.domain, apex_domain: parsed.apex, subdomain: parsed.subdomain, is_apex: parsed.isApex }
  const { registered, nameservers, provider, dcHost, dcPending, ...found } = await delegation(dns, parsed, adapters)
  let { blocked, detectionError } = found
  let conflicts: (Conflict | CertificateConflict)[] = []

  const apex = provider?.capabilities.apex ?? null
  const strategy = apexStrategy(parsed, target, apex)
  if (!blocked && strategy === 'unsupported') blocked = 'apex_not_supported'
  const desired = strategy === 'unsupported' ? [] : planRecords(parsed, target, apex, opts.wwwRedirect ?? false, 'preview')
  // Before cutover: the first step's records come first (the DCV label, like the token, is issued at connect).
  const dcvZone = opts.validation?.dcvZone
  const first = dcvZone && desired.length ? firstStepRecords(parsed, 'preview', '<label issued at connect>', dcvZone, opts.wwwRedirect ?? false) : null
  if (!blocked && !detectionError) {
    const c = await conflictsInTheWay(dns, parsed, desired, opts)
    conflicts = c.conflicts
    if (c.error) detectionError = 'resolver'
  }
  const dc = await dcPending
  const r = rails(provider, parsed, adapters, dcHost, blocked, dc)
  const recommended = RAIL_ORDER.find((k) => r[k].available) ?? null
  const candidates = sharingNameservers(provider)
  return {
    ...base,
    provider: provider?.id ?? null,
    provider_name: candidates.length > 1 ? candidates.map((c) => c.name).join(' or ') : (provider?.name ?? null),
    // Every provider these nameservers may belong to (one unless they serve several); `api_credential`
    // says whether the domain's API rail takes that provider's credential: a provider that shares the
    // fleet and has an adapter of its own is reached through the fleet's rail (NS1's takes a Netlify
    // token); one without (Amazon Lightsail beside Route 53) is not.
    provider_candidates: candidates.map((c) => ({
      provider: c.id,
      provider_name: c.name,
      dashboard_url: c.dashboard_url,
      token_url: c.token_url,
      token_scopes: c.token_scopes,
      credential: c.credential,
      api_credential: provider !== null && adapters.apiKey.has(provider.id) && (c.id === provider.id || c.built.api_credential),
    })),
    setup_type: recommended === null ? null : recommended === 'manual' ? 'manual' : 'automatic',
    supports_automatic: provider ? adapters.apiKey.has(provider.id) || adapters.oauth.has(provider.id) : false,
    oauth_available: r.oauth.available,
    domain_connect_available: r.domainConnect.available,
    domain_connect_provider: dcHost,
    domain_connect: dc?.settings
      ? { provider_id: dc.settings.providerId, provider_name: dc.settings.providerDisplayName ?? dc.settings.providerName, sync: dc.sync, async: dc.async }
      : null,
    ...(registered === undefined ? {} : { registered }),
    ...(detectionError ? { detection_error: detectionError } : {}),
    nameserver_supported: provider?.capabilities.subdomain_delegation ?? false,
    wildcard_supported: provider?.capabilities.wildcard ?? false,
    cname_flattening: apex === 'flattening',
    spf_override_supported: provider?.capabilities.spf_override ?? false,
    caa_supported: provider?.capabilities.caa ?? false,
    social_login_supported: r.oauth.available,
    conflicts,
    apex_strategy: strategy,
    rails: r,
    recommended_rail: recommended,
    end_user_automatic: r.oauth.available || r.domainConnect.available,
    blocked_reason: blocked,
    dashboard_url: provider?.dashboard_url ?? null,
    nameservers,
    desired_records: preview(first ?? desired),
    ...(opts.validation ? { validation: validationAnswer(opts.validation.dcvZone, first, preview(desired)) } : {}),
  }
}

const preview = (records: DnsRecord[]) => records.map((d) => (d.purpose === 'ownership' ? { ...d, value: 'portico-verify=<token issued at connect>' } : d))

/** Pre-validation as the check answers it: available or why not, and the two steps in order. */
function validationAnswer(dcvZone: string | null, first: DnsRecord[] | null, routing: DnsRecord[]) {
  if (!dcvZone || !first) return { mode: 'before_cutover' as const, available: false, reason: 'dcv_not_configured' as const, steps: [] }
  return { mode: 'before_cutover' as const, available: true, steps: [{ step: 'prove' as const, records: preview(first) }, { step: 'route' as const, records: routing }] }
}
