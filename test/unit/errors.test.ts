// The error vocabulary as clients and operators meet it: `details.reason` is always a catalogue code,
// the provider's own words travel in `details.provider_message`, and the cause behind a refusal is
// logged with the request id and never answered.
import { afterEach, describe, expect, spyOn, test } from 'bun:test'
import { ProviderError, type ProviderErrorKind } from '../../src/adapters/dns-providers/types.ts'
import { providerFailure } from '../../src/domain/provider-accounts.ts'
import { ApiError, ERROR_REASONS } from '../../src/errors.ts'
import { toApiError } from '../../src/http/app.ts'
import { log } from '../../src/logger.ts'

// Every kind an adapter can throw: a new kind fails to compile here until it is listed, and then
// must map to a catalogue reason below.
const KINDS: Record<ProviderErrorKind, true> = {
  auth: true,
  temporary: true,
  permission: true,
  plan_restricted: true,
  rate_limited: true,
  zone_not_found: true,
  conflict: true,
  write_failed: true,
  unreachable: true,
  unrepresentable: true,
  too_many_pages: true,
  zone_ambiguous: true,
  zone_not_delegated: true,
  zone_changed: true,
}

describe('a provider failure as the contract error', () => {
  for (const kind of Object.keys(KINDS) as ProviderErrorKind[]) {
    test(`${kind}: a catalogue reason, and the provider's words in their own field`, () => {
      const words = `the provider said no (${kind})`
      const e = providerFailure(new ProviderError(kind, words, 400, 5), 'cloudflare', 'shop.example.com')
      const d = e.details as { reason?: string; provider_message?: string }
      if (kind === 'rate_limited') expect(e.code).toBe('rate_limited')
      expect(Object.keys(ERROR_REASONS)).toContain(d.reason!)
      if (d.provider_message !== undefined) expect(d.provider_message).toBe(words)
    })
  }

  test('a refusal the host calls temporary is a 503 with its wait as Retry-After, never a permanent refusal', () => {
    const e = providerFailure(new ProviderError('temporary', 'Dynadot is temporarily unable to answer (problem with connection to main server)', 200, 120), 'dynadot')
    expect(e.status).toBe(503)
    expect(e.headers['retry-after']).toBe('120')
    expect(e.body()).toMatchObject({ code: 'service_unavailable', details: { provider: 'dynadot', reason: 'provider_temporary' } })
  })

  test('a host\'s rate limit names its reason like every other refusal (issue 46: Vercel, bunny, GoDaddy answered none)', () => {
    const e = providerFailure(new ProviderError('rate_limited', 'Vercel rate limit (Rate limit exceeded)', 429, 30), 'vercel')
    expect(e.status).toBe(429)
    expect(e.headers['retry-after']).toBe('30')
    expect(e.body()).toMatchObject({ code: 'rate_limited', details: { provider: 'vercel', reason: 'provider_rate_limited', provider_message: 'Vercel rate limit (Rate limit exceeded)' } })
  })

  test('a host\'s Retry-After of 0 (or an HTTP date already past) is passed on as a wait of a few seconds, never 0', () => {
    for (const [kind, status] of [['temporary', 500], ['temporary', 200], ['rate_limited', 429]] as const) {
      const e = providerFailure(new ProviderError(kind, 'try again', status, 0), 'digitalocean')
      expect({ kind, status, wait: Number(e.headers['retry-after']) >= 1 }).toEqual({ kind, status, wait: true })
    }
  })

  test('a host that cannot be reached is temporary (503 with Retry-After), not a refusal', () => {
    const e = providerFailure(new ProviderError('unreachable', 'the provider API could not be reached (connection refused)'), 'digitalocean')
    expect(e.status).toBe(503)
    expect(Number(e.headers['retry-after'])).toBeGreaterThan(0)
    expect(e.body()).toMatchObject({ code: 'service_unavailable', title: expect.stringContaining('could not be reached'), details: { reason: 'provider_unreachable' } })
  })

  test('a refused key says credential_refused and carries the provider\'s sentence apart', () => {
    const e = providerFailure(new ProviderError('auth', 'Invalid API Token'), 'cloudflare')
    expect(e.body()).toEqual({ code: 'ProviderAuthenticationError', title: 'The DNS provider rejected the credential', details: { provider: 'cloudflare', reason: 'credential_refused', provider_message: 'Invalid API Token' } })
  })
})

describe('causes go to the log, never to the answer', () => {
  const warn = spyOn(log, 'warn')
  afterEach(() => warn.mockClear())

  test('an adapter bug behind a 422 is logged with the request id', () => {
    const bug = new TypeError("Cannot read properties of undefined (reading 'records')")
    const e = toApiError(providerFailure(bug, 'hetzner'), 'req_42', 'connections.apply')
    expect(e.status).toBe(422)
    expect(JSON.stringify(e.body())).not.toContain('Cannot read')
    expect(warn).toHaveBeenCalledTimes(1)
    const [msg, fields] = warn.mock.calls[0]!
    expect(msg).toBe('error cause')
    expect(fields).toMatchObject({ request_id: 'req_42', op: 'connections.apply', code: 'dns_write_failed', error: "TypeError: Cannot read properties of undefined (reading 'records')" })
  })

  test('a refusal without a cause logs nothing extra', () => {
    toApiError(new ApiError('not_found'), 'req_43')
    expect(warn).not.toHaveBeenCalled()
  })
})
