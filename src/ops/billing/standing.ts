import { Type } from '@sinclair/typebox'
import { named } from '../../domain/named.ts'
import { billingStanding } from '../../domain/billing.ts'
import { Nullable, Out } from '../schemas.ts'
import { defineOp } from '../registry.ts'
import { APP_ONLY } from '../authority.ts'
import { TAG, tenantOf } from './shared.ts'

export const StandingSchema = named('BillingStanding', Out({
  configured: Type.Boolean({ description: 'A card is saved' }),
  restricted: Type.Boolean({ description: 'A new connection would be refused now' }),
  first_domain_free: Type.Boolean({ description: 'The next domain is the tenant\'s first and its plan gives it free' }),
  attention: Type.Boolean({ description: 'Refused, lapsed, or at 80% or more of the monthly quota' }),
  code: Nullable(Type.String({ description: 'The refusal a new connection would get: `billing_required` (402) or `quota_exceeded` (402); null when none' })),
  title: Nullable(Type.String()),
  details: Nullable(Type.Object({}, { additionalProperties: true })),
  billing_url: Type.String({ description: 'The billing portal link route' }),
  plan: Out({ id: Type.String(), name: Type.String(), hard_cap: Type.Boolean() }),
  usage: Out({ used: Type.Integer(), quota: Type.Integer(), period: Type.String({ description: 'UTC calendar month, YYYY-MM' }) }),
}))

export const standingOp = defineOp({
  id: 'billing.standing',
  method: 'GET',
  path: '/billing/standing',
  summary: 'Billing standing',
  description:
    'Whether a new connection would be accepted, and why not: `billing_required` (402) on a paid plan without a saved card or with a lapsed ' +
    'subscription; `quota_exceeded` (402) on the free plan past its monthly quota where quota enforcement is on. Usage counts distinct domains ' +
    'connected in the UTC month. A connect-scoped widget token gets 403; mint one with scope `app`.',
  tag: TAG,
  auth: ['KEY', 'AGENT', 'WIDGET'],
  widget: APP_ONLY,
  permission: 'billing:read',
  scope: 'domains:read',
  response: StandingSchema,
  errors: ['unauthorized', 'forbidden', 'insufficient_scope'],
  kind: 'read',
  zone: 'none',
  agent: {
    description: 'Whether the workspace may connect more domains now (plan, usage, and what needs attention). Check it when connecting is refused for billing.',
    toolset: 'read',
    output: ['restricted', 'attention', 'plan', 'usage'],
  },
  handler: async (ctx) => billingStanding(ctx.sql, tenantOf(ctx), ctx.clock.now(), ctx.config),
})
