// Test mode: what a test-environment application (`ptc_test_` keys) connects. Such an application
// connects only reserved test domains, `<anything>.<scenario>.sandbox.example` or
// `<scenario>.sandbox.example` (`.example` is reserved by RFC 2606 §3, so no such name exists in
// public DNS and no customer's DNS host can be behind it), and a live application connects none.
// Each scenario plays one state or one diagnosis on demand through the real lifecycle: the scenario
// stands in for what DNS, the DNS provider and the certificate authority would answer, and
// everything after that (the lifecycle table, the events, the webhooks) is what a live connection
// goes through. Invariants:
// - nothing about a test domain leaves Portico: no DNS lookup, no provider call, no ACME order;
// - every event of a test domain's connection carries `test_mode: true`.
// The table is docs/test-mode.md; test/integration/test-mode.test.ts drives every row.
import { ApiError } from '../errors.ts'
import type { DnsProvider, Zone } from '../adapters/dns-providers/types.ts'
import { ProviderError } from '../adapters/dns-providers/types.ts'
import type { CertificateIssuer } from '../adapters/acme.ts'
import { absoluteHost, type ParsedDomain } from './hostnames.ts'
import type { Dns } from '../adapters/dns.ts'
import { eventsAlong } from './transitions.ts'

/** The reserved parent of every test domain. */
export const TEST_DOMAIN_SUFFIX = 'sandbox.example'
/** How long `delayed` takes to go live after its connection was created (on Portico's clock). */
export const TEST_DELAY_MS = 60_000
/**
 * The lifecycle's long waits as the scenarios that play them take them, on Portico's clock, so an
 * integrator's own tests reach those rows: `propagation-timeout`'s 24 hours are played as two minutes
 * (from apply or `:recheck`), `setup-incomplete`'s three days as three minutes (from creation).
 */
export const TEST_PROPAGATION_TIMEOUT_MS = 2 * 60_000
export const TEST_SETUP_INCOMPLETE_MS = 3 * 60_000
/** The provider id a test domain's rail writes are recorded under. */
export const TEST_PROVIDER = 'sandbox'

export interface Scenario {
  /** What the scenario plays, as docs/test-mode.md says it. */
  plays: string
  /** The connection's status it ends in, and its diagnosis (`error_code`), when it has one. */
  ends: { status: 'pending' | 'propagating' | 'live' | 'failed' | 'refused'; error_code?: string }
  /** The events it emits, in order, on the way there. */
  events: readonly string[]
  /** The events when it is driven by `:recheck` instead of an apply, where they differ (no rail wrote: no `connection.applied`). */
  eventsByRecheck?: readonly string[]
  /** How to get there. */
  how: string
}

export const SCENARIOS = {
  live: {
    plays: 'The records resolve at the first check: live at once',
    ends: { status: 'live' },
    events: eventsAlong('created', 'records_resolved'),
    how: 'Create the connection; the first verification (due at once) finds every record.',
  },
  delayed: {
    plays: 'The records appear one minute after the connection was created: live after a delay',
    ends: { status: 'live' },
    events: eventsAlong('created', 'records_resolved'),
    how: 'Create the connection; checks in the first minute find nothing, the first check after it finds every record.',
  },
  'propagation-timeout': {
    plays: 'The records were written but never resolve: failed after 24 hours, played as two minutes',
    ends: { status: 'failed', error_code: 'propagation_timeout' },
    events: eventsAlong('created', 'records_written', 'timed_out'),
    eventsByRecheck: eventsAlong('created', 'said_added', 'timed_out'),
    how: 'Apply with any credential (`POST /connections/{id}/apply`) or say the records are in place (`:recheck`); two minutes later (a real connection: 24 hours) the connection fails.',
  },
  'setup-incomplete': {
    plays: 'Nobody adds the records: pending, diagnosed after three days, played as three minutes',
    ends: { status: 'pending', error_code: 'setup_incomplete' },
    events: eventsAlong('created'),
    how: 'Create the connection and leave it; three minutes later (a real connection: three days) its diagnosis is `setup_incomplete` (it stays pending and never fails).',
  },
  'credential-refused': {
    plays: 'The DNS provider refuses the credential',
    ends: { status: 'pending', error_code: 'ProviderAuthenticationError' },
    events: eventsAlong('created'),
    how: 'Apply with any credential: 422 `ProviderAuthenticationError` (`details.reason: credential_refused`), recorded as the diagnosis.',
  },
  'zone-not-reached': {
    plays: 'The credential works but does not reach the domain\'s zone',
    ends: { status: 'pending', error_code: 'zone_not_reached' },
    events: eventsAlong('created'),
    how: 'Apply with any credential: 422 `dns_write_failed` (`details.reason: zone_not_reached`), recorded as the diagnosis.',
  },
  'access-denied': {
    plays: 'The person declines at the DNS provider',
    ends: { status: 'pending', error_code: 'access_denied' },
    events: eventsAlong('created'),
    how: 'Apply with any credential: 400 `invalid_request` (`details.reason: access_denied`), as the sign-in callback answers a refusal, recorded as the diagnosis.',
  },
  'platform-subdomain': {
    plays: 'A subdomain of a hosting platform',
    ends: { status: 'refused', error_code: 'platform_subdomain' },
    events: [],
    how: 'Create the connection: 422 `platform_subdomain`, and no connection is made.',
  },
  'certificate-failed': {
    plays: 'The domain goes live but the certificate authority refuses its certificate',
    ends: { status: 'live' },
    events: [...eventsAlong('created', 'records_resolved'), 'secure_status', 'secure_status'],
    how: 'Create the connection; once live, its certificate order (`POST /connections/{id}/ssl:issue`, or the issuer\'s own run) fails: `secure_status` `pending`, then `failed`.',
  },
} satisfies Record<string, Scenario>

export type ScenarioName = keyof typeof SCENARIOS
export const SCENARIO_NAMES = Object.keys(SCENARIOS) as ScenarioName[]

/** True for a name under the reserved test parent (whether or not its scenario exists). */
export const isTestDomain = (domain: string): boolean => domain === TEST_DOMAIN_SUFFIX || domain.endsWith(`.${TEST_DOMAIN_SUFFIX}`)

/** The scenario a test domain plays: the label just left of `sandbox.example`; null for any other name. */
export function scenarioOf(domain: string): ScenarioName | null {
  if (!isTestDomain(domain)) return null
  const label = domain.slice(0, -(TEST_DOMAIN_SUFFIX.length + 1)).split('.').pop() ?? ''
  return Object.hasOwn(SCENARIOS, label) ? (label as ScenarioName) : null
}

/**
 * A test application connects test domains only, a live one none: refused with 400 before any
 * lookup, so a test key can never reach a customer's DNS host.
 */
export function assertFitsEnvironment(environment: string, parsed: ParsedDomain): void {
  const test = isTestDomain(parsed.domain)
  if (environment === 'test' && !test) {
    throw new ApiError('invalid_request', `A test application connects reserved test domains only (<scenario>.${TEST_DOMAIN_SUFFIX}); see docs/test-mode.md`, { reason: 'test_domain_required', domain: parsed.domain })
  }
  if (environment !== 'test' && test) {
    throw new ApiError('invalid_request', `${parsed.domain} is a reserved test domain: connect it with a test application (ptc_test_ key)`, { reason: 'test_domain_in_live_mode', domain: parsed.domain })
  }
}

/** The rails with a person at a provider (OAuth, one-click) have no provider to send anyone to for a test domain. */
export function assertApiRailOnly(domain: string): void {
  if (isTestDomain(domain)) {
    throw new ApiError('invalid_request', `${domain} is a test domain: test mode plays the API-credential rail (POST /connections/{id}/apply with any credential); see docs/test-mode.md`, { reason: 'test_mode_api_rail_only' })
  }
}

/** What a test domain's DNS would say of it at creation: its nameservers, or the refusal its scenario plays. */
export function testInspection(parsed: ParsedDomain): { provider: null; nameservers: string[] } {
  const scenario = scenarioOf(parsed.domain)
  if (!scenario) {
    throw new ApiError('InvalidNameservers', `${parsed.domain} plays no test scenario; the scenarios are ${SCENARIO_NAMES.map((s) => `${s}.${TEST_DOMAIN_SUFFIX}`).join(', ')}`, { reason: 'not_registered', registered: false })
  }
  if (scenario === 'platform-subdomain') {
    throw new ApiError('platform_subdomain', `${parsed.domain} is a subdomain of a hosting platform (test mode); connect a domain you own`)
  }
  return { provider: null, nameservers: [`ns1.${TEST_DOMAIN_SUFFIX}`, `ns2.${TEST_DOMAIN_SUFFIX}`] }
}

/** DNS as a test domain's checks see it (the widget's domain check): the parent's nameservers, nothing else; nothing is asked of any server. */
export const TEST_DNS: Dns = {
  async lookup(name, type) {
    if (type === 'NS' && name === TEST_DOMAIN_SUFFIX) return { status: 'ok', values: [`ns1.${TEST_DOMAIN_SUFFIX}`, `ns2.${TEST_DOMAIN_SUFFIX}`], via: 'authoritative' }
    return { status: 'nodata', via: 'authoritative' }
  },
}

/**
 * DNS as a test domain's zone answers once its records are in place: exactly `records`, nothing else
 * (the monitor finds a live test domain in sync); nothing is asked of any server.
 */
export function testZoneDns(apex: string, records: readonly { type: string; host: string; value: string; priority?: number | null }[]): Dns {
  return {
    async lookup(name, type) {
      const values = records
        .filter((r) => absoluteHost(r.host, apex) === name && (r.type === type || (r.type === 'SPFM' && type === 'TXT')))
        .map((r) => (r.type === 'MX' ? `${r.priority ?? 10} ${r.value}` : r.value))
      return values.length ? { status: 'ok', values, via: 'authoritative' } : { status: 'nodata', via: 'authoritative' }
    },
  }
}

/** Whether a test domain's records resolve at `now` (its connection created at `createdAt`). */
export function testRecordsResolve(domain: string, createdAt: Date, now: Date): boolean {
  const scenario = scenarioOf(domain)
  return scenario === 'live' || scenario === 'certificate-failed' || (scenario === 'delayed' && now.getTime() - createdAt.getTime() >= TEST_DELAY_MS)
}

/**
 * The DNS provider a test domain's rail writes to: it stores nothing and reaches no one. Its scenario
 * decides what it answers: a refused credential, a zone out of reach, or a write that takes.
 */
export function testDnsProvider(domain: string): DnsProvider {
  const scenario = scenarioOf(domain)
  const zone: Zone = { id: TEST_DOMAIN_SUFFIX, name: TEST_DOMAIN_SUFFIX }
  const said = 'test mode: nothing leaves Portico'
  return {
    id: TEST_PROVIDER,
    conventions: { apex: null, names: said, hostnames: said, txt: said, ttl: said, temporary: said, sources: { apex: said, names: said, hostnames: said, txt: said, ttl: said, temporary: said } },
    async listZones() {
      if (scenario === 'credential-refused') throw new ProviderError('auth', `The test provider refuses every credential for ${domain}`)
      if (scenario === 'access-denied') throw new ApiError('invalid_request', 'The sign-in at the DNS provider was refused or cancelled', { reason: 'access_denied', provider_message: 'access_denied (test mode)' })
      return scenario === 'zone-not-reached' ? [] : [zone]
    },
    async readRecords() {
      return []
    },
    async writeChanges() {},
  }
}

/** The certificate authority of a test domain: `certificate-failed` is refused; no other test domain is ordered one. */
export function testIssuer(domain: string): CertificateIssuer {
  return {
    async issue() {
      throw new Error(scenarioOf(domain) === 'certificate-failed' ? `The test certificate authority refuses ${domain}` : `Test mode orders no certificate for ${domain}`)
    },
  }
}

/** Whether the issuer's own run orders a certificate for this connection (test domains: only the one that plays its failure). */
export const ordersCertificate = (domain: string): boolean => !isTestDomain(domain) || scenarioOf(domain) === 'certificate-failed'

/**
 * The lifecycle's long waits (src/domain/lifecycle.ts LifecycleLimits) a connection to `domain` plays
 * short: the scenarios that play them; nothing for any other domain.
 */
export function playedWaits(domain: string): { propagationTimeoutMs?: number; lateDnsAfterMs?: number } {
  const scenario = scenarioOf(domain)
  if (scenario === 'propagation-timeout') return { propagationTimeoutMs: TEST_PROPAGATION_TIMEOUT_MS }
  if (scenario === 'setup-incomplete') return { lateDnsAfterMs: TEST_SETUP_INCOMPLETE_MS }
  return {}
}
