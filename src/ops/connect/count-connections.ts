import { Type } from '@sinclair/typebox'
import { getApplicationInTenant } from '../../domain/tenancy.ts'
import { connectionCounts } from '../../db/connections.ts'
import { defineOp } from '../registry.ts'
import { Id, Input, Out } from '../schemas.ts'
import { StatusSchema, TAG } from './shared.ts'

export const countConnectionsOp = defineOp({
  id: 'connections.count',
  method: 'GET',
  path: '/connections:count',
  summary: 'Count connections by status and application',
  description: '`by_status` has only the statuses that occur (an absent key means zero). A widget token cannot read it.',
  tag: TAG,
  auth: ['KEY'],
  permission: 'connections:read',
  query: Input({ app_id: Type.Optional(Id('app')), status: Type.Optional(StatusSchema) }),
  response: Out({
    total: Type.Integer(),
    by_status: Type.Record(Type.String(), Type.Integer()),
    by_application: Type.Array(Out({ application_id: Type.String(), total: Type.Integer(), by_status: Type.Record(Type.String(), Type.Integer()) })),
  }),
  errors: ['invalid_request', 'unauthorized', 'forbidden'],
  kind: 'read',
  async handler(ctx, input) {
    const p = ctx.principal
    if (input.app_id) await getApplicationInTenant(ctx.sql, p.tenantId, input.app_id)
    const rows = await connectionCounts(ctx.sql, p, input)
    const byApp = new Map<string, { application_id: string; total: number; by_status: Record<string, number> }>()
    const byStatus: Record<string, number> = {}
    let total = 0
    for (const r of rows) {
      total += r.n
      byStatus[r.status] = (byStatus[r.status] ?? 0) + r.n
      const a = byApp.get(r.application_id) ?? { application_id: r.application_id, total: 0, by_status: {} }
      a.total += r.n
      a.by_status[r.status] = r.n
      byApp.set(r.application_id, a)
    }
    return { total, by_status: byStatus, by_application: [...byApp.values()] }
  },
})
