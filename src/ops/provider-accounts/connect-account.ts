import { Type } from '@sinclair/typebox'
import { accountOut, assertUsable, canManage, getAccount, openProvider, providerFailure } from '../../domain/provider-accounts.ts'
import { ApiError, invalid } from '../../errors.ts'
import { getApplicationInTenant } from '../../domain/tenancy.ts'
import { accountCredential, accountUsed, onRefusal } from '../../domain/grants.ts'
import { assertHostAllowed, effectiveTarget } from '../../domain/connections.ts'
import { parseDomain } from '../../domain/hostnames.ts'
import { assertFitsEnvironment } from '../../domain/test-mode.ts'
import { findOpen } from '../../db/connections.ts'
import { type RailConnection, writeThroughRail } from '../../domain/apply.ts'
import { assertCanConnect } from '../../domain/billing.ts'
import { inspectDomain, openConnection } from '../../domain/connect.ts'
import { providerById } from '../../domain/providers.ts'
import { logCause } from '../../logger.ts'
import { Id, IdParam, Input, Nullable, Out } from '../schemas.ts'
import { defineOp } from '../registry.ts'
import { refuseFirst, type Refusal } from '../checks.ts'
import type { Principal } from '../../domain/principal.ts'
import type { AccountRow } from '../../db/provider-accounts.ts'
import type { ApplicationRow } from '../../db/applications.ts'
import { ACCOUNTS, AccountSchema, refusedInUse } from './shared.ts'

const ConnectResultItem = Out({
  domain: Type.String(),
  connection_id: Nullable(Type.String()),
  status: Type.String({ description: '`connected`, `already` (records already in place through this account) or `failed`' }),
  message: Type.String(),
  error_code: Type.Optional(Type.String({ description: 'For `failed`: `zone_not_reached`, `ProviderAuthenticationError`, `dns_write_failed`, `InvalidNameservers`, `conflict`, …' })),
  reason: Type.Optional(Type.String({ description: 'For `failed`: the error\'s `details.reason` where it has one (`provider_server_error`, `provider_refused`, `write_in_progress`, …)' })),
  retry_after: Type.Optional(Type.Integer({ minimum: 0, description: 'For `failed` for now (a host\'s server error or rate limit, another write in progress): seconds after which connecting this domain again may succeed, as the Retry-After of a single apply' })),
  restored: Type.Optional(Type.Array(Out({ name: Type.String(), type: Type.String() }), { description: 'For a write the host refused midway: the sets it had changed that were put back' })),
  not_restored: Type.Optional(
    Type.Array(Out({ name: Type.String(), type: Type.String(), ttl: Nullable(Type.Integer()), values: Type.Array(Type.String()) }), {
      description: 'For a write the host refused midway: the sets it left changed and could not put back, with the values they held (kept on the connection; a disconnect puts them back)',
    }),
  ),
})

/** What connecting with an account is judged on: who asks, the account, and the application once it is read. */
interface AccountFacts {
  principal: Principal
  account: AccountRow
  app: ApplicationRow | null
}

/**
 * Refusals of a connect through an account, in order (src/ops/checks.ts): judged once the account is
 * read and again once the application is (a row about the application holds only then). Between the
 * two, an account that can no longer be used is refused as every use of it is (`assertUsable`).
 */
export const ACCOUNT_REFUSALS: readonly Refusal<AccountFacts>[] = [
  { when: ({ principal, account }) => !canManage(principal, account), code: 'forbidden', title: 'Only an owner, an admin or the member who saved this account can connect with it' },
  // A test application's connections never reach a DNS host, not even to list an account's zones.
  {
    when: ({ app }) => app?.environment === 'test',
    code: 'invalid_request',
    reason: 'test_domain_required',
    title: 'A test application connects reserved test domains only, through POST /connections and /apply (docs/test-mode.md)',
  },
]

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
    refuseFirst(ACCOUNT_REFUSALS, { principal: p, account: a, app: null })
    assertUsable(a, ctx.clock.now())
    const app = await getApplicationInTenant(ctx.db, p.tenantId, input.application_id)
    refuseFirst(ACCOUNT_REFUSALS, { principal: p, account: a, app })
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
        const w = await writeThroughRail(deps, c, cred, { accountId: a.id, managed, rail: 'api', announce: true })
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
        // As a single apply answers it: the retry hint, and what a write refused midway put back or left (issue 46).
        const d = (err.details ?? {}) as { restored?: { name: string; type: string }[]; not_restored?: { name: string; type: string; ttl: number | null; values: string[] }[] }
        const wait = Number(err.headers['retry-after'])
        results.push({
          domain,
          connection_id: connectionId,
          status: 'failed',
          message: err.title,
          error_code: code,
          ...(reason ? { reason } : {}),
          ...(Number.isFinite(wait) && wait >= 0 && err.headers['retry-after'] ? { retry_after: Math.ceil(wait) } : {}),
          ...(d.restored ? { restored: d.restored.map((u) => ({ name: u.name, type: u.type })) } : {}),
          ...(d.not_restored ? { not_restored: d.not_restored.map((u) => ({ name: u.name, type: u.type, ttl: u.ttl, values: u.values })) } : {}),
        })
      }
    }
    if (results.some((r) => r.status !== 'failed')) await accountUsed(ctx, a)
    ctx.afterCommit(() => ctx.services.jobs?.verifySoon())
    ctx.audit.details = { account_id: a.id, connected: results.filter((r) => r.status !== 'failed').length, total: results.length }
    return { results, account: await accountOut(ctx.db, ctx.principal, await getAccount(ctx.db, p.tenantId, a.id)) }
  },
})
