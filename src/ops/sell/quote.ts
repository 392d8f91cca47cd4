import { Type } from '@sinclair/typebox'
import { assertHostAllowed } from '../../domain/connections.ts'
import { askRegistrar, createQuote, orderOut } from '../../domain/sell.ts'
import { defineOp } from '../registry.ts'
import { END_USER } from '../authority.ts'
import { Id, Input } from '../schemas.ts'
import { appOf, DomainField, nameOrThrow, OrderSchema, sellDeps, STATE_NOTE, TAG, Years } from './shared.ts'

export const quoteOp = defineOp({
  id: 'registrar.quote',
  method: 'POST',
  path: '/registrar/quote',
  summary: 'Quote a domain purchase',
  description: 'A priced order (`quoted`) valid for one day; `POST /registrar/checkout` for the same name and term uses it. A name that cannot be bought is 409. ' + STATE_NOTE,
  tag: TAG,
  auth: ['WIDGET', 'KEY'],
  widget: END_USER,
  permission: 'connections:write',
  body: Input({ domain: DomainField, years: Years, application_id: Type.Optional(Id('app')) }),
  response: OrderSchema,
  status: 201,
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'not_found', 'conflict', 'service_unavailable'],
  kind: 'write',
  transactions: 'steps',
  async handler(ctx, input) {
    const deps = sellDeps(ctx)
    const domain = nameOrThrow(input.domain)
    assertHostAllowed(ctx.principal, domain)
    const app = await appOf(ctx, input.application_id)
    return orderOut((await createQuote(deps, app, await askRegistrar(() => deps.registrar.check(domain)), input.years ?? 1))!)
  },
})
