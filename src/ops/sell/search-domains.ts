import { Type } from '@sinclair/typebox'
import { named } from '../../domain/named.ts'
import { assertHostAllowed } from '../../domain/connections.ts'
import { askRegistrar } from '../../domain/sell.ts'
import { Input, Nullable, Out } from '../schemas.ts'
import { defineOp } from '../registry.ts'
import { END_USER } from '../authority.ts'
import { nameOrThrow, sellDeps, TAG } from './shared.ts'

const OfferSchema = named('DomainOffer', Out({
  domain: Type.String(),
  available: Type.Boolean(),
  premium: Type.Boolean(),
  price_cents: Nullable(Type.Integer({ description: 'Retail price for one year, smallest currency unit' })),
  currency: Type.String(),
}))

export const searchDomainsOp = defineOp({
  id: 'registrar.search',
  method: 'POST',
  path: '/registrar/search',
  summary: 'Search a domain name to buy',
  description: 'Availability, premium flag and retail price of the name (`.com` is assumed without a dot), with up to `limit` available suggestions when it is taken. Read-only.',
  tag: TAG,
  auth: ['WIDGET', 'KEY'],
  widget: END_USER,
  permission: 'connections:read',
  body: Input({ query: Type.String({ minLength: 1, maxLength: 253 }), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 20, default: 5 })) }),
  response: Type.Composite([OfferSchema, Out({ suggestions: Type.Array(OfferSchema) })]),
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'service_unavailable'],
  kind: 'read',
  async handler(ctx, input) {
    const { registrar } = sellDeps(ctx, false)
    const q = input.query.trim().toLowerCase()
    const name = nameOrThrow(q.includes('.') ? q : `${q}.com`)
    assertHostAllowed(ctx.principal, name)
    const offer = await askRegistrar(() => registrar.check(name))
    return { ...offer, suggestions: offer.available ? [] : await askRegistrar(() => registrar.suggest(offer.domain, input.limit ?? 5)) }
  },
})
