// Provider accounts (CONTRACT.md section 2, "Provider account"): saved DNS-provider credentials, their
// CRUD, and connecting domains with one. The credential rules live in src/domain/provider-accounts.ts;
// what a refused credential does is decided in src/domain/grants.ts. Provider calls happen outside any
// transaction (`transaction: false`): a slow provider never holds a database connection.
import { assertFitsEnvironment } from '../domain/test-mode.ts'
import { named } from '../domain/named.ts'
import { Type } from '@sinclair/typebox'
import { ApiError, invalid } from '../errors.ts'
import { effectiveTarget, assertHostAllowed } from '../domain/connections.ts'
import { inspectDomain, openConnection } from '../domain/connect.ts'
import { findOpen } from '../db/connections.ts'
import { writeThroughRail, type RailConnection } from '../domain/apply.ts'
import { accountOut, assertUsable, canManage, checkApiUrl, createAccount, getAccount, openProvider, providerFailure } from '../domain/provider-accounts.ts'
import { type AccountRow, accountsOfTenant, deleteAccount } from '../db/provider-accounts.ts'
import { parseDomain } from '../domain/hostnames.ts'
import { providerById } from '../domain/providers.ts'
import { getApplicationInTenant } from '../domain/tenancy.ts'
import { assertCanConnect } from '../domain/billing.ts'
import { accountCredential, accountUsed, onRefusal } from '../domain/grants.ts'
import { logCause } from '../logger.ts'
import { defineOp, type Ctx } from './registry.ts'
import { Id, IdParam, Input, Nullable, Out, outside, Timestamp } from './schemas.ts'

const ACCOUNTS = 'Provider accounts'

export const Secret = Type.String({ minLength: 1, maxLength: 8192, description: "The DNS-provider API credential as the provider issues it (a token, a key pair, a Google service-account key file of about 2.3 KB, an Azure service principal JSON); write-only, never returned or logged" })
export const ApiUrl = Type.String({ minLength: 1, maxLength: 500, description: 'PowerDNS only: the API URL, `https://dns.example.com/api/v1/servers/localhost`' })
const Access = Type.Union([Type.Literal('continuous'), Type.Literal('one_time')], {
  description: '`continuous` keeps the credential so Portico can re-apply and revert; `one_time` deletes it once the domains are connected and is refused (409) after one hour',
})


export const AccountSchema = named('ProviderAccount', Out({
  id: Type.String(),
  kind: Type.String({ description: '`api_key`, or `oauth` for a provider OAuth grant' }),
  provider: Type.String(),
  provider_name: Type.String(),
  label: Nullable(Type.String(outside('workspace'))),
  access: Type.String(),
  scope: Type.String(),
  domains: Type.Array(Type.String()),
  credential_held: Type.Boolean(),
  status: Type.String({ description: '`active`, or `needs_reconnect` when the provider refused the credential itself' }),
  last_error: Nullable(Type.String({ description: 'What the provider said when it last refused', ...outside('provider') })),
  created_by: Nullable(Type.String()),
  last_used_at: Nullable(Timestamp()),
  expires_at: Nullable(Timestamp()),
  created_at: Timestamp(),
  updated_at: Timestamp(),
  connections: Type.Array(Out({ id: Type.String(), application_id: Type.String(), domain: Type.String(), status: Type.String() })),
  uses: Type.Array(Type.String()),
  can_manage: Type.Boolean(),
}))

/** A refusal of a saved account's credential flags the account (src/domain/grants.ts, site `use`) and is answered. */
export async function refusedInUse(ctx: Ctx, a: AccountRow | null, err: unknown): Promise<never> {
  if (a) await onRefusal(ctx, err, 'use', { provider: a.provider, account: a })
  throw err
}

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

export const listAccountsOp = defineOp({
  id: 'provider_accounts.list',
  method: 'GET',
  path: '/provider-accounts',
  summary: 'List provider accounts',
  tag: ACCOUNTS,
  auth: ['KEY', 'AGENT'],
  scope: 'domains:read',
  permission: 'connections:read',
  response: Out({ accounts: Type.Array(AccountSchema) }),
  errors: ['unauthorized', 'forbidden'],
  kind: 'read',
  zone: 'none',
  async handler(ctx) {
    const rows = await accountsOfTenant(ctx.sql, ctx.principal.tenantId)
    return { accounts: await Promise.all(rows.map((a) => accountOut(ctx.sql, ctx.principal, a))) }
  },
})

export const getAccountOp = defineOp({
  id: 'provider_accounts.get',
  method: 'GET',
  path: '/provider-accounts/{id}',
  summary: 'Read a provider account',
  tag: ACCOUNTS,
  auth: ['KEY'],
  permission: 'connections:read',
  params: IdParam,
  response: AccountSchema,
  errors: ['unauthorized', 'forbidden', 'not_found'],
  kind: 'read',
  handler: async (ctx, input) => accountOut(ctx.sql, ctx.principal, await getAccount(ctx.sql, ctx.principal.tenantId, input.id)),
})

export const deleteAccountOp = defineOp({
  id: 'provider_accounts.delete',
  method: 'DELETE',
  path: '/provider-accounts/{id}',
  summary: 'Delete a provider account and its credential',
  description: 'The credential is erased. Connections it managed stay connected but are no longer managed (re-apply and automatic revert need a new grant).',
  tag: ACCOUNTS,
  auth: ['KEY'],
  permission: 'connections:write',
  params: IdParam,
  response: AccountSchema,
  errors: ['unauthorized', 'forbidden', 'not_found'],
  kind: 'destroy',
  idempotent: true,
  async handler(ctx, input) {
    const a = await getAccount(ctx.sql, ctx.principal.tenantId, input.id, true)
    if (!canManage(ctx.principal, a)) throw new ApiError('forbidden', 'Only an owner, an admin or the member who saved this account can remove it')
    const out = await accountOut(ctx.sql, ctx.principal, a)
    const now = ctx.clock.now()
    await deleteAccount(ctx.sql, a, now)
    return { ...out, credential_held: false, connections: [], domains: [] }
  },
})

const ConnectResultItem = Out({
  domain: Type.String(),
  connection_id: Nullable(Type.String()),
  status: Type.String({ description: '`connected`, `already` (records already in place through this account) or `failed`' }),
  message: Type.String(),
  error_code: Type.Optional(Type.String({ description: 'For `failed`: `zone_not_reached`, `ProviderAuthenticationError`, `dns_write_failed`, `InvalidNameservers`, …' })),
})

export const connectAccountOp = defineOp({
  id: 'provider_accounts.connect',
  method: 'POST',
  path: '/provider-accounts/{id}/connect',
  summary: 'Connect domains with a provider account',
  description:
    'Creates (or resumes) a connection per domain under `application_id` and writes its records with the account\'s key, keeping ' +
    'existing CAA and TXT values and recording what was replaced. Each domain stands alone: a domain in a zone the key does not reach ' +
    'fails with `zone_not_reached` and the others go on. A one-time account deletes its key afterwards and answers 409 ' +
    '`account_expired` past its hour (or once its key is gone). When the provider refuses the key itself the account is flagged ' +
    '`needs_reconnect` and the answer is 422 `ProviderAuthenticationError`. KEY of an owner, an admin, or the member who saved the account.',
  tag: ACCOUNTS,
  auth: ['KEY'],
  permission: 'connections:write',
  params: IdParam,
  body: Input({
    application_id: Id('app', 'The application the connections belong to'),
    domains: Type.Array(Type.String({ minLength: 1, maxLength: 300 }), { minItems: 1, maxItems: 50 }),
  }),
  response: Out({ results: Type.Array(ConnectResultItem), account: AccountSchema }),
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'not_found', 'account_expired', 'ProviderAuthenticationError', 'rate_limited', 'service_unavailable'],
  kind: 'write',
  countsItems: 'domains',
  transactions: 'steps',
  async handler(ctx, input) {
    const p = ctx.principal
    const a = await getAccount(ctx.db, p.tenantId, input.id)
    if (!canManage(ctx.principal, a)) throw new ApiError('forbidden', 'Only an owner, an admin or the member who saved this account can connect with it')
    assertUsable(a, ctx.clock.now())
    const app = await getApplicationInTenant(ctx.db, p.tenantId, input.application_id)
    // A test application's connections never reach a DNS host, not even to list an account's zones.
    if (app.environment === 'test') {
      throw new ApiError('invalid_request', 'A test application connects reserved test domains only, through POST /connections and /apply (docs/test-mode.md)', { reason: 'test_domain_required' })
    }
    const cred = (await accountCredential({ ...ctx, dns: ctx.services.dns }, a, 'use'))!
    const deps = { ...ctx, dns: ctx.services.dns }
    // The key itself first: a refused key fails the whole call and flags the account.
    await openProvider(deps, cred)
      .then((pr) => pr.listZones())
      .catch((err) => refusedInUse(ctx, a, providerFailure(err, a.provider)))
    const target = effectiveTarget(app, { cname_target: ctx.config.edge.cnameTarget, apex_ipv4: ctx.config.edge.apexIpv4 })
    const managed = a.access === 'continuous'
    const results: { domain: string; connection_id: string | null; status: string; message: string; error_code?: string }[] = []
    for (const domain of input.domains) {
      let connectionId: string | null = null
      try {
        const parsed = parseDomain(domain)
        if (!parsed) throw invalid(`${JSON.stringify(domain)} is not a domain name`)
        assertHostAllowed(ctx.principal, parsed.domain)
        assertFitsEnvironment(app.environment, parsed)
        let c = (await findOpen(ctx.db, app.id, parsed.domain)) as RailConnection | undefined
        if (!c) {
          await assertCanConnect(ctx.db, app.tenant_id, ctx.clock.now(), ctx.config, parsed.domain)
          const inspection = await inspectDomain(ctx.services.dns, parsed, ctx.services.dnsHealth)
          c = (await ctx.tx(async (tx, note) => {
            const opened = await openConnection(tx, ctx.clock.now(), app, target, parsed, inspection, { endUserRef: null, wwwRedirect: false, records: null })
            note.targetId = opened.row.id
            return opened
          })).row as RailConnection
        }
        connectionId = c.id
        if (c.provider_id && c.provider_id !== a.provider) {
          throw new ApiError('invalid_request', `${parsed.domain} is hosted at ${providerById(c.provider_id)?.name ?? c.provider_id}, not ${providerById(a.provider)?.name ?? a.provider}`, { reason: 'zone_not_reached' })
        }
        const w = await writeThroughRail(deps, c, cred, { accountId: a.id, managed, rail: 'api', event: 'connection.applied' })
        // The customer's own values the write replaced are named (they are the priors a disconnect restores).
        const over = w.replaced.map((r) => `${r.type} ${r.name} → ${r.values.join(', ')}`).join('; ')
        results.push({ domain, connection_id: c.id, status: w.changed ? 'connected' : 'already', message: w.changed ? `Records written in zone ${w.zone.name}${over ? `, replacing ${over} (restored on disconnect)` : ''}` : 'The records were already in place' })
      } catch (err) {
        if (!(err instanceof ApiError)) throw err
        logCause(err, { request_id: ctx.requestId, op: 'provider_accounts.connect', domain, code: err.code })
        const reason = (err.details as { reason?: string } | undefined)?.reason
        // Several copies of the zone, none or more than one delegated: the domain's zone is not reached.
        const code = reason === 'zone_not_reached' || reason === 'zone_ambiguous' || reason === 'zone_not_delegated' ? 'zone_not_reached' : err.code
        await onRefusal(ctx, err, 'use', { provider: a.provider, account: a })
        results.push({ domain, connection_id: connectionId, status: 'failed', message: err.title, error_code: code })
      }
    }
    if (results.some((r) => r.status !== 'failed')) await accountUsed(ctx, a)
    ctx.afterCommit(() => ctx.services.jobs?.verifySoon())
    ctx.audit.details = { account_id: a.id, connected: results.filter((r) => r.status !== 'failed').length, total: results.length }
    return { results, account: await accountOut(ctx.db, ctx.principal, await getAccount(ctx.db, p.tenantId, a.id)) }
  },
})

export const PROVIDER_ACCOUNT_OPERATIONS = [createAccountOp, listAccountsOp, getAccountOp, deleteAccountOp, connectAccountOp]
