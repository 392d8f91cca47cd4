import { Type } from '@sinclair/typebox'
import { orderOfSession, type OrderRow } from '../../db/sell-orders.ts'
import { notFound } from '../../errors.ts'
import { fulfillOrder } from '../../domain/sell.ts'
import { defineOp, reply, type TenantCtx } from '../registry.ts'
import { END_USER } from '../authority.ts'
import { Input } from '../schemas.ts'
import { FulfillResult, sellDeps, STATE_NOTE, TAG } from './shared.ts'

async function orderBySession(ctx: TenantCtx, sessionId: string): Promise<OrderRow> {
  const p = ctx.principal
  const o = await orderOfSession(ctx.db, sessionId, p.tenantId, p.kind === 'WIDGET' ? p.applicationId : '')
  // A domain-bound token sees only its own domain's orders, as 404 like any other order it cannot see.
  if (!o || (p.kind === 'WIDGET' && p.boundHost && p.boundHost !== o.domain)) throw notFound('Checkout session not found')
  return o
}

export const fulfillOp = defineOp({
  id: 'registrar.fulfill',
  method: 'POST',
  path: '/registrar/fulfill',
  summary: 'Register a paid domain and capture the payment',
  description:
    'Verifies the authorization, registers the domain, captures, and connects it: 201 the first time, 200 with the same body on every replay ' +
    '(the processor webhook drives the same path). A payment not yet authorized, a declined card, a refused registration or an expired ' +
    'checkout is 409 `conflict` with `details.reason`. ' + STATE_NOTE,
  tag: TAG,
  auth: ['WIDGET'],
  widget: END_USER,
  body: Input({ session_id: Type.String({ minLength: 1, maxLength: 200 }) }),
  response: FulfillResult,
  status: 201,
  altStatus: [{ status: 200, description: 'Replay: this session was fulfilled before' }],
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'not_found', 'conflict', 'service_unavailable'],
  kind: 'write',
  idempotent: true,
  transactions: 'steps',
  async handler(ctx, input) {
    const deps = sellDeps(ctx)
    const o = await orderBySession(ctx, input.session_id)
    ctx.audit.targetId = o.id
    const f = await fulfillOrder(deps, o.id)
    return reply(f.created ? 201 : 200, f.body)
  },
})
