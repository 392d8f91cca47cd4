import { Type } from '@sinclair/typebox'
import { PLANS } from '../../domain/plans.ts'
import { defineOp } from '../registry.ts'
import { Out } from '../schemas.ts'
import { TAG } from './shared.ts'

export const plansOp = defineOp({
  id: 'plans.list',
  method: 'GET',
  path: '/plans',
  summary: 'The plan catalog',
  tag: TAG,
  auth: ['NONE'],
  response: Out({
    plans: Type.Array(
      Out({
        id: Type.String(),
        name: Type.String(),
        monthly_price_cents: Type.Integer(),
        currency: Type.String(),
        domain_quota: Type.Integer({ description: 'New connected domains a month' }),
        hard_cap: Type.Boolean(),
        first_domain_free: Type.Boolean(),
        features: Type.Array(Type.String()),
      }),
    ),
  }),
  errors: [],
  kind: 'read',
  internal: true,
  handler: async () => ({ plans: PLANS }),
})
