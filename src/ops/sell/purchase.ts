import { Type } from '@sinclair/typebox'
import { assertHostAllowed } from '../../domain/connections.ts'
import { purchase, requestHash } from '../../domain/sell.ts'
import { defineOp, reply } from '../registry.ts'
import { END_USER } from '../authority.ts'
import { Input } from '../schemas.ts'
import { appOf, Buyer, DomainField, FulfillResult, nameOrThrow, sellDeps, STATE_NOTE, TAG, Years } from './shared.ts'

export const purchaseOp = defineOp({
  id: 'registrar.purchase',
  method: 'POST',
  path: '/registrar/purchase',
  summary: 'Buy a domain in one call',
  description:
    'Quotes, authorizes `payment_method` with manual capture, registers, captures and connects, in one call. The `Idempotency-Key` header ' +
    'is required: the same key with the same body replays the first answer (its status and body) and charges nothing more; the same key ' +
    'with a different body is 422 `idempotency_key_reused` (`details.reason` says so too) and charges nothing. The key is bound to the ' +
    'application, so a retry from another widget token of the same application replays the same order. ' + STATE_NOTE,
  tag: TAG,
  auth: ['WIDGET'],
  widget: END_USER,
  headers: Input({ 'idempotency-key': Type.String({ minLength: 1, maxLength: 255, description: 'Unique per purchase attempt' }) }, { additionalProperties: true }),
  body: Input({ domain: DomainField, years: Years, buyer: Buyer, payment_method: Type.String({ minLength: 1, maxLength: 255, description: 'A payment method of the processor (sandbox: pm_card_visa; pm_card_chargeDeclined declines)' }) }),
  response: FulfillResult,
  status: 201,
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'conflict', 'idempotency_key_reused', 'service_unavailable'],
  kind: 'write',
  idempotent: true,
  transactions: 'steps',
  async handler(ctx, input) {
    const deps = sellDeps(ctx)
    const domain = nameOrThrow(input.domain)
    assertHostAllowed(ctx.principal, domain)
    const { 'idempotency-key': key, ...body } = input
    const f = await purchase(deps, await appOf(ctx), key, { domain, years: input.years ?? 1, email: input.buyer.email, paymentMethod: input.payment_method, hash: requestHash(body) })
    ctx.audit.targetId = f.body.order_id as string
    return reply(f.status, f.body, f.created ? undefined : { 'idempotent-replayed': 'true' })
  },
})
