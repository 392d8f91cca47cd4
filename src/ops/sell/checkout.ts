import { Type } from '@sinclair/typebox'
import { named } from '../../domain/named.ts'
import { assertHostAllowed } from '../../domain/connections.ts'
import { startCheckout } from '../../domain/sell.ts'
import { Input, Out } from '../schemas.ts'
import { defineOp } from '../registry.ts'
import { END_USER } from '../authority.ts'
import { appOf, Buyer, DomainField, nameOrThrow, sellDeps, STATE_NOTE, TAG, Years } from './shared.ts'

const CheckoutSession = named('CheckoutSession', Out({ id: Type.String(), url: Type.String(), client_secret: Type.String(), order_id: Type.String() }))

export const checkoutOp = defineOp({
  id: 'registrar.checkout',
  method: 'POST',
  path: '/registrar/checkout',
  summary: 'Start paying for a domain',
  description: 'Authorizes payment with manual capture at the retail price and answers the checkout session: pay on `url` (or with `client_secret`), then call `POST /registrar/fulfill` with its `id`. ' + STATE_NOTE,
  tag: TAG,
  auth: ['WIDGET'],
  widget: END_USER,
  body: Input({ domain: DomainField, buyer: Buyer, return_url: Type.String({ format: 'uri', maxLength: 2000 }), years: Years }),
  response: CheckoutSession,
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'conflict', 'service_unavailable'],
  kind: 'write',
  transactions: 'steps',
  async handler(ctx, input) {
    const deps = sellDeps(ctx)
    const domain = nameOrThrow(input.domain)
    assertHostAllowed(ctx.principal, domain)
    const { order, session } = await startCheckout(deps, await appOf(ctx), domain, input.years ?? 1, input.buyer.email, input.return_url)
    ctx.audit.targetId = order.id
    return { ...session, order_id: order.id }
  },
})
