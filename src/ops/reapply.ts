// Re-applying a managed connection (CONTRACT.md section 4): its records written again through the
// grant Portico keeps for it (src/domain/grants.ts).
import { ApiError } from '../errors.ts'
import { connectionOut } from '../domain/connections.ts'
import { recordVerifications } from '../domain/connect.ts'
import { writeThroughRail, type RailConnection } from '../domain/apply.ts'
import { accountOut, getAccount, flagGrantRefused, type AccountRow, type Credential } from '../domain/provider-accounts.ts'
import { emitForConnection } from '../domain/events.ts'
import { providerById } from '../domain/providers.ts'
import { summary, verifyRecords } from '../domain/verify.ts'
import { accountById, markAccountUsed } from '../db/provider-accounts.ts'
import { clearReauthorize, openRailConnection, railConnection } from '../db/connections.ts'
import { defineOp, type Ctx } from './registry.ts'
import { usableCredential } from '../domain/provider-oauth.ts'
import type { RepairRail } from '../domain/monitor.ts'
import { grantOf, type GrantRow } from '../domain/domain-connect/async-api.ts'
import { reapplyThroughGrant } from '../domain/domain-connect/managed.ts'
import { absoluteHost } from '../domain/hostnames.ts'
import { ApplyResult, connectionForRail } from './api-rail.ts'
import { IdParam, Input } from './schemas.ts'

const TAG = 'Domains and connections'

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
  transaction: false,
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
