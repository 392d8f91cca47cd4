// One error vocabulary (the API contract, section 7). Handlers throw ApiError with a stable code; each face
// (REST, MCP) has exactly one mapper to its wire form. Causes are logged, never returned. This file
// holds no transport: rules, operations and adapters all throw from it.

export const ERROR_STATUS = {
  invalid_request: 400,
  confirmation_required: 400,
  unauthorized: 401,
  quota_exceeded: 402,
  billing_required: 402,
  forbidden: 403,
  insufficient_scope: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  idempotency_key_in_use: 409,
  idempotency_key_reused: 422,
  payload_too_large: 413,
  unsupported_media_type: 415,
  confirmation_mismatch: 409,
  reauthorization_required: 409,
  account_expired: 409,
  platform_subdomain: 422,
  InvalidNameservers: 422,
  ProviderAuthenticationError: 422,
  apex_not_supported: 422,
  dns_write_failed: 422,
  domain_unresolved: 422,
  certificate_failed: 422,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
  push_not_configured: 503,
} as const

export type ErrorCode = keyof typeof ERROR_STATUS

export const ERROR_TITLES: Record<ErrorCode, string> = {
  invalid_request: 'The request is malformed or invalid',
  confirmation_required: 'A person must confirm this first',
  unauthorized: 'Missing or invalid credential',
  quota_exceeded: 'The plan quota for this month is used up',
  billing_required: 'Billing must be set up before adding this domain',
  forbidden: 'This credential may not perform this action',
  insufficient_scope: 'The token lacks a scope this action needs',
  not_found: 'Not found',
  method_not_allowed: 'Method not allowed on this path',
  conflict: 'The request conflicts with the current state',
  idempotency_key_in_use: 'A request with this Idempotency-Key is still being processed; retry after Retry-After',
  idempotency_key_reused: 'This Idempotency-Key was used with a different request',
  payload_too_large: 'The body is larger than 1 MiB',
  unsupported_media_type: 'The body must be JSON (Content-Type: application/json)',
  confirmation_mismatch: 'The confirmation names a different domain',
  reauthorization_required: 'Removing the records needs the DNS provider to be re-authorized',
  account_expired: 'This one-time provider account has expired',
  platform_subdomain: 'Subdomains of hosting platforms cannot be connected',
  InvalidNameservers: 'The domain has no usable nameserver delegation',
  ProviderAuthenticationError: 'The DNS provider rejected the credential',
  apex_not_supported: 'The DNS provider cannot point the apex of this domain at a hostname',
  dns_write_failed: 'The DNS provider refused the change',
  domain_unresolved: 'The domain is not registered or not delegated',
  certificate_failed: 'The certificate authority did not issue the certificate',
  rate_limited: 'Too many requests',
  internal_error: 'Internal error',
  service_unavailable: 'This feature is not available on this deployment',
  push_not_configured: 'Push notifications are not configured',
}

/** The title of a DNS provider's own server error (503 service_unavailable, reason provider_server_error);
 * also the 503 example of every operation that writes through a DNS provider. */
export const PROVIDER_SERVER_ERROR_TITLE = 'The DNS provider answered with a server error; try again after Retry-After'

/** One field a request got wrong (`invalid_request`). */
export interface FieldError {
  in: string
  /** Absent when the whole part is wrong. */
  field?: string
  message: string
}

/**
 * An error's `details`: the fields a request got wrong, or facts about the refusal. `reason` is always
 * a catalogue code (ERROR_REASONS below), so clients can switch on it; a provider's own words go in
 * `provider_message`, never in `reason`.
 */
export type ErrorDetails = readonly FieldError[] | ({ reason?: ErrorReason; provider_message?: string } & Record<string, unknown>)

export interface ErrorBody {
  code: string
  title: string
  details?: unknown
}

export class ApiError extends Error {
  readonly status: number
  readonly headers: Record<string, string>
  /** Extra top-level fields of the body (reauthorization_required carries `plan`). */
  readonly extra: Record<string, unknown> | undefined

  constructor(
    readonly code: ErrorCode,
    readonly title: string = ERROR_TITLES[code],
    readonly details?: ErrorDetails,
    opts: { headers?: Record<string, string>; extra?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(`${code}: ${title}`, { cause: opts.cause })
    this.status = ERROR_STATUS[code]
    this.headers = opts.headers ?? {}
    this.extra = opts.extra
  }

  body(): ErrorBody & Record<string, unknown> {
    return { code: this.code, title: this.title, ...(this.details === undefined ? {} : { details: this.details }), ...this.extra }
  }
}

export const invalid = (title: string, details?: ErrorDetails) => new ApiError('invalid_request', title, details)
export const notFound = (what = 'Not found') => new ApiError('not_found', what)
export const forbidden = (title: string) => new ApiError('forbidden', title)
export const unauthorized = (title?: string) => new ApiError('unauthorized', title)
export const unavailable = (title: string) => new ApiError('service_unavailable', title)

/**
 * Every sub-reason Portico names in `details.reason` (and in the `reason` of an event or a check
 * answer that explains a refusal), with what it means. Clients switch on these, so they are part of
 * the contract: test/unit/error-reasons.test.ts fails when code names a reason missing here.
 * A provider's, CA's or registrar's own words never go in `reason`: they have fields of their own
 * (`provider_message`, `registrar_reason`).
 */
export const ERROR_REASONS = {
  // A credential's rate limit (src/domain/rate-limits.ts; `limit` names which).
  rate_limit: 'The credential\'s requests a minute reached one of its limits',
  // Adding a domain (InvalidNameservers) and the domain check's blocked reasons.
  not_registered: 'The domain is not registered',
  not_delegated: 'The domain has no nameserver delegation',
  // Adding a domain already connected under the application.
  end_user_mismatch: 'The domain is connected under the application for another end_user_ref',
  validation_mismatch: 'The domain is connected under the application with another validation',
  dcv_delegation_taken: 'The _acme-challenge name is delegated for another workspace\'s connection (one DNS name has one delegation)',
  // Provider rails.
  unknown_provider: 'The DNS provider of the domain is not known',
  provider_unsupported: 'Portico cannot write to this DNS provider through the rail asked for',
  provider_error: 'The DNS provider could not be reached (unexpected failure)',
  provider_unreachable: 'The DNS provider could not be reached (connection refused or reset, a TLS failure, a timeout): nothing was refused; temporary, retry after Retry-After (503 service_unavailable). What a write had changed before the connection failed was put back where the provider could be reached again; `details.not_restored` names any record set that could not be',
  provider_refused: 'The DNS provider refused the change',
  provider_rate_limited: 'The DNS provider is rate limiting the credential (429 rate_limited with Retry-After, the host\'s wait or 60 s); nothing more was sent, the same request after Retry-After is expected to go through',
  dns_write_failed: 'A write the DNS provider refused midway (the monitor\'s repair on connection.reapply.failed): `not_restored` names the customer\'s record sets that are missing, with their values, and `retry_after` when the provider gave one; Portico tries again then',
  provider_temporary: 'The DNS provider says its refusal is temporary (503 service_unavailable with Retry-After); nothing was written, the same request later is expected to go through',
  provider_server_error: 'The DNS provider answered with a server error of its own (HTTP 5xx): temporary, retry after Retry-After (503 service_unavailable). Portico tried to put back what the write had changed before the refusal: `details.restored` names the record sets that were, `details.not_restored` those that could not be (with the values they held before), so a non-empty `not_restored` means the zone was left changed',
  unrepresentable_records: 'The zone holds records Portico cannot write back exactly as they are (provider-only kinds or attributes at the names it would change); nothing was written',
  listing_too_long: 'The DNS provider\'s listing did not end within the page limit; nothing was written',
  zone_not_reached: 'The credential does not reach the zone of the domain',
  zone_ambiguous: 'Several zones of the domain\'s name are reachable with the credential (another account, a stale or staging copy) and the delegation does not single one out; `zone_ids` names them, nothing was written (the connection\'s diagnosis is zone_not_reached)',
  zone_not_delegated: 'No zone of the domain\'s name reachable with the credential is the one the domain is delegated to (its name servers differ, or the host says it does not serve it); `zone_ids` names them, nothing was written (diagnosis zone_not_reached)',
  credential_refused: 'The DNS provider refused the credential or the stored grant itself (wrong, revoked or expired)',
  test_domain_required: 'A test-environment application connects reserved test domains only (docs/test-mode.md)',
  test_mode_api_rail_only: 'A test domain plays the API-credential rail only (docs/test-mode.md)',
  test_domain_in_live_mode: 'A reserved test domain is connected by a test-environment application only (docs/test-mode.md)',
  test_mode_no_certificate: 'Test mode orders a certificate for the test domain that plays its failure only (docs/test-mode.md)',
  insufficient_permission: 'The credential works but may not change these records (its scope or role at the provider)',
  plan_restricted: 'The provider account\'s plan does not allow this change',
  record_conflict: 'A record at the provider clashes with the change',
  zone_changed: 'The DNS provider refused an all-or-nothing change because the zone changed between Portico\'s read and its write, again after one fresh read (409 conflict with Retry-After); nothing was written, the same request later is expected to go through',
  // An agent's action that its person must confirm first (confirmation_required).
  person_confirmation: 'A person of the workspace must confirm this first, through the agent\'s client or at `details.confirm_url`',
  write_in_progress: 'Another write to the same records is in progress; retry after Retry-After',
  reauthorization_required: 'The stored grant no longer works; the provider must be re-authorized',
  // Signing in at a DNS provider (OAuth rail).
  oauth_not_available: 'Signing in at this provider is not available on this deployment',
  oauth_not_configured: 'The OAuth client of this provider is no longer configured',
  invalid_state: 'The sign-in state is not valid',
  state_used: 'The sign-in was already completed or is unknown',
  state_expired: 'The sign-in took too long',
  access_denied: 'The person did not grant access at the provider',
  oauth_grant_revoked: 'The provider will not renew the person\'s grant (revoked, expired or the app removed); they must sign in again',
  oauth_code_refused: 'The provider did not exchange the sign-in code for a grant',
  oauth_client_refused: 'The provider refused this deployment\'s OAuth client; the operator must fix its client id or secret',
  // Certificates.
  ca_refused: 'The certificate authority refused to issue; its words are in provider_message',
  // Domain Connect.
  custom_records: 'The one-click rail cannot write custom records',
  not_discovered: 'The domain has no _domainconnect record',
  settings_unreachable: 'The Domain Connect settings could not be read',
  sync_unsupported: 'The provider does not offer the synchronous flow',
  template_unsupported: 'The provider does not support the template',
  template_mismatch: 'The templates cannot set the connection\'s records',
  no_template: 'No loaded template sets the connection\'s records',
  not_configured: 'The rail is not configured on this deployment',
  // Availability (503 service_unavailable, with Retry-After).
  database_unavailable: 'The database cannot be reached right now',
  database_not_answering: 'The database did not answer within the bound (about five seconds); the request may be retried',
  database_read_only: 'The database refuses writes (read-only, as during a failover); reads still work',
  database_full: 'The database has no disk space left for writes; reads still work',
  database_unreachable: 'The database refuses or drops connections (readiness)',
  stopping: 'The process is stopping (a deploy): it takes no new work; send traffic to another',
  deadline_exceeded: 'The request did not finish within its deadline; nothing more will be committed for it',
  edge_unavailable: 'An edge node cannot serve the ACME challenge now; the certificate is ordered when it is back',
  // Billing.
  no_payment_method: 'The plan needs a saved card',
  past_due: 'The subscription is past due',
  canceled: 'The subscription is canceled',
  // Sell.
  no_payment: 'No payment was started for the order',
  idempotency_key_reused: 'The Idempotency-Key was used with a different request',
  expired: 'The quote or order expired',
  payment_failed: 'The card was declined',
  registration_failed: 'The registry refused the registration',
  registrar_unavailable: 'The registrar did not answer or failed; its own code is in registrar_reason',
  authorization_voided: 'The payment authorization lapsed before it could be captured',
  authorization_expiring: 'The payment authorization was about to lapse before the domain was registered',
  registration_pending: 'The registrar has not answered yet; the order is finished in the background',
  // The domain check's certificate conflicts.
  caa_forbids_ca: 'A CAA record set does not allow Portico\'s certificate authority to issue for the domain',
  acme_challenge_delegated: 'An _acme-challenge CNAME hands certificate validation for the domain to another service',
  // Pre-validation and delegated DCV.
  dcv_not_configured: 'Validation before cutover needs delegated DCV, which this deployment does not have (DCV_ZONE)',
  dns_inconclusive: 'DNS lookups gave no verdict; try again shortly',
  dcv_unavailable: 'The DCV zone\'s DNS server does not answer; the certificate order waits for it',
  dcv_delegation_missing: 'The _acme-challenge CNAME to Portico\'s DCV zone is gone: renewals cannot validate until it is back',
} as const

export type ErrorReason = keyof typeof ERROR_REASONS
