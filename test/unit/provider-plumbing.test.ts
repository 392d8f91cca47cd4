// The shared plumbing every DNS-provider adapter goes through: the paging helper that ends every
// listing (a short, empty or repeated page, the provider's own signal, or a hard cap with a typed
// error), the wait a provider signals for a rate limit, and a multi-part credential in the forms the
// providers and their tools issue it.
import { describe, test, expect } from 'bun:test'
import { paginate, MAX_PAGES } from '../../src/adapters/dns-providers/paging.ts'
import { retryAfterOf } from '../../src/adapters/dns-providers/http.ts'
import { credentialParts } from '../../src/adapters/dns-providers/credentials.ts'
import { ProviderError } from '../../src/adapters/dns-providers/types.ts'

const opts = { provider: 'Test', what: 'zones' }

describe('paginate', () => {
  test('a short page ends a listing without another signal; an empty one too', async () => {
    const data = Array.from({ length: 7 }, (_, i) => i)
    let calls = 0
    const all = await paginate<number>({ ...opts, pageSize: 3 }, async ({ offset }) => (calls++, { items: data.slice(offset, offset + 3) }))
    expect(all).toEqual(data)
    expect(calls).toBe(3)
    calls = 0
    expect(await paginate<number>({ ...opts, pageSize: 3 }, async ({ offset }) => (calls++, { items: data.slice(offset, offset + 3).concat(offset === 6 ? [] : []) }))).toEqual(data)
  })

  test('a server that ignores the paging parameters (the same page again) ends it, once', async () => {
    let calls = 0
    const all = await paginate<string>({ ...opts, pageSize: 2 }, async () => (calls++, { items: ['a', 'b'] }))
    expect(all).toEqual(['a', 'b'])
    expect(calls).toBe(2)
  })

  test('the provider\'s own signal wins over the page length', async () => {
    const all = await paginate<number>({ ...opts, pageSize: 100 }, async ({ index }) => ({ items: [index], more: index < 4 }))
    expect(all).toEqual([1, 2, 3, 4])
  })

  test('a listing that never ends stops at the cap with a typed error', async () => {
    let calls = 0
    const e = await paginate<number>({ ...opts, maxPages: 50 }, async ({ index }) => (calls++, { items: [index], more: true })).catch((x) => x)
    expect(e).toBeInstanceOf(ProviderError)
    expect(e.kind).toBe('too_many_pages')
    expect(calls).toBe(50)
    expect(MAX_PAGES).toBeGreaterThanOrEqual(100)
  })
})

describe('retryAfterOf', () => {
  test('Retry-After in seconds or as a date; RateLimit-Reset as a delay or a Unix time', () => {
    const now = Date.parse('2026-01-01T00:00:00Z')
    expect(retryAfterOf(new Headers({ 'retry-after': '7' }), now)).toBe(7)
    expect(retryAfterOf(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:09 GMT' }), now)).toBe(9)
    expect(retryAfterOf(new Headers({ 'ratelimit-reset': '4' }), now)).toBe(4)
    expect(retryAfterOf(new Headers({ 'x-ratelimit-reset': String(now / 1000 + 12) }), now)).toBe(12)
    expect(retryAfterOf(new Headers({}), now)).toBeUndefined()
  })
})

describe('credentialParts', () => {
  const fields = [
    { name: 'key', aliases: ['api_key', 'AccessKeyId', 'Access key ID', 'AWS_ACCESS_KEY_ID'] },
    { name: 'secret', aliases: ['api_secret', 'SecretAccessKey', 'Secret access key', 'AWS_SECRET_ACCESS_KEY'] },
  ]
  test('joined, JSON, NAME=value lines, the AWS CSV, two lines', () => {
    for (const form of [
      'K1:S/1+x',
      '{"key": "K1", "secret": "S/1+x"}',
      '{"AccessKey": {"AccessKeyId": "K1", "SecretAccessKey": "S/1+x"}}',
      'AWS_ACCESS_KEY_ID=K1\nAWS_SECRET_ACCESS_KEY=S/1+x',
      'export api_key="K1"\nexport api_secret="S/1+x"',
      'Access key ID,Secret access key\nK1,S/1+x',
      'K1\nS/1+x',
      'K1 S/1+x',
    ]) {
      expect({ form, parts: credentialParts(form, fields) }).toEqual({ form, parts: ['K1', 'S/1+x'] })
    }
  })
  test('a secret holding the separator keeps it; a missing optional part is empty', () => {
    expect(credentialParts('K:a:b', fields)).toEqual(['K', 'a:b'])
    expect(credentialParts('u:k', [...fields, { name: 'ip', aliases: [], optional: true }])).toEqual(['u', 'k', ''])
    expect(credentialParts('sso-key K:S', fields, { strip: /^sso-key\s+/i })).toEqual(['K', 'S'])
  })
})
