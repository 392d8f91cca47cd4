// The three provider cases left open by the last turn, as the hosts answer them:
// - Cloudflare answers 403 {10000 "Authentication error"} both to a token it refuses and to a valid token
//   without the DNS:Edit permission (cloudflare/terraform-provider-cloudflare#913, #1533): the token's own
//   verify endpoint tells them apart, so a valid token is a missing permission, not a credential to reconnect.
// - Cloudflare's 7003 "Could not route to /zones/…" is a zone the token does not reach.
// - A Google Cloud service-account key file as Google issues it (a 2048-bit RSA key: about 2.3 KB) is a
//   credential the API takes.
import { describe, test, expect, afterAll } from 'bun:test'
import { generateKeyPairSync } from 'node:crypto'
import { Value } from '@sinclair/typebox/value'
import { CloudflareProvider } from '../../src/adapters/dns-providers/cloudflare/adapter.ts'
import { ProviderError } from '../../src/adapters/dns-providers/types.ts'
import { Secret } from '../../src/ops/provider-accounts/shared.ts'

let verify: 'active' | 'refused' = 'active'
const cf = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  fetch(req) {
    const path = new URL(req.url).pathname
    const fail = (status: number, code: number, message: string) => Response.json({ success: false, errors: [{ code, message }], messages: [], result: null }, { status })
    if (path === '/user/tokens/verify') {
      return verify === 'active'
        ? Response.json({ success: true, errors: [], messages: [], result: { id: 'tok1', status: 'active' } })
        : fail(401, 1000, 'Invalid API Token')
    }
    if (path === '/zones') return fail(403, 10000, 'Authentication error')
    return fail(404, 7003, `Could not route to ${path}, perhaps your object identifier is invalid?`)
  },
})
afterAll(() => cf.stop(true))

async function refusal(p: Promise<unknown>): Promise<ProviderError> {
  const err = await p.then(() => null, (e: unknown) => e)
  expect(err).toBeInstanceOf(ProviderError)
  return err as ProviderError
}

describe('the provider cases left open by the last turn', () => {
  test('Cloudflare 403 10000 to a token that is still active: a missing permission, not a refused credential', async () => {
    verify = 'active'
    const err = await refusal(new CloudflareProvider('token-without-dns-edit', `http://127.0.0.1:${cf.port}`).listZones())
    expect(err.kind).toBe('permission')
    expect(err.message).toContain('DNS:Edit')
  })

  test('Cloudflare 403 10000 to a token its verify endpoint refuses: a refused credential', async () => {
    verify = 'refused'
    const err = await refusal(new CloudflareProvider('revoked-token', `http://127.0.0.1:${cf.port}`).listZones())
    expect(err.kind).toBe('auth')
  })

  test('Cloudflare 7003 on a zone: a zone the token does not reach', async () => {
    const err = await refusal(new CloudflareProvider('token', `http://127.0.0.1:${cf.port}`).readRecords({ id: '023e105f4ecef8ad9ca31a8372d0c353', name: 'gone.example' }))
    expect(err.kind).toBe('zone_not_found')
  })

  test('a Google service-account key file as Google issues it (about 2.3 KB) is a credential the API takes', () => {
    const pem = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()
    const key = JSON.stringify(
      {
        type: 'service_account',
        project_id: 'shop-dns-418207',
        private_key_id: '3f1c2a9e8b7d6c5f4e3d2c1b0a9f8e7d6c5b4a39',
        private_key: pem,
        client_email: 'dns-writer@shop-dns-418207.iam.gserviceaccount.com',
        client_id: '104863251897340265117',
        auth_uri: 'https://accounts.google.com/o/oauth2/auth',
        token_uri: 'https://oauth2.googleapis.com/token',
        auth_provider_x509_cert_url: 'https://www.googleapis.com/oauth2/v1/certs',
        client_x509_cert_url: 'https://www.googleapis.com/robot/v1/metadata/x509/dns-writer%40shop-dns-418207.iam.gserviceaccount.com',
        universe_domain: 'googleapis.com',
      },
      null,
      2,
    )
    expect(key.length).toBeGreaterThan(2200)
    expect(Value.Check(Secret, key)).toBe(true)
  })
})
