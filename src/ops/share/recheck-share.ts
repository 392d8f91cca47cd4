import { sharedConnection } from '../../domain/share.ts'
import { canonicalRecords } from '../../domain/records.ts'
import { verifyConnection } from '../../domain/verify.ts'
import { markPropagating, recordVerifications, reviveConnection } from '../../domain/connect.ts'
import { defineOp } from '../registry.ts'
import { Input } from '../schemas.ts'
import { SharedFlow, sharedOut, TAG, TokenParam } from './shared.ts'

export const recheckShareOp = defineOp({
  id: 'share.recheck',
  method: 'POST',
  path: '/share/{token}:recheck',
  summary: 'Say the shared records were added, and re-check now',
  description:
    'What "I have added them" sends in a shared flow: like `POST /connections/{id}:recheck`, a pending connection starts propagating ' +
    'and a failed one is revived, then its records are verified at once. No credential; unknown or expired tokens are 404.',
  tag: TAG,
  auth: ['NONE'],
  guessable: true,
  params: TokenParam,
  bodyOptional: true,
  body: Input({}),
  response: SharedFlow,
  errors: ['not_found'],
  kind: 'write',
  internal: true,
  // The lookup is outside I/O: done before the transaction, against the records the connection had then.
  async prepare(ctx, input) {
    const { row } = await sharedConnection(ctx.db, input.token, ctx.clock.now())
    if (row.status === 'live') return null
    return { records: canonicalRecords(row.desired_records), verification: await verifyConnection(ctx.services.verifyDns, row, ctx.clock.now()) }
  },
  async handler(ctx, input, prepared) {
    const now = ctx.clock.now()
    const { row, expiresAt } = await sharedConnection(ctx.sql, input.token, now)
    ctx.audit.tenantId = row.tenant_id
    ctx.audit.targetId = row.id
    const c = row.status === 'failed' ? await reviveConnection(ctx.sql, row, now) : row.status === 'pending' ? await markPropagating(ctx.sql, row, now) : row
    if (c.status === 'live' || !prepared || prepared.records !== canonicalRecords(c.desired_records)) return sharedOut(ctx.sql, c, expiresAt)
    await recordVerifications(ctx.sql, [{ row: c, verification: prepared.verification }], now)
    return sharedOut(ctx.sql, (await sharedConnection(ctx.sql, input.token, now)).row, expiresAt)
  },
})
