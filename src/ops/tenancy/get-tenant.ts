import { getTenant, tenantOut } from '../../domain/tenancy.ts'
import { defineOp } from '../registry.ts'
import { IdParam, Tenant } from '../schemas.ts'
import { TAG } from './shared.ts'

export const getTenantOp = defineOp({
  id: 'tenants.get',
  method: 'GET',
  path: '/tenants/{id}',
  summary: 'Read a tenant',
  tag: TAG,
  auth: ['MGMT'],
  params: IdParam,
  response: Tenant,
  errors: ['unauthorized', 'forbidden', 'not_found'],
  kind: 'read',
  internal: true,
  handler: async (ctx, input) => tenantOut(await getTenant(ctx.sql, input.id)),
})
