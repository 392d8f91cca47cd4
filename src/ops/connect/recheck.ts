import { connectionFor, connectionOut } from '../../domain/connections.ts'
import { canonicalRecords } from '../../domain/records.ts'
import { verifyConnection } from '../../domain/verify.ts'
import { markPropagating, recordVerifications, reviveConnection } from '../../domain/connect.ts'
import { defineOp } from '../registry.ts'
import { END_USER } from '../authority.ts'
import { IdParam, Input } from '../schemas.ts'
import { ConnectionSchema, TAG } from './shared.ts'

export const recheckOp = defineOp({
  id: 'connections.recheck',
  method: 'POST',
  path: '/connections/{id}:recheck',
  summary: 'Re-check a connection now',
  description:
    'Verifies the records at once and answers the connection. A `failed` connection is revived into verification (`propagating`, ' +
    '`retried_at` set, diagnosis cleared, a fresh 24 hours); a `pending` one moves to `propagating` (the caller says the records ' +
    'were added: what the widget\'s "I have added them" sends).',
  tag: TAG,
  auth: ['WIDGET', 'KEY', 'AGENT'],
  widget: END_USER,
  permission: 'connections:write',
  scope: 'domains:write',
  params: IdParam,
  bodyOptional: true,
  body: Input({}),
  response: ConnectionSchema,
  errors: ['unauthorized', 'forbidden', 'not_found'],
  kind: 'write',
  zone: 'looks',
  idempotent: true,
  agent: {
    description: 'Looks the connection\'s records up in DNS now, instead of waiting for the next scheduled check, after the person says they added them. Returns the connection with its new status.',
    app: true,
    toolset: 'connect',
    output: ['id', 'domain', 'status', 'error_code', 'error_message', 'last_checked_at'],
  },
  // The lookup is outside I/O: done before the transaction, against the records the connection had then.
  async prepare(ctx, input) {
    const c = await connectionFor(ctx.db, ctx.principal, input.id)
    if (c.status === 'live') return null
    return { records: canonicalRecords(c.desired_records), verification: await verifyConnection(ctx.services.verifyDns, c, ctx.clock.now()) }
  },
  async handler(ctx, input, prepared) {
    const now = ctx.clock.now()
    let c = await connectionFor(ctx.sql, ctx.principal, input.id, { lock: true })
    if (c.status === 'failed') c = await reviveConnection(ctx.sql, c, now)
    else if (c.status === 'pending') c = await markPropagating(ctx.sql, c, now)
    // Live already, or its records changed while they were being looked up: the next sweep verifies them.
    if (c.status === 'live' || !prepared || prepared.records !== canonicalRecords(c.desired_records)) return connectionOut(c)
    await recordVerifications(ctx.sql, [{ row: c, verification: prepared.verification }], now)
    return connectionOut(await connectionFor(ctx.sql, ctx.principal, input.id))
  },
})
