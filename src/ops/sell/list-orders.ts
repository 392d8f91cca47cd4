import { Type } from '@sinclair/typebox'
import { getApplicationInTenant } from '../../domain/tenancy.ts'
import { ordersOf } from '../../db/sell-orders.ts'
import { orderOut } from '../../domain/sell.ts'
import { defineOp } from '../registry.ts'
import { Id, Input, Out } from '../schemas.ts'
import { OrderSchema, TAG } from './shared.ts'

export const listOrdersOp = defineOp({
  id: 'sell.orders.list',
  method: 'GET',
  path: '/sell/orders',
  summary: 'The application\'s domain orders',
  description: 'Newest first. `app_id` filters (default: the key\'s own application, else every application of the tenant); `status` filters.',
  tag: TAG,
  auth: ['KEY'],
  permission: 'billing:read',
  query: Input({ app_id: Type.Optional(Id('app')), status: Type.Optional(Type.String({ maxLength: 40 })), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })) }),
  response: Out({ orders: Type.Array(OrderSchema), count: Type.Integer() }),
  errors: ['invalid_request', 'unauthorized', 'forbidden'],
  kind: 'read',
  async handler(ctx, input) {
    const p = ctx.principal
    if (input.app_id) await getApplicationInTenant(ctx.sql, p.tenantId, input.app_id)
    const app = input.app_id ?? p.applicationId
    const rows = await ordersOf(ctx.sql, p, app, input)
    return { orders: rows.map(orderOut), count: rows.length }
  },
})
