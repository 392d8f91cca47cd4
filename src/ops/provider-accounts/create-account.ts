import { Type } from '@sinclair/typebox'
import { accountOut, checkApiUrl, createAccount, openProvider, providerFailure } from '../../domain/provider-accounts.ts'
import { defineOp } from '../registry.ts'
import { Input } from '../schemas.ts'
import { ACCOUNTS, AccountSchema, ApiUrl, Secret } from './shared.ts'

const Access = Type.Union([Type.Literal('continuous'), Type.Literal('one_time')], {
  description: '`continuous` keeps the credential so Portico can re-apply and revert; `one_time` deletes it once the domains are connected and is refused (409) after one hour',
})

export const createAccountOp = defineOp({
  id: 'provider_accounts.create',
  method: 'POST',
  path: '/provider-accounts',
  summary: 'Save a DNS-provider credential as a provider account',
  description:
    'The credential is checked with the provider first (a refused one is 422 `ProviderAuthenticationError` and nothing is saved), then ' +
    'stored encrypted; it is never returned. `one_time` accounts delete the key once their domains are connected and answer 409 after ' +
    'one hour. Credential formats: Cloudflare, DigitalOcean and Hetzner an API token; GoDaddy `key:secret`; Route 53 ' +
    '`access_key_id:secret_access_key`; PowerDNS the API key with `api_url`.',
  tag: ACCOUNTS,
  auth: ['KEY'],
  permission: 'connections:write',
  body: Input({
    provider: Type.String({ minLength: 1, maxLength: 50, description: 'Catalog id (GET /providers)' }),
    credential: Secret,
    api_url: Type.Optional(ApiUrl),
    label: Type.Optional(Type.String({ maxLength: 200 })),
    access: Type.Optional(Access),
  }),
  response: AccountSchema,
  status: 201,
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'ProviderAuthenticationError', 'dns_write_failed', 'rate_limited'],
  kind: 'write',
  async prepare(ctx, input) {
    const apiUrl = input.api_url ? checkApiUrl(ctx.config, input.api_url) : null
    const cred = { provider: input.provider, secret: input.credential, apiUrl }
    const provider = await openProvider({ config: ctx.config, dns: ctx.services.dns }, cred)
    await provider.listZones().catch((err) => {
      throw providerFailure(err, input.provider)
    })
    return { apiUrl }
  },
  async handler(ctx, input, prepared: { apiUrl: string | null }) {
    const p = ctx.principal
    const a = await createAccount(ctx.sql, ctx.config, ctx.clock.now(), p.tenantId, {
      provider: input.provider,
      secret: input.credential,
      apiUrl: prepared.apiUrl,
      label: input.label ?? null,
      access: input.access ?? 'continuous',
      createdBy: p.kind === 'KEY' ? p.keyId : null,
    })
    ctx.audit.details = { provider: a.provider, access: a.access }
    return accountOut(ctx.sql, ctx.principal, a)
  },
})
