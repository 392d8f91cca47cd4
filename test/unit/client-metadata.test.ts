// Client ID metadata documents: HTTP caching within bounds, and the document checks that need no fetch.
import { describe, test, expect } from 'bun:test'
import { cacheLifetime, validateDocument, DEFAULT_TTL_MS, MAX_TTL_MS, MIN_TTL_MS } from '../../oauth/client-metadata.ts'

describe('cache lifetime', () => {
  test('max-age is honoured within bounds; no-store and no-cache keep the minimum; no header the default', () => {
    expect(cacheLifetime('public, max-age=600')).toBe(600_000)
    expect(cacheLifetime('max-age=1')).toBe(MIN_TTL_MS)
    expect(cacheLifetime('max-age=31536000')).toBe(MAX_TTL_MS)
    expect(cacheLifetime('no-store')).toBe(MIN_TTL_MS)
    expect(cacheLifetime('private, no-cache, max-age=900')).toBe(MIN_TTL_MS)
    expect(cacheLifetime(null)).toBe(DEFAULT_TTL_MS)
    expect(cacheLifetime('public')).toBe(DEFAULT_TTL_MS)
  })
})

describe('document checks', () => {
  const url = 'https://agent.example.com/oauth/client.json'
  const ok = { client_id: url, client_name: 'Example agent', redirect_uris: ['https://agent.example.com/callback'] }
  test('a valid document becomes a public client', () => {
    const r = validateDocument(url, ok)
    expect(r).toMatchObject({ ok: true, client: { client_id: url, token_endpoint_auth_method: 'none', application_type: 'web' } })
  })
  test('client_id must be the URL; no secrets; redirects checked as for registration', () => {
    expect(validateDocument(url, { ...ok, client_id: 'https://agent.example.com/other.json' }).ok).toBe(false)
    expect(validateDocument(url, { ...ok, client_secret: 's' }).ok).toBe(false)
    expect(validateDocument(url, { ...ok, token_endpoint_auth_method: 'client_secret_basic' }).ok).toBe(false)
    expect(validateDocument(url, { ...ok, redirect_uris: ['http://agent.example.com/callback'] }).ok).toBe(false)
    expect(validateDocument(url, { ...ok, redirect_uris: ['javascript:alert(1)'] }).ok).toBe(false)
    expect(validateDocument(url, [ok]).ok).toBe(false)
  })
  test('a brand name is allowed only on the brand\'s own host, whatever the redirects', () => {
    const claude = 'https://claude.ai/oauth/mcp-client.json'
    expect(validateDocument(claude, { client_id: claude, client_name: 'Claude', redirect_uris: ['http://127.0.0.1/callback'] }).ok).toBe(true)
    expect(validateDocument(url, { ...ok, client_name: 'Claude' })).toMatchObject({ ok: false, reason: expect.stringContaining('Anthropic') })
    expect(validateDocument(url, { ...ok, client_name: 'Claude', redirect_uris: ['https://claude.ai/callback'] }).ok).toBe(false)
  })
})
