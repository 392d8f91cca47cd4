// Re-applying a managed connection (the API contract, section 4): its records written again through the
// grant Portico keeps for it. Which grant that is, the write and what a refusal does are decided in
// src/domain/grants.ts; this handler re-verifies and announces the records.
import { grantOf, railConnectionFor, writeThroughGrant } from '../../domain/grants.ts'
import { ApiError } from '../../errors.ts'
import { summary, verifyConnection } from '../../domain/verify.ts'
import { recordVerifications } from '../../domain/connect.ts'
import { railConnection } from '../../db/connections.ts'
import { emitForConnection } from '../../domain/events.ts'
import { accountOut, getAccount } from '../../domain/provider-accounts.ts'
import { connectionOut } from '../../domain/connections.ts'
import { defineOp } from '../registry.ts'
import { IdParam, Input } from '../schemas.ts'
import { ApplyResult } from './shared.ts'

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
  transactions: 'steps',
  async handler(ctx, input) {
    const c = await railConnectionFor(ctx.db, ctx.principal, input.id)
    const grant = await grantOf(ctx.db, c)
    if (!grant) throw new ApiError('conflict', 'This connection is not managed: Portico holds no grant to change its records', { managed: false })
    const w = await writeThroughGrant({ ...ctx, dns: ctx.services.dns }, c, grant)
    const verification = await verifyConnection(ctx.services.verifyDns, c, ctx.clock.now())
    const now = ctx.clock.now()
    await ctx.db.begin(async (tx) => {
      await recordVerifications(tx, [{ row: w.row, verification }], now)
      const fresh = await railConnection(tx, c)
      await emitForConnection(tx, fresh, 'connection.records.updated', now, {
        updated_objects: w.updated,
        ...(grant.kind === 'domain_connect' ? { via: 'async' } : {}),
        ...(w.replaced.length ? { replaced: w.replaced } : {}),
        ...summary(verification),
      })
    })
    ctx.audit.details = grant.kind === 'domain_connect' ? { provider: grant.provider, via: 'domain_connect' } : { changed: w.changed, provider: grant.provider }
    const account = grant.kind === 'account' ? await accountOut(ctx.db, ctx.principal, await getAccount(ctx.db, c.tenant_id, grant.account.id)) : null
    return { connection: connectionOut(await railConnection(ctx.db, c)), changed: w.changed, zone: w.zone, updated_objects: w.updated, replaced: w.replaced, account }
  },
})
