// One error vocabulary (CONTRACT.md section 7). Handlers throw ApiError with a stable code; each face
// (REST, MCP) has exactly one mapper to its wire form. Causes are logged, never returned.

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
  confirmation_required: 'This removal must be confirmed by naming the domain',
  unauthorized: 'Missing or invalid credential',
  quota_exceeded: 'The plan quota for this month is used up',
  billing_required: 'Billing must be set up before adding this domain',
  forbidden: 'This credential may not perform this action',
  insufficient_scope: 'The token lacks a scope this action needs',
  not_found: 'Not found',
  method_not_allowed: 'Method not allowed on this path',
  conflict: 'The request conflicts with the current state',
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
    readonly details?: unknown,
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

export const invalid = (title: string, details?: unknown) => new ApiError('invalid_request', title, details)
export const notFound = (what = 'Not found') => new ApiError('not_found', what)
export const forbidden = (title: string) => new ApiError('forbidden', title)
export const unauthorized = (title?: string) => new ApiError('unauthorized', title)
export const unavailable = (title: string) => new ApiError('service_unavailable', title)
