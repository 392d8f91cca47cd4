// Automatic rails (CONTRACT.md section 4): apply with a DNS-provider API credential, provider accounts
// (saved credentials) and their connect, and re-applying a managed connection. The record rules live
// in src/domain/record-plan.ts (written through the provider by apply.ts), credentials in
// src/domain/provider-accounts.ts; these handlers choose the credential, call the rail and shape the
// answer. Provider calls happen outside any transaction (`transactions: 'steps'`): a slow provider
// never holds a database connection, and what was written is recorded on the connection before the
// write (priors) and after it (rail, status, events), each step committed with its audit row.
import { Type } from '@sinclair/typebox'
import { ApiError, invalid, notFound } from '../errors.ts'
import { connectionFor, connectionOut, effectiveTarget, assertHostAllowed } from '../domain/connections.ts'
import { findOpen, inspectDomain, openConnection, recordVerifications } from '../domain/connect.ts'
import { writeThroughRail, type RailConnection } from '../domain/apply.ts'
import type { ReplacedSet } from '../domain/record-plan.ts'
import { fingerprintOf, requirePersonConfirmation, spendConfirmation } from '../domain/person-confirm.ts'
import {
  accountOut,
  assertUsable,
  canManage,
  checkApiUrl,
  createAccount,
  getAccount,
  markNeedsReconnect,
  flagGrantRefused,
  openProvider,
  providerFailure,
  type AccountRow,
  type Credential,
} from '../domain/provider-accounts.ts'
import { emitForConnection } from '../domain/events.ts'
import { parseDomain } from '../domain/hostnames.ts'
import { providerById } from '../domain/providers.ts'
import { getApplicationInTenant } from '../domain/tenancy.ts'
import { summary, verifyRecords } from '../domain/verify.ts'
import { assertCanConnect } from '../domain/billing.ts'
import { accountById, accountsOfTenant, deleteAccount, markAccountUsed, markOneTimeUsed } from '../db/provider-accounts.ts'
import { clearReauthorize, markAccessDenied, openRailConnection, openRailConnectionInTenant, railConnection } from '../db/connections.ts'
import { defineOp, reply, type Ctx } from './registry.ts'
import { END_USER } from './authority.ts'
import { consumeState, exchangeCode, startOAuth, usableCredential } from '../domain/provider-oauth.ts'
import type { RepairRail } from '../domain/monitor.ts'
import { grantOf, type GrantRow } from '../domain/domain-connect/async-api.ts'
import { reapplyThroughGrant } from '../domain/domain-connect/managed.ts'
import { absoluteHost } from '../domain/hostnames.ts'
import { ConnectionSchema } from './connect.ts'
import { Id, IdParam, Input, Nullable, Out, Timestamp } from './schemas.ts'

const TAG = 'Domains and connections'
const ACCOUNTS = 'Provider accounts'

const Secret = Type.String({ minLength: 1, maxLength: 2000, description: 'The DNS-provider API credential; write-only, never returned or logged' })
const ApiUrl = Type.String({ minLength: 1, maxLength: 500, description: 'PowerDNS only: the API URL, `https://dns.example.com/api/v1/servers/localhost`' })
const Access = Type.Union([Type.Literal('continuous'), Type.Literal('one_time')], {
  description: '`continuous` keeps the credential so Portico can re-apply and revert; `one_time` deletes it once the domains are connected and is refused (409) after one hour',
})

const AccountSchema = Out({
  id: Type.String(),
  kind: Type.String({ description: '`api_key`, or `oauth` for a provider OAuth grant' }),
  provider: Type.String(),
  provider_name: Type.String(),
  label: Nullable(Type.String()),
  access: Type.String(),
  scope: Type.String(),
  domains: Type.Array(Type.String()),
  credential_held: Type.Boolean(),
  status: Type.String({ description: '`active`, or `needs_reconnect` when the provider refused the credential itself' }),
  last_error: Nullable(Type.String()),
  created_by: Nullable(Type.String()),
  last_used_at: Nullable(Timestamp()),
  expires_at: Nullable(Timestamp()),
  created_at: Timestamp(),
  updated_at: Timestamp(),
  connections: Type.Array(Out({ id: Type.String(), application_id: Type.String(), domain: Type.String(), status: Type.String() })),
  uses: Type.Array(Type.String()),
  can_manage: Type.Boolean(),
})

const ApplyResult = Out({
  connection: ConnectionSchema,
  changed: Type.Boolean({ description: 'false when the zone already held every record: nothing was written' }),
  zone: Type.String(),
  updated_objects: Type.Array(Out({ type: Type.String(), name: Type.String(), value: Type.String() })),
  account: Nullable(AccountSchema),
})


async function connectionForRail(ctx: Ctx, id: string): Promise<RailConnection> {
  return (await connectionFor(ctx.db, ctx.principal, id)) as RailConnection
}

/** The one-time account is spent: its key is deleted once its domains are connected. */
async function afterUse(ctx: Ctx, a: AccountRow): Promise<void> {
  const now = ctx.clock.now()
  await ctx.tx((tx, note) => {
    note.details = { account_id: a.id, used: a.access }
    return a.access === 'one_time' ? markOneTimeUsed(tx, a, now) : markAccountUsed(tx, a, now)
  })
}

async function onFailure(ctx: Ctx, a: AccountRow | null, err: unknown): Promise<never> {
  if (a && err instanceof ApiError && err.code === 'ProviderAuthenticationError') {
    await ctx.tx((tx) => markNeedsReconnect(tx, a.id, (err.details as { reason?: string })?.reason ?? 'the provider refused the credential', ctx.clock.now()))
  }
  throw err
}

/**
 * An agent's write that would replace the customer's own records (an apex address, MX, NS, a TXT in
 * use) waits for its person's yes, whatever the agent's scopes: the question names every set replaced,
 * and the yes holds for exactly those (src/domain/person-confirm.ts). Writes that only add go ahead.
 */
function agentReplacementGuard(ctx: Ctx, c: RailConnection) {
  return async (replaced: ReplacedSet[]) => {
    const p = ctx.principal
    if (p.kind !== 'AGENT' || replaced.length === 0) return
    const agent = { tenantId: p.tenantId, clientId: p.clientId, subject: p.subject }
    const now = ctx.clock.now()
    const yes = await requirePersonConfirmation({ db: ctx.db, config: ctx.config, now }, agent, {
      connectionId: c.id,
      action: 'apply',
      domain: c.domain,
      summary: { replaced },
      fingerprint: fingerprintOf({ apply: c.id, replaced }),
    })
    if (!(await spendConfirmation(ctx.db, yes, now))) throw new ApiError('confirmation_required', 'This confirmation was already used; ask your person again')
  }
}

export const applyOp = defineOp({
  id: 'connections.apply',
  method: 'POST',
  path: '/connections/{id}/apply',
  summary: 'Apply the records with a DNS-provider API credential',
  description:
    'Writes the desired records into the provider zone: existing CAA and TXT values are kept, SPF (`SPFM`) is merged into the existing ' +
    'SPF value, and every record set replaced is recorded (`prior`, `prior_source: provider`) so disconnect can restore it. Give either ' +
    '`credential` (used once and not kept unless `save` is true, which saves it as a continuous provider account and makes the ' +
    'connection managed) or `provider_account_id`. PowerDNS also needs `api_url`. Re-sending the same records answers 200 with ' +
    '`changed: false` and writes nothing. A refused credential is 422 `ProviderAuthenticationError`; a zone the credential does not ' +
    'reach is 422 `dns_write_failed` with `details.reason: zone_not_reached` (also recorded as the connection\'s diagnosis). ' +
    'A delegated agent token whose write would replace records already in the zone (values the write takes away) gets 400 ' +
    '`confirmation_required` with `details.confirm_url` and writes nothing until its person confirms exactly those records there.',
  tag: TAG,
  auth: ['WIDGET', 'KEY', 'AGENT'],
  widget: END_USER,
  scope: 'domains:write',
  permission: 'connections:write',
  params: IdParam,
  body: Input({
    credential: Type.Optional(Secret),
    api_url: Type.Optional(ApiUrl),
    provider_account_id: Type.Optional(Id('pac', 'A saved provider account to apply with')),
    save: Type.Optional(Type.Boolean({ description: 'Save `credential` as a continuous provider account (the connection becomes managed)' })),
    label: Type.Optional(Type.String({ maxLength: 200 })),
  }),
  response: ApplyResult,
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'not_found', 'confirmation_required', 'ProviderAuthenticationError', 'dns_write_failed', 'account_expired', 'rate_limited', 'service_unavailable'],
  kind: 'write',
  idempotent: true,
  transactions: 'steps',
  async handler(ctx, input) {
    const p = ctx.principal
    const c = await connectionForRail(ctx, input.id)
    if (!!input.credential === !!input.provider_account_id) {
      throw invalid('Give either credential or provider_account_id', [{ in: 'body', field: 'credential', message: 'exactly one of credential and provider_account_id' }])
    }
    const now = ctx.clock.now()
    let account: AccountRow | null = null
    let cred: Credential
    if (input.provider_account_id) {
      account = await getAccount(ctx.db, p.tenantId, input.provider_account_id)
      assertUsable(account, now)
      if (c.provider_id && account.provider !== c.provider_id) {
        throw invalid(`This account is for ${account.provider}; ${c.domain} is hosted at ${c.provider_id}`, [{ in: 'body', field: 'provider_account_id', message: 'another provider' }])
      }
      cred = (await usableCredential(ctx, account))!
    } else {
      if (!c.provider_id) throw new ApiError('invalid_request', `The DNS provider of ${c.domain} is not known; use the manual rail`, { reason: 'unknown_provider' })
      const apiUrl = input.api_url ? checkApiUrl(ctx.config, input.api_url) : null
      cred = { provider: c.provider_id, secret: input.credential!, apiUrl }
    }
    if (input.save && !account) {
      // Check the key before saving it: a refused key is never stored.
      await openProvider({ config: ctx.config, dns: ctx.services.dns }, cred).then((pr) => pr.listZones()).catch((err) => { throw providerFailure(err, cred.provider, c.domain) })
      account = await ctx.tx((tx) => createAccount(tx, ctx.config, now, p.tenantId, {
        provider: cred.provider,
        secret: cred.secret,
        apiUrl: cred.apiUrl ?? null,
        label: input.label ?? null,
        access: 'continuous',
        createdBy: p.kind === 'KEY' ? p.keyId : null,
      }))
    }
    const managed = account !== null && account.access === 'continuous'
    const beforeWrite = p.kind === 'AGENT' ? agentReplacementGuard(ctx, c) : undefined
    const w = await writeThroughRail({ ...ctx, dns: ctx.services.dns }, c, cred, { accountId: managed ? account!.id : null, managed, rail: 'api', event: 'connection.applied', beforeWrite }).catch((err) => onFailure(ctx, account, err))
    if (account) await afterUse(ctx, account)
    ctx.afterCommit(() => ctx.services.jobs?.verifySoon())
    ctx.audit.details = { changed: w.changed, provider: cred.provider, managed, account_id: account?.id ?? null }
    return {
      connection: connectionOut(w.row),
      changed: w.changed,
      zone: w.zone.name,
      updated_objects: w.updated,
      account: account ? await accountOut(ctx.db, ctx.principal, await getAccount(ctx.db, p.tenantId, account.id)) : null,
    }
  },
})

export const reapplyOp = defineOp({
  id: 'connections.reapply',
  method: 'POST',
  path: '/connections/{id}:reapply',
  summary: 'Re-apply a managed connection',
  description:
    'Writes the connection\'s desired records again through the grant it was connected with (a continuous provider account, an ' +
    'OAuth grant, or a Domain Connect grant whose templates the provider applies again), then re-verifies: `connection.records.updated` with `updated_objects`. A connection Portico holds no grant for is ' +
    '409 `conflict`. When the provider refuses the stored grant the connection is flagged for re-consent, ' +
    '`connection.reapply.failed` is emitted and the answer is 422 `ProviderAuthenticationError`.',
  tag: TAG,
  auth: ['KEY'],
  permission: 'connections:write',
  params: IdParam,
  bodyOptional: true,
  body: Input({}),
  response: ApplyResult,
  errors: ['unauthorized', 'forbidden', 'not_found', 'conflict', 'ProviderAuthenticationError', 'dns_write_failed', 'rate_limited', 'service_unavailable'],
  kind: 'write',
  idempotent: true,
  transactions: 'steps',
  async handler(ctx, input) {
    const p = ctx.principal
    const c = await connectionForRail(ctx, input.id)
    const grant = c.managed && c.rail === 'domain_connect' ? await grantOf(ctx.db, p.tenantId, c.id) : undefined
    if (grant) return reapplyDomainConnect(ctx, c, grant)
    const account = c.managed && c.provider_account_id ? await getAccount(ctx.db, p.tenantId, c.provider_account_id).catch(() => null) : null
    const cred = account ? await usableCredential(ctx, account).catch((err) => reapplyRefused(ctx, c, account, err)) : null
    if (!account || !cred) throw new ApiError('conflict', 'This connection is not managed: Portico holds no grant to change its records', { managed: false })
    const w = await reapplyManaged({ ...ctx, dns: ctx.services.dns }, c, account, cred)
    ctx.audit.details = { changed: w.changed, provider: cred.provider }
    return { connection: connectionOut(w.row), changed: w.changed, zone: w.zone.name, updated_objects: w.updated, account: await accountOut(ctx.db, ctx.principal, account) }
  },
})

/** `:reapply` of a connection managed through Domain Connect: its templates again through the grant, then re-verified. */
async function reapplyDomainConnect(ctx: Ctx, c: RailConnection, grant: GrantRow) {
  const deps = { db: ctx.db, clock: ctx.clock, config: ctx.config, dns: ctx.services.dns }
  try {
    await reapplyThroughGrant(deps, grant)
  } catch (err) {
    if (err instanceof ApiError && err.code === 'ProviderAuthenticationError') await flagGrantRefused(ctx.db, ctx.clock.now(), c.id, grant.dc_provider_id)
    throw err
  }
  const verification = await verifyRecords(ctx.services.verifyDns, c.apex_domain, c.desired_records)
  const now = ctx.clock.now()
  const updated = c.desired_records.filter((d) => d.type !== 'REDIR301').map((d) => ({ type: d.type, name: absoluteHost(d.host, c.apex_domain), value: d.value }))
  await ctx.db.begin(async (tx) => {
    await recordVerifications(tx, [{ row: c, verification }], now)
    const fresh = await clearReauthorize(tx, c, now)
    await emitForConnection(tx, fresh, 'connection.records.updated', now, { updated_objects: updated, via: 'async', ...summary(verification) })
  })
  ctx.audit.details = { provider: grant.dc_provider_id, via: 'domain_connect' }
  const row = await railConnection(ctx.db, c)
  return { connection: connectionOut(row), changed: true, zone: grant.apex, updated_objects: updated, account: null }
}

/**
 * Re-applies a managed connection and re-verifies it (`connection.records.updated`); a refused grant
 * flags the connection for re-consent (`connection.reapply.failed`). Also the monitor's repair rail.
 */
export async function reapplyManaged(deps: Pick<Ctx, 'db' | 'clock' | 'config'> & { dns: Ctx['services']['dns'] }, c: RailConnection, account: AccountRow, cred: Credential) {
  try {
    const w = await writeThroughRail(deps, c, cred, { accountId: account.id, managed: true, rail: account.kind === 'oauth' ? 'oauth' : 'api', event: null })
    const verification = await verifyRecords(deps.dns, w.row.apex_domain, w.row.desired_records)
    const now = deps.clock.now()
    await deps.db.begin(async (tx) => {
      await recordVerifications(tx, [{ row: w.row, verification }], now)
      const fresh = await railConnection(tx, c)
      await emitForConnection(tx, fresh, 'connection.records.updated', now, {
        updated_objects: w.updated,
        ...summary(verification),
      })
      await markAccountUsed(tx, account, now)
    })
    return { ...w, row: await railConnection(deps.db, c) }
  } catch (err) {
    return reapplyRefused(deps, c, account, err)
  }
}

/** A refused grant flags the connection for re-consent (`connection.reapply.failed`) and the account `needs_reconnect`. */
async function reapplyRefused(deps: Pick<Ctx, 'db' | 'clock'>, c: RailConnection, account: AccountRow, err: unknown): Promise<never> {
  if (err instanceof ApiError && err.code === 'ProviderAuthenticationError') {
    const lastError = (err.details as { reason?: string })?.reason ?? 'refused'
    await flagGrantRefused(deps.db, deps.clock.now(), c.id, account.provider, { id: account.id, lastError })
  }
  throw err
}

// ---- Provider accounts -----------------------------------------------------------------------------

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
  transactions: 'steps',
  async handler(ctx, input) {
    const p = ctx.principal
    const a = await getAccount(ctx.db, p.tenantId, input.id)
    if (!canManage(ctx.principal, a)) throw new ApiError('forbidden', 'Only an owner, an admin or the member who saved this account can connect with it')
    assertUsable(a, ctx.clock.now())
    const app = await getApplicationInTenant(ctx.db, p.tenantId, input.application_id)
    const cred = (await usableCredential(ctx, a).catch((err) => onFailure(ctx, a, err)))!
    const deps = { ...ctx, dns: ctx.services.dns }
    // The key itself first: a refused key fails the whole call and flags the account.
    await openProvider(deps, cred)
      .then((pr) => pr.listZones())
      .catch((err) => onFailure(ctx, a, providerFailure(err, a.provider)))
    const target = effectiveTarget(app, { cname_target: ctx.config.edge.cnameTarget, apex_ipv4: ctx.config.edge.apexIpv4 })
    const managed = a.access === 'continuous'
    const results: { domain: string; connection_id: string | null; status: string; message: string; error_code?: string }[] = []
    for (const domain of input.domains) {
      let connectionId: string | null = null
      try {
        const parsed = parseDomain(domain)
        if (!parsed) throw invalid(`${JSON.stringify(domain)} is not a domain name`)
        assertHostAllowed(ctx.principal, parsed.domain)
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
        results.push({ domain, connection_id: c.id, status: w.changed ? 'connected' : 'already', message: w.changed ? `Records written in zone ${w.zone.name}` : 'The records were already in place' })
      } catch (err) {
        if (!(err instanceof ApiError)) throw err
        const reason = (err.details as { reason?: string } | undefined)?.reason
        const code = reason === 'zone_not_reached' ? 'zone_not_reached' : err.code
        if (err.code === 'ProviderAuthenticationError') await ctx.tx((tx) => markNeedsReconnect(tx, a.id, reason ?? 'refused', ctx.clock.now()))
        results.push({ domain, connection_id: connectionId, status: 'failed', message: err.title, error_code: code })
      }
    }
    if (results.some((r) => r.status !== 'failed')) await afterUse(ctx, a)
    ctx.afterCommit(() => ctx.services.jobs?.verifySoon())
    ctx.audit.details = { account_id: a.id, connected: results.filter((r) => r.status !== 'failed').length, total: results.length }
    return { results, account: await accountOut(ctx.db, ctx.principal, await getAccount(ctx.db, p.tenantId, a.id)) }
  },
})

export const RAIL_OPERATIONS = [applyOp, reapplyOp, createAccountOp, listAccountsOp, getAccountOp, deleteAccountOp, connectAccountOp]

/**
 * The monitor's repair rail (src/domain/monitor.ts `RepairRail`): a drifted managed connection gets its
 * records written again through its grant. A refused grant is not repaired; the connection is flagged
 * for re-consent as a failed re-apply would be.
 */
export function managedRepairRail(deps: Pick<Ctx, 'db' | 'clock' | 'config'> & { dns: Ctx['services']['dns'] }): RepairRail {
  return {
    via: 'managed_dns',
    async repair(conn) {
      const c = await openRailConnection(deps.db, conn)
      const grant = c?.managed && c.rail === 'domain_connect' ? await grantOf(deps.db, c.tenant_id, c.id) : undefined
      if (c && grant) {
        try {
          await reapplyThroughGrant(deps, grant)
          return { fixed: true, detail: `Re-applied ${grant.service_ids.join(', ')} through the ${grant.dc_provider_id} Domain Connect grant` }
        } catch (err) {
          if (!(err instanceof ApiError)) throw err
          if (err.code !== 'ProviderAuthenticationError') return { fixed: false, detail: `The repair failed: ${err.title}` }
          await flagGrantRefused(deps.db, deps.clock.now(), c.id, grant.dc_provider_id)
          return { fixed: false, detail: 'The DNS provider refused the stored Domain Connect grant; re-authorize the connection.' }
        }
      }
      if (!c?.managed || !c.provider_account_id) return { fixed: false, detail: 'Portico holds no grant for this connection; put the records back at the DNS provider.' }
      const account = await accountById(deps.db, c.provider_account_id)
      let cred: Credential | null = null
      try {
        cred = account ? await usableCredential(deps, account) : null
      } catch (err) {
        if (!(err instanceof ApiError) || err.code !== 'ProviderAuthenticationError') throw err
        // The provider will not renew the grant: the connection asks for re-consent, as a refused re-apply does.
        await flagGrantRefused(deps.db, deps.clock.now(), c.id, account!.provider, { id: account!.id, lastError: (err.details as { reason?: string } | undefined)?.reason ?? 'refused during a monitor repair' })
        return { fixed: false, detail: 'The DNS provider refused to renew the stored grant; re-authorize the connection.' }
      }
      if (!account || !cred) return { fixed: false, detail: 'The provider account of this connection holds no usable credential; connect it again.' }
      try {
        const w = await writeThroughRail(deps, c, cred, { accountId: account.id, managed: true, rail: account.kind === 'oauth' ? 'oauth' : 'api', event: null })
        const what = w.updated.map((u) => `${u.type} ${u.name}`).join(', ')
        return { fixed: true, detail: `Re-applied ${what || 'the records'} through the ${providerById(account.provider)?.name ?? account.provider} grant` }
      } catch (err) {
        if (!(err instanceof ApiError)) throw err
        if (err.code === 'ProviderAuthenticationError') {
          await flagGrantRefused(deps.db, deps.clock.now(), c.id, account.provider, { id: account.id, lastError: 'refused during a monitor repair' })
          return { fixed: false, detail: 'The DNS provider refused the stored grant; re-authorize the connection.' }
        }
        return { fixed: false, detail: `The repair write failed: ${err.title}` }
      }
    },
  }
}

// ---- Provider OAuth ----------------------------------------------------------------------------------

export const oauthStartOp = defineOp({
  id: 'connections.oauth_start',
  method: 'POST',
  path: '/connections/{id}/oauth:start',
  summary: 'Start the OAuth rail: sign in at the DNS provider',
  description:
    'Answers the provider\'s authorization URL for the end user to open. It carries a signed `state` that is single-use and expires ' +
    'after ten minutes, and a PKCE challenge. The provider sends the user back to `/connect/oauth/callback`, where Portico exchanges ' +
    'the code, keeps the grant encrypted (the connection becomes managed) and writes the records (`connection.applied` with ' +
    '`data.via: automatic`). Refused with 400 `invalid_request` (`details.reason: oauth_not_available`) when the domain check did not ' +
    'advertise the OAuth rail.',
  tag: TAG,
  auth: ['WIDGET', 'KEY', 'AGENT'],
  widget: END_USER,
  scope: 'domains:write',
  permission: 'connections:write',
  params: IdParam,
  bodyOptional: true,
  body: Input({ return_url: Type.Optional(Type.String({ maxLength: 2000, description: 'Where the callback sends the browser afterwards (http or https URL)' })) }),
  response: Out({ authorize_url: Type.String(), expires_at: Timestamp(), provider: Type.String() }),
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'not_found'],
  kind: 'write',
  async handler(ctx, input) {
    const c = await connectionFor(ctx.sql, ctx.principal, input.id)
    if (input.return_url !== undefined) {
      let ok = false
      try {
        ok = ['https:', 'http:'].includes(new URL(input.return_url).protocol)
      } catch {
        ok = false
      }
      if (!ok) throw invalid('return_url must be an absolute http(s) URL', [{ in: 'body', field: 'return_url', message: 'not an http(s) URL' }])
    }
    const out = await startOAuth(ctx.sql, ctx.config, ctx.clock.now(), c, input.return_url ?? null)
    ctx.audit.details = { provider: c.provider_id }
    return { ...out, provider: c.provider_id! }
  },
})

export const oauthCallbackOp = defineOp({
  id: 'connect.oauth_callback',
  method: 'GET',
  path: '/connect/oauth/callback',
  summary: 'OAuth redirect target of the provider sign-in',
  description:
    'Authenticated by its signed, single-use, expiring `state` (a forged, reused or expired one is 400 `invalid_request`). Exchanges ' +
    'the code, stores the grant encrypted as a provider account of kind `oauth`, and writes the records. With a `return_url` given ' +
    'at start the answer is a 302 there. A refusal at the provider (`error=access_denied`) records the diagnosis `access_denied`.',
  tag: 'Discovery and catalogs',
  auth: ['NONE'],
  internal: true,
  query: Input({
    state: Type.String({ minLength: 1, maxLength: 200 }),
    code: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
    error: Type.Optional(Type.String({ maxLength: 200 })),
    error_description: Type.Optional(Type.String({ maxLength: 2000 })),
    scope: Type.Optional(Type.String({ maxLength: 500 })),
    // Providers add their own parameters to the redirect (Google: authuser, prompt, hd; Microsoft:
    // session_state; Vercel: configurationId, teamId, next): accepted and not used, since the grant
    // comes from the token answer, never from the query.
  }, { additionalProperties: true }),
  response: Out({ connection_id: Type.String(), domain: Type.String(), status: Type.String(), changed: Type.Boolean(), account_id: Type.String() }),
  altStatus: [{ status: 302, description: 'Redirect to the return_url given at start' }],
  errors: ['invalid_request', 'not_found', 'ProviderAuthenticationError', 'dns_write_failed'],
  kind: 'write',
  transactions: 'steps',
  async handler(ctx, input) {
    const now = ctx.clock.now()
    const s = await ctx.tx((tx) => consumeState(tx, ctx.config, now, input.state))
    const c = await openRailConnectionInTenant(ctx.db, s)
    if (!c) throw notFound('Connection not found')
    ctx.audit.tenantId = s.tenant_id
    ctx.audit.targetId = c.id
    if (input.error || !input.code) {
      await ctx.tx((tx) => markAccessDenied(tx, c, 'The sign-in at the DNS provider was refused', now))
      throw new ApiError('invalid_request', 'The sign-in at the DNS provider was refused or cancelled', { reason: 'access_denied', provider_error: input.error ?? 'no_code' })
    }
    const tokens = await exchangeCode(ctx.config, s.provider, input.code, s.code_verifier, now)
    const account = await ctx.tx((tx) => createAccount(tx, ctx.config, now, s.tenant_id, { kind: 'oauth', provider: s.provider, secret: JSON.stringify(tokens), apiUrl: null, label: null, access: 'continuous', createdBy: null }))
    const w = await writeThroughRail({ ...ctx, dns: ctx.services.dns }, c, { provider: s.provider, secret: tokens.access_token }, { accountId: account.id, managed: true, rail: 'oauth', event: 'connection.applied', via: 'automatic' })
    ctx.afterCommit(() => ctx.services.jobs?.verifySoon())
    const body = { connection_id: c.id, domain: c.domain, status: w.row.status, changed: w.changed, account_id: account.id }
    if (s.return_url) {
      const back = new URL(s.return_url)
      back.searchParams.set('connection_id', c.id)
      back.searchParams.set('status', 'connected')
      return reply(302, body, { location: back.toString() })
    }
    return body
  },
})

RAIL_OPERATIONS.push(oauthStartOp, oauthCallbackOp)
